#include "FileSummary.h"
#include "indexer/CompletenessAlerts.h"
#include "indexer/EnvironmentRegistry.h"
#include "outbox/OutboxDispatcher.h"
#include "outbox/RenderedOutbox.h"
#include "store/Database.h"
#include "store/ReorgEventStore.h"

#include <QSqlQuery>

namespace forkscope::engine {

DbSummary readFileSummary(store::Database& db, const QString& environmentId, quint64 chainId,
                          const std::function<void()>& betweenReads)
{
    DbSummary s;
    s.environmentId = environmentId;
    s.chainId = chainId;
    s.readAt = QDateTime::currentDateTimeUtc();
    // One read transaction: a WAL reader keeps the state of its first read however many
    // commits the indexer makes meanwhile (the shared index's summary reads one snapshot too).
    const store::ReadSnapshot snapshot(db);
    for (const indexer::Environment& e : indexer::EnvironmentRegistry(db).list()) {
        s.environments.append({e.id, e.chainId, e.createdAt, e.archivedAt});
        if (e.id == environmentId && s.chainId == 0)
            s.chainId = e.chainId;
    }
    for (const store::ReorgEventRow& r :
         store::ReorgEventStore(db).list(environmentId, s.chainId, 200))
        s.recentReorgs.append({r.id, QDateTime::fromString(r.detectedAt, Qt::ISODateWithMs),
                               r.depth, r.reason, r.forkBlockNumber, r.rowsRemoved});
    s.openAlerts = indexer::CompletenessAlerts(db, environmentId, s.chainId).open();
    { // the query ends here: the snapshot, not a statement left open, holds the reads together
        QSqlQuery cp = db.run(QStringLiteral("SELECT block_number, block_hash, policy_version, "
                                             "generation, verified_at FROM indexer_checkpoints "
                                             "WHERE environment_id = ? AND chain_id = ?"),
                              {environmentId, qint64(s.chainId)});
        if (cp.next()) {
            s.checkpoint = quint64(cp.value(0).toLongLong());
            s.checkpointHash = cp.value(1).toString();
            s.policyVersion = cp.value(2).toString();
            s.generation = cp.value(3).toInt();
            s.verifiedAt = cp.value(4).toString();
        }
    }
    if (betweenReads)
        betweenReads();
    const outbox::OutboxCounts rows = outbox::countRows(db, environmentId, s.chainId);
    s.outboxPending = rows.pending;
    s.outboxDelivered = rows.delivered;
    s.outboxFailed = rows.failed;
    // The oldest row still waiting, aged by its block's time (the outbox has no enqueue
    // time of its own; the block time is when the event happened on chain). Read from the
    // binary tables, as the shared index's summary does: the views' rendering is not needed.
    // A pending row is stored (tried before) or rendered from its log (never touched).
    const std::optional<std::int64_t> firstRendered =
        outbox::firstRenderedBlock(db, environmentId, s.chainId);
    QSqlQuery age = db.run(
        QStringLiteral("SELECT b.block_timestamp FROM block_store b WHERE b.environment_id = ? "
                       "AND b.chain_id = ? AND b.block_number = (SELECT min(n) FROM (SELECT "
                       "min(o.block_number) AS n FROM outbox_store o WHERE o.environment_id = ? "
                       "AND o.chain_id = ? AND o.delivered_at IS NULL AND o.failed_at IS NULL "
                       "UNION ALL SELECT ?))"),
        {environmentId, qint64(s.chainId), environmentId, qint64(s.chainId),
         firstRendered ? QVariant(qint64(*firstRendered)) : QVariant()});
    if (age.next())
        s.outboxOldestPendingAgeSecs =
            std::max(0.0, double(QDateTime::currentSecsSinceEpoch() - age.value(0).toLongLong()));
    return s;
}

} // namespace forkscope::engine
