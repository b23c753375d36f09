#include "BlockComparison.h"

#include <algorithm>

namespace forkscope::audit {

namespace {
QList<std::uint64_t> sorted(QList<std::uint64_t> v)
{
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
}

// Elements of `a` not in `b` (both sorted).
QList<std::uint64_t> minus(const QList<std::uint64_t>& a, const QList<std::uint64_t>& b)
{
    QList<std::uint64_t> out;
    std::set_difference(a.cbegin(), a.cend(), b.cbegin(), b.cend(), std::back_inserter(out));
    return out;
}
} // namespace

bool compareBlock(const BlockRows& stored, const BlockRows& node, AuditHole* hole)
{
    const auto storedLogs = sorted(stored.logIndexes);
    const auto nodeLogs = sorted(node.logIndexes);
    const auto missing = minus(nodeLogs, storedLogs);
    const auto extra = minus(storedLogs, nodeLogs);
    const auto storedTransfers = sorted(stored.transferIndexes);
    const auto nodeTransfers = sorted(node.transferIndexes);
    const qint64 missingTransfers = minus(nodeTransfers, storedTransfers).size();
    const qint64 extraTransfers = minus(storedTransfers, nodeTransfers).size();
    hole->missingLogs = missing.size();
    hole->extraLogs = extra.size();
    hole->missingLogIndexes = missing.mid(0, kIndexesNamed);
    hole->extraLogIndexes = extra.mid(0, kIndexesNamed);
    hole->missingTransfers = missingTransfers;
    hole->extraTransfers = extraTransfers;
    return !missing.isEmpty() || !extra.isEmpty() || missingTransfers > 0 || extraTransfers > 0;
}

HashMismatch classifyHashMismatch(const chain::Hash32& nodeHash,
                                  const std::optional<StoredBlock>& storedAbove,
                                  const std::optional<chain::Hash32>& nodeAboveHash,
                                  const std::optional<QString>& checkpointHash)
{
    if (storedAbove)
        return nodeAboveHash && nodeHash.isHexOf(storedAbove->parentHash) &&
                       nodeAboveHash->isHexOf(storedAbove->hash)
                   ? HashMismatch::RowEdited
                   : HashMismatch::Reorged;
    return checkpointHash && nodeHash.isHexOf(*checkpointHash) ? HashMismatch::RowEdited
                                                               : HashMismatch::Reorged;
}

} // namespace forkscope::audit
