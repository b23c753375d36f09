#include "SharedSummary.h"
#include "coord/SharedAlerts.h"
#include "indexer/PgEnvironmentRegistry.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContract.h"
#include "store/pg/PgContractReader.h"

namespace forkscope::engine {

DbSummary readSharedSummary(store::pg::PgConnection& db, const QString& environmentId)
{
    store::pg::PgContractReader reader(db);
    const auto snapshot = reader.snapshot();
    DbSummary s;
    s.environmentId = environmentId;
    s.schemaVersion = store::pg::kPgContractVersion;
    s.readAt = QDateTime::currentDateTimeUtc();
    QString node;
    for (const indexer::Environment& e : indexer::PgEnvironmentRegistry(db).list()) {
        s.environments.append({e.id, e.chainId, e.createdAt, e.archivedAt});
        if (e.id == environmentId) {
            s.chainId = e.chainId;
            node = e.rpcUrl;
        }
    }
    const QList<QByteArray> scope{environmentId.toUtf8(), QByteArray::number(s.chainId)};
    const auto cp = reader.checkpoint(environmentId, qint64(s.chainId), QStringLiteral("default"));
    // Just below the first range is "nothing indexed yet", as for a file.
    if (cp && cp->number >= cp->startBlock) {
        s.checkpoint = quint64(cp->number);
        s.checkpointHash = cp->hash;
        s.generation = int(db.run("ss_generation",
                                  "SELECT generation FROM indexer_checkpoints WHERE "
                                  "environment_id = $1 AND chain_id = $2 AND source_id = "
                                  "'default'",
                                  scope)
                               .int64(0, 0));
    }
    const auto reorgs = db.run("ss_reorgs",
                               "SELECT id, detected_at, depth, reason, fork_block_number, "
                               "rows_removed FROM (SELECT * FROM reorg_events WHERE "
                               "environment_id = $1 AND chain_id = $2 ORDER BY id DESC LIMIT "
                               "200) r ORDER BY id",
                               scope);
    for (int i = 0; i < reorgs.rows(); ++i)
        s.recentReorgs.append(
            {reorgs.int64(i, 0),
             QDateTime::fromString(QString::fromUtf8(reorgs.text(i, 1)), Qt::ISODateWithMs),
             reorgs.int64(i, 2), QString::fromUtf8(reorgs.text(i, 3)), reorgs.int64(i, 4),
             reorgs.int64(i, 5)});
    const auto outbox = db.run(
        "ss_outbox",
        "SELECT count(*) FILTER (WHERE delivered_at IS NULL AND failed_at IS NULL), count(*) "
        "FILTER (WHERE delivered_at IS NOT NULL), count(*) FILTER (WHERE delivered_at IS NULL "
        "AND failed_at IS NOT NULL), (SELECT b.block_timestamp FROM outbox_store p JOIN "
        "block_store b USING (environment_id, chain_id, block_number) WHERE p.environment_id = "
        "$1 AND p.chain_id = $2 AND p.delivered_at IS NULL AND p.failed_at IS NULL AND "
        "p.block_number <= (SELECT max(block_number) FROM indexer_checkpoints c WHERE "
        "c.environment_id = $1 AND c.chain_id = $2) ORDER BY p.block_number LIMIT 1) FROM "
        "outbox_store o WHERE o.environment_id = $1 AND o.chain_id = $2 AND o.block_number <= "
        "(SELECT max(block_number) FROM indexer_checkpoints c WHERE c.environment_id = $1 AND "
        "c.chain_id = $2)",
        scope);
    s.openAlerts = coord::openAlerts(db, environmentId, s.chainId, node);
    s.outboxPending = outbox.int64(0, 0);
    s.outboxDelivered = outbox.int64(0, 1);
    s.outboxFailed = outbox.int64(0, 2);
    // The oldest row still waiting, aged by its block's time, as for a file.
    if (!outbox.isNull(0, 3))
        s.outboxOldestPendingAgeSecs =
            std::max(0.0, double(QDateTime::currentSecsSinceEpoch() - outbox.int64(0, 3)));
    return s;
}

} // namespace forkscope::engine
