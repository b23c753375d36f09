// How the indexer finds that stored rows are no longer the chain, and undoes them: a head
// whose hash disagrees with the stored one, and logs the node no longer returns (absence,
// acted on only when the blocks' headers corroborate it).
#include "ForkFinder.h"
#include "Indexer.h"
#include "IndexerErrors.h"
#include "ReorgReason.h"
#include "ReorgRollback.h"
#include "rpc/EthClient.h"
#include "store/Database.h"
#include "wire/LogReplyCheck.h"

#include <QHash>
#include <QSet>
#include <QSqlQuery>
#include <algorithm>

namespace forkscope::indexer {

bool Indexer::rollBackIfHeadDisagrees(const Checkpoint& cp, std::uint64_t head)
{
    const auto stored = m_forkFinder->storedHash(head);
    if (!stored)
        return false; // below the first indexed block: nothing to compare
    const auto onNode = m_eth.blockByNumber(head);
    if (!onNode || onNode->hash == *stored)
        return false; // a lagging node: its head is a block we hold
    // The node serves block `head` with another hash than the one we stored: a reorg (an
    // anvil_rollback, say) that no new block has covered yet. Waiting for the node to
    // outgrow the checkpoint would keep non-canonical rows indefinitely.
    rollBack(cp, reorg_reason::kHashMismatch, head);
    return true;
}

void Indexer::rollBack(const Checkpoint& cp, const QString& reason,
                       std::optional<std::uint64_t> nodeHead)
{
    if (m_pool)
        m_pool->cancel();
    // Never roll back on another chain's word: a node swapped for another chain disagrees
    // with every stored hash.
    verifyNodeIdentity();
    const ForkPoint fork = m_forkFinder->find(cp, m_config.maxReorgDepth, nodeHead);
    if (fork.number && *fork.number >= cp.number)
        // The node now agrees with the checkpoint after all (a flapping or load-balanced
        // node answered two branches): nothing stored is wrong, and a depth-0 "reorg" is
        // never recorded.
        throw NodeInconsistentError(
            QStringLiteral("node %1 answered another hash for block %2 (%3), then the stored "
                           "one: an inconsistent node, not a reorg; nothing rolled back")
                .arg(m_eth.endpointText())
                .arg(cp.number)
                .arg(reason));
    const RollbackResult r = m_rollback->rollback(cp, fork, reason);
    ++m_status.reorgs;
    m_status.state = IndexerStatus::State::Reorged;
    m_status.checkpoint = fork.number;
    m_status.message = QStringLiteral("%1 at checkpoint %2: fork at %3, depth %4, %5 rows removed")
                           .arg(reason)
                           .arg(r.oldCheckpoint)
                           .arg(r.forkBlock)
                           .arg(r.depth)
                           .arg(r.rowsRemoved);
    if (onReorg)
        onReorg(r, reason);
}

bool Indexer::recheckForAbsence(const Checkpoint& cp)
{
    if (m_config.contracts.isEmpty() || m_config.absenceWindow == 0)
        return false;
    const std::uint64_t lo = std::max<std::uint64_t>(
        cp.startBlock,
        cp.number + 1 > m_config.absenceWindow ? cp.number + 1 - m_config.absenceWindow : 0);
    // What we hold: (block, log index) -> block hash.
    QHash<QPair<std::uint64_t, std::uint64_t>, QString> held;
    {
        QSqlQuery q =
            m_db.run(QStringLiteral("SELECT block_number, log_index, block_hash FROM logs "
                                    "WHERE environment_id = ? AND chain_id = ? AND "
                                    "block_number BETWEEN ? AND ?"),
                     {m_config.environmentId, qint64(m_chainId), qint64(lo), qint64(cp.number)});
        while (q.next())
            held.insert({q.value(0).toULongLong(), q.value(1).toULongLong()},
                        q.value(2).toString());
    }
    if (held.isEmpty())
        return false;
    rpc::LogFilter f;
    f.fromBlock = lo;
    f.toBlock = cp.number;
    f.addresses = m_config.contracts;
    const auto now = m_eth.getLogs(f); // RpcException: the node is unavailable, not a reorg
    wire::checkLogsMatchFilter(now, f, m_eth.endpointText());
    QSet<QPair<std::uint64_t, std::uint64_t>> present;
    for (const auto& log : now)
        present.insert({log.blockNumber, log.logIndex});
    QList<std::uint64_t> absentBlocks;
    for (auto it = held.cbegin(); it != held.cend(); ++it)
        if (!present.contains(it.key()) && !absentBlocks.contains(it.key().first))
            absentBlocks.append(it.key().first);
    if (absentBlocks.isEmpty())
        return false;
    std::sort(absentBlocks.begin(), absentBlocks.end());

    // Absence alone is weak evidence (a truncating or misconfigured provider looks the
    // same), so it is loud, counted, and corroborated by a different method that no log
    // cap applies to before anything is deleted: the blocks' headers.
    ++m_status.absenceSuspicions;
    const auto headers = m_eth.blocksByNumber(absentBlocks.first(), absentBlocks.last());
    bool contradiction = false;
    for (std::uint64_t n : absentBlocks) {
        const auto& h = headers.at(qsizetype(n - absentBlocks.first()));
        QSqlQuery q =
            m_db.run(QStringLiteral("SELECT block_hash FROM blocks WHERE environment_id = ? "
                                    "AND chain_id = ? AND block_number = ?"),
                     {m_config.environmentId, qint64(m_chainId), qint64(n)});
        if (h && q.next() && h->hash.toHex() != q.value(0).toString())
            contradiction = true;
    }
    QStringList blocks;
    for (std::uint64_t n : absentBlocks)
        blocks << QString::number(n);
    if (onAbsence)
        onAbsence(absentBlocks, contradiction);
    if (contradiction) {
        rollBack(cp, reorg_reason::kAbsence);
        return true;
    }
    m_status.message = QStringLiteral("logs absent from blocks %1 without a hash contradiction: "
                                      "nothing deleted (suspect truncation or misconfiguration)")
                           .arg(blocks.join(QStringLiteral(", ")));
    return false;
}

} // namespace forkscope::indexer
