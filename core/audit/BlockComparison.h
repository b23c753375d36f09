#pragma once

#include "AuditResult.h"

#include <QList>
#include <cstdint>

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

} // namespace forkscope::audit
