#pragma once

#include "AuditResult.h"
#include "chain/Hash32.h"

#include <QList>
#include <QString>
#include <cstdint>
#include <optional>

namespace forkscope::audit {

// What one side (the database, or the node) holds for one block: the log indexes of the
// contracts' logs, and those of them that are ERC-20 Transfers.
struct BlockRows
{
    QList<std::uint64_t> logIndexes;
    QList<std::uint64_t> transferIndexes;
    bool isEmpty() const { return logIndexes.isEmpty() && transferIndexes.isEmpty(); }
};

// The difference between the stored rows and the node's, written into `hole` (missing =
// on the node, not stored; extra = stored, not on the node). Indexes are compared as sets,
// so one deleted log and one forged log are two differences, not a matching count. Returns
// true when they differ.
bool compareBlock(const BlockRows& stored, const BlockRows& node, AuditHole* hole);

// A stored `blocks` row (hex as the read surface shows it).
struct StoredBlock
{
    QString hash;
    QString parentHash;
    qint64 timestamp = 0;
};

// Why block N's stored hash is not the node's. The links above N tell: when the stored
// block N + 1 names the node's block N as its parent and is itself the node's block N + 1
// (or, N being the checkpoint, the checkpoint holds the node's hash of N), the chain never
// left the node's and only row N was edited; a repair from N rewrites it, while `forkscope
// index` sees nothing to roll back. Otherwise the stored chain is another branch: a reorg
// the indexer has not rolled back yet.
enum class HashMismatch { Reorged, RowEdited };
HashMismatch classifyHashMismatch(const chain::Hash32& nodeHash,
                                  const std::optional<StoredBlock>& storedAbove,
                                  const std::optional<chain::Hash32>& nodeAboveHash,
                                  const std::optional<QString>& checkpointHash);

} // namespace forkscope::audit
