#pragma once

// The reader of a receipt from a reply parsed by simdjson (Receipt::fromJson calls it).
// Private to forkscope_core.

#include "Receipt.h"
#include "chain/JsonDom.h"

namespace forkscope::proof::json {

// Throws ChainParseError naming the field (UnsupportedReceiptType for an unknown type).
Receipt readReceipt(const chain::json::Value& v, const chain::FieldPath& context);

} // namespace forkscope::proof::json
