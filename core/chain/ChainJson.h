#pragma once

// The readers of the chain types from a reply parsed by simdjson: straight from the parsed
// text into the types, with the rules and one-line errors of their fromJson (which call
// these). Private to forkscope_core.

#include "BlockHeader.h"
#include "JsonDom.h"
#include "LogEntry.h"

#include <QList>

namespace forkscope::chain::json {

// An eth_getBlockBy* result object ("expected a block object" for anything else, null too).
BlockHeader readBlockHeader(const Value& v, const FieldPath& context);
// One eth_getLogs entry.
LogEntry readLogEntry(const Value& v, const FieldPath& context);
// An eth_getLogs result: `context`[i] names entry i.
QList<LogEntry> readLogs(const Value& v, const FieldPath& context);

} // namespace forkscope::chain::json
