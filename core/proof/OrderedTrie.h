#pragma once

#include "chain/Hash32.h"

#include <QByteArray>
#include <QList>
#include <utility>

// The root hash of a Merkle-Patricia trie (Yellow Paper appendix D): what a block header
// commits to for its transactions, receipts and withdrawals. Built in one pass from the
// sorted keys, never stored: Forkscope only needs the root, to compare with the header's.
namespace forkscope::proof::trie {

// keccak256(rlp("")): the root of a trie with nothing in it.
chain::Hash32 emptyRoot();

// The root of the trie holding `entries` (key, value). As in the trie itself, an empty
// value means the key is absent, and a key given twice keeps its last value.
chain::Hash32 rootOf(QList<std::pair<QByteArray, QByteArray>> entries);

// The root of the trie whose keys are rlp(0) .. rlp(n-1) and whose values are `values` in
// order: go-ethereum's DeriveSha, i.e. a header's transactionsRoot and receiptsRoot when the
// values are the transactions' or receipts' consensus encodings.
chain::Hash32 orderedRoot(const QList<QByteArray>& values);

} // namespace forkscope::proof::trie
