#pragma once

#include "chain/U256.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <cstdint>

// Recursive Length Prefix encoding (Yellow Paper appendix B), the serialisation that block
// headers, receipts and trie nodes are hashed in. Encoding only: Forkscope recomputes the
// commitments a node claims, it never has to read RLP a node sent.
namespace forkscope::proof::rlp {

// A byte string: a single byte below 0x80 is itself, anything else gets a length prefix.
QByteArray encodeBytes(QByteArrayView bytes);

// An unsigned integer: its minimal big-endian bytes as a string (0 is the empty string).
QByteArray encodeUint(std::uint64_t value);
QByteArray encodeUint(const chain::U256& value);
// A big-endian number of any width, leading zero bytes dropped first.
QByteArray encodeUintBigEndian(QByteArrayView bigEndian);

// A list of items that are each already RLP-encoded.
QByteArray encodeList(const QList<QByteArray>& encodedItems);
// A list whose items' encodings are already concatenated in `payload`.
QByteArray encodeListPayload(QByteArrayView payload);

} // namespace forkscope::proof::rlp
