#pragma once

#include "AbiType.h"

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>

namespace forkscope::abi {

// Decodes Solidity ABI encodings (head/tail layout) into JSON: integers as base-10
// strings (exact to 256 bits), addresses and byte strings as lowercase 0x-hex, strings as
// text, arrays as arrays, tuples as objects keyed by component name (or "0", "1", ...
// when unnamed). Every read is bounds-checked: malformed data is an AbiError naming the
// parameter and byte offset, never a crash and never a guess.
class AbiDecoder
{
public:
    // The parameters encoded as one tuple in `data` (an event's non-indexed inputs).
    static QJsonObject decodeParams(const QList<AbiParam>& params, const QByteArray& data,
                                    const QString& where);
    // One static value from a single 32-byte word (an indexed event topic).
    static QJsonValue decodeWord(const AbiType& type, const QByteArray& word, const QString& where);
};

} // namespace forkscope::abi
