#pragma once

#include "FixedBytes.h"
#include "LogEntry.h"

#include <QByteArrayView>
#include <QList>
#include <array>
#include <cstdint>

namespace forkscope::chain {

// A block's logsBloom (Yellow Paper 4.3.1, M3:2048): 2048 bits, three per item, from the
// Keccak-256 of each log's address and of each of its topics. The header commits to it (it
// is part of what the block hash hashes), so a node cannot change it without changing the
// block: a provider that hides a log of a block cannot also hide the log's bits.
using LogsBloom = FixedBytes<256>;

namespace bloom {

// The three bits an item sets: byte index into the 256 and the mask within that byte.
struct Bits
{
    std::array<std::uint8_t, 3> byte{};
    std::array<std::uint8_t, 3> mask{};
};
// Hashes `item` (Keccak-256) once; the result can be kept and tested against many blooms.
Bits bitsOf(QByteArrayView item);
bool mayContain(const LogsBloom& bloom, const Bits& bits);

// Sets the three bits of `item` (a 20-byte address or a 32-byte topic).
void add(LogsBloom& bloom, QByteArrayView item);
// False when `item` is certainly in no log of the block; true when it may be (a false
// positive is possible, a false negative is not).
bool mayContain(const LogsBloom& bloom, QByteArrayView item);
// The bloom of a set of logs: what the header's must equal when the set is the block's
// every log.
LogsBloom of(const QList<LogEntry>& logs);

} // namespace bloom
} // namespace forkscope::chain
