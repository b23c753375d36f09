#include "SummaryReader.h"
#include "indexer/CompletenessAlerts.h"
#include "indexer/EnvironmentRegistry.h"
#include "store/ContractReader.h"

namespace forkscope::engine {

DbSummary readSummary(store::ContractReader& reader, const QString& environmentId, quint64 chainId,
                      const std::function<void()>& betweenReads)
{
    DbSummary s;
    s.environmentId = environmentId;
    s.chainId = chainId;
    s.readAt = QDateTime::currentDateTimeUtc();
    // One read snapshot: a WAL reader, or a REPEATABLE READ transaction, keeps the state of
    // its first read however many commits the writers make meanwhile.
    const auto snapshot = reader.snapshot();
    for (const indexer::Environment& e : indexer::readEnvironments(reader)) {
        s.environments.append({e.id, e.chainId, e.createdAt, e.archivedAt});
        if (e.id == environmentId && s.chainId == 0)
            s.chainId = e.chainId;
    }
    const QVariantList scope{environmentId, qint64(s.chainId)};
    QList<ReorgMark> newestFirst;
    for (auto q = reader.query(QStringLiteral("SELECT id, detected_at, depth, reason, "
                                              "fork_block_number, rows_removed FROM reorg_events "
                                              "WHERE environment_id = ? AND chain_id = ? ORDER BY "
                                              "id DESC LIMIT 200"),
                               scope);
         q->next();)
        newestFirst.append({q->value(0).toLongLong(),
                            QDateTime::fromString(q->value(1).toString(), Qt::ISODateWithMs),
                            q->value(2).toLongLong(), q->value(3).toString(),
                            q->value(4).toLongLong(), q->value(5).toLongLong()});
    for (qsizetype i = newestFirst.size(); i-- > 0;)
        s.recentReorgs.append(newestFirst[i]);
    s.openAlerts = indexer::openAlerts(reader, environmentId, s.chainId);
    for (auto q = reader.query(QStringLiteral("SELECT block_number, block_hash, policy_version, "
                                              "generation, verified_at FROM indexer_checkpoints "
                                              "WHERE environment_id = ? AND chain_id = ?"),
                               scope);
         q->next();) {
        s.checkpoint = quint64(q->value(0).toLongLong());
        s.checkpointHash = q->value(1).toString();
        s.policyVersion = q->value(2).toString();
        s.generation = q->value(3).toInt();
        s.verifiedAt = q->value(4).toString();
    }
    if (betweenReads)
        betweenReads();
    // The oldest row still waiting is aged by its block's time (the outbox has no enqueue
    // time of its own; the block time is when the event happened on chain).
    const store::OutboxTally rows = reader.outboxTally(environmentId, qint64(s.chainId));
    s.outboxPending = rows.pending;
    s.outboxDelivered = rows.delivered;
    s.outboxFailed = rows.failed;
    if (rows.oldestPendingBlockTime)
        s.outboxOldestPendingAgeSecs = std::max(
            0.0, double(QDateTime::currentSecsSinceEpoch() - *rows.oldestPendingBlockTime));
    return s;
}

} // namespace forkscope::engine
