#pragma once

#include "AbiType.h"
#include "DecodeBudget.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>

namespace forkscope::abi {

// What a decoding of event data cost, filled whether it succeeded or threw.
struct DecodeStats
{
    qsizetype renderedBytes = 0; // compact JSON bytes produced (charged) so far
    qsizetype bytesRead = 0;     // bytes of data read, a region read twice counting twice
    DecodeLimit limit;
};

// Decodes Solidity ABI encodings (head/tail layout) into JSON: integers as base-10
// strings (exact to 256 bits), addresses and byte strings as lowercase 0x-hex, strings as
// text, arrays as arrays, tuples as objects keyed by component name (or "0", "1", ...
// when unnamed). Every read is bounds-checked: malformed data is an AbiError naming the
// parameter and byte offset, never a crash and never a guess. The output is bounded by a
// DecodeBudget on the data's size: an encoding whose offsets point many times at the same
// region is an AbiError naming the bound, raised before the output grows past it.
class AbiDecoder
{
public:
    // The parameters encoded as one tuple in `data` (an event's non-indexed inputs). For
    // a decoding that succeeds, `stats->renderedBytes` is the size of the object rendered
    // as compact JSON (absent duplicate keys).
    static QJsonObject decodeParams(const QList<AbiParam>& params, const QByteArray& data,
                                    const QString& where, DecodeStats* stats = nullptr);
    // One static value from a single 32-byte word (an indexed event topic).
    static QJsonValue decodeWord(const AbiType& type, const QByteArray& word, const QString& where);
};

} // namespace forkscope::abi
