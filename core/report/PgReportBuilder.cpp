#include "PgReportBuilder.h"
#include "EnvironmentChoice.h"
#include "ReportError.h"
#include "ReportSections.h"
#include "coord/SharedAlerts.h"
#include "indexer/PgEnvironmentRegistry.h"
#include "store/Database.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContract.h"
#include "store/pg/PgContractReader.h"

#include "forkscope_version.h"

namespace forkscope::report {

using store::pg::PgConnection;

namespace {

QList<QByteArray> scope(const CheckpointReport& r)
{
    return {r.environment.id.toUtf8(), QByteArray::number(qulonglong(r.environment.chainId))};
}

void readCheckpoints(PgConnection& db, CheckpointReport& r)
{
    const QByteArray sql =
        "SELECT c.source_id, c.block_number, '0x' || encode(c.block_hash, 'hex'), c.generation, " +
        store::pg::pgIsoUtcSql("c.updated_at") +
        ", (SELECT min(b.from_block) FROM backfill_ranges b WHERE b.environment_id = "
        "c.environment_id AND b.chain_id = c.chain_id) FROM indexer_checkpoints c WHERE "
        "c.environment_id = $1 AND c.chain_id = $2 ORDER BY c.source_id";
    const auto q = db.run("pgr_checkpoints", sql.constData(), scope(r));
    for (int i = 0; i < q.rows(); ++i) {
        CheckpointEntry c;
        c.sourceId = QString::fromUtf8(q.text(i, 0));
        c.blockNumber = q.int64(i, 1);
        c.startBlock = q.isNull(i, 5) ? std::nullopt : std::optional<qint64>(q.int64(i, 5));
        // A backfill starts its checkpoint just below its first block: nothing is indexed
        // yet, and there is no checkpoint to report or verify.
        if (c.startBlock && c.blockNumber < *c.startBlock)
            continue;
        c.blockHash = QString::fromUtf8(q.text(i, 2));
        c.generation = int(q.int64(i, 3));
        c.updatedAt = QString::fromUtf8(q.text(i, 4));
        r.checkpoints.append(c);
    }
}

// What each rollback removed, as ReportBuilder reads it on SQLite: counts by kind, and the
// first rows in the order the rollback recorded them.
void readReorgDiffs(PgConnection& db, CheckpointReport& r)
{
    const auto counts = db.run("pgr_diff_counts",
                               "SELECT reorg_id, kind, count(*) FROM reorg_diff_items WHERE "
                               "environment_id = $1 AND chain_id = $2 GROUP BY reorg_id, kind",
                               scope(r));
    for (ReorgEntry& e : r.reorgs) {
        for (int i = 0; i < counts.rows(); ++i)
            if (counts.int64(i, 0) == e.id) {
                e.diffCounts.insert(QString::fromUtf8(counts.text(i, 1)), counts.int64(i, 2));
                e.diffItemsTotal += counts.int64(i, 2);
            }
        if (e.diffItemsTotal == 0)
            continue;
        // The view's columns, in the store's insertion order (a view has none).
        static const QByteArray sql =
            "SELECT kind, block_number, log_index, tx_hash, contract, holder, from_addr, "
            "to_addr, value, before_value, after_value, event_key FROM (SELECT d.id AS id, " +
            store::pg::pgReorgDiffColumnsSql() +
            " FROM reorg_diff_store d WHERE d.environment_id = $1 AND d.chain_id = $2 AND "
            "d.reorg_id = $3) x ORDER BY id LIMIT $4";
        const auto items =
            db.run("pgr_diff_items", sql.constData(),
                   scope(r) + QList<QByteArray>{
                                  QByteArray::number(e.id),
                                  QByteArray::number(CheckpointReport::kMaxDiffItemsPerReorg)});
        const auto optional = [&items](int row, int column) {
            return items.isNull(row, column) ? std::nullopt
                                             : std::optional<qint64>(items.int64(row, column));
        };
        const auto text = [&items](int row, int column) {
            return QString::fromUtf8(items.text(row, column));
        };
        for (int i = 0; i < items.rows(); ++i) {
            ReorgDiffItem d;
            d.kind = text(i, 0);
            d.blockNumber = optional(i, 1);
            d.logIndex = optional(i, 2);
            d.txHash = text(i, 3);
            d.contract = text(i, 4);
            d.holder = text(i, 5);
            d.fromAddr = text(i, 6);
            d.toAddr = text(i, 7);
            d.value = text(i, 8);
            d.beforeValue = text(i, 9);
            d.afterValue = text(i, 10);
            d.eventKey = text(i, 11);
            e.diffItems.append(d);
        }
        e.diffTruncated = e.diffItemsTotal > e.diffItems.size();
    }
}

void readReorgs(PgConnection& db, CheckpointReport& r)
{
    const auto q = db.run("pgr_reorgs",
                          "SELECT id, coalesce(source_id, ''), detected_at, old_block_number, "
                          "coalesce(old_block_hash, ''), fork_block_number, "
                          "coalesce(fork_block_hash, ''), depth, reason, rows_removed, "
                          "coalesce(delivered_outbox_rows, 0) FROM reorg_events WHERE "
                          "environment_id = $1 AND chain_id = $2 ORDER BY id",
                          scope(r));
    for (int i = 0; i < q.rows(); ++i) {
        ReorgEntry e;
        e.id = q.int64(i, 0);
        e.sourceId = QString::fromUtf8(q.text(i, 1));
        e.detectedAt = QString::fromUtf8(q.text(i, 2));
        e.oldBlockNumber = q.int64(i, 3);
        e.oldBlockHash = QString::fromUtf8(q.text(i, 4));
        e.forkBlockNumber = q.int64(i, 5);
        e.forkBlockHash = QString::fromUtf8(q.text(i, 6));
        e.depth = q.int64(i, 7);
        e.reason = QString::fromUtf8(q.text(i, 8));
        e.rowsRemoved = q.int64(i, 9);
        e.deliveredOutboxRows = q.int64(i, 10);
        r.reorgs.append(e);
    }
    readReorgDiffs(db, r);
}

void readOutboxCounts(PgConnection& db, CheckpointReport& r)
{
    // Only rows the checkpoint covers, as the outbox view shows them; counted on the table,
    // without rendering every payload.
    const auto q = db.run("pgr_outbox_counts",
                          "SELECT count(*) FILTER (WHERE delivered_at IS NULL AND failed_at IS "
                          "NULL), count(*) FILTER (WHERE delivered_at IS NOT NULL), count(*) "
                          "FILTER (WHERE delivered_at IS NULL AND failed_at IS NOT NULL) FROM "
                          "outbox_store o WHERE o.environment_id = $1 AND o.chain_id = $2 AND "
                          "o.block_number <= (SELECT max(c.block_number) FROM "
                          "indexer_checkpoints c WHERE c.environment_id = o.environment_id AND "
                          "c.chain_id = o.chain_id)",
                          scope(r));
    r.counts.outboxPending = q.int64(0, 0);
    r.counts.outboxDelivered = q.int64(0, 1);
    r.counts.outboxFailed = q.int64(0, 2);
}

} // namespace

QString PgReportBuilder::liveEnvironment(PgConnection& db)
{
    return liveEnvironmentIn(indexer::PgEnvironmentRegistry(db), db.displayUrl(),
                             QStringLiteral("forkscope index --db %1").arg(db.displayUrl()));
}

EnvironmentInfo PgReportBuilder::findEnvironment(PgConnection& db, const QString& environmentId)
{
    return environmentIn(indexer::PgEnvironmentRegistry(db), db.displayUrl(), environmentId);
}

CheckpointReport PgReportBuilder::build(PgConnection& db, const QString& environmentId,
                                        rpc::EthClient* node)
{
    store::pg::requireCurrentPgContract(db);
    CheckpointReport r;
    r.generatedAt = store::nowUtc();
    r.generator = QStringLiteral("forkscope " FORKSCOPE_VERSION);
    r.databasePath = db.displayUrl();

    store::pg::PgContractReader reader(db);
    const auto snapshot = reader.snapshot();
    r.environment = findEnvironment(db, environmentId);
    readCheckpoints(db, r);
    readReorgs(db, r);
    ReportSections sections(reader, r);
    sections.readCounts();
    readOutboxCounts(db, r);
    r.completeness.openAlerts =
        coord::openAlerts(db, r.environment.id, r.environment.chainId, r.environment.rpcUrl);
    if (!r.completeness.openAlerts.isEmpty())
        r.completeness.state = QStringLiteral("data incomplete");
    sections.readSeries();
    if (node) {
        sections.checkNode(*node);
        sections.checkInvariants(*node,
                                 indexer::PgEnvironmentRegistry(db).contracts(r.environment.id));
    } else {
        r.invariants.summary = QStringLiteral("not checked: no node given");
    }
    return r;
}

} // namespace forkscope::report
