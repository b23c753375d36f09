#pragma once

#include "FixedBytes.h"

namespace forkscope::chain {

// A 20-byte account or contract address.
using Address = FixedBytes<20>;

} // namespace forkscope::chain

Q_DECLARE_METATYPE(forkscope::chain::Address)
