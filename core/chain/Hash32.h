#pragma once

#include "FixedBytes.h"

namespace forkscope::chain {

// A 32-byte Keccak-256 digest: block, transaction and topic hashes.
using Hash32 = FixedBytes<32>;

} // namespace forkscope::chain

Q_DECLARE_METATYPE(forkscope::chain::Hash32)
