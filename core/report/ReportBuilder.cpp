#include "ReportBuilder.h"
#include "EnvironmentChoice.h"
#include "ReportError.h"
#include "ReportSections.h"
#include "chain/Address.h"
#include "chain/ChainParseError.h"
#include "chain/Hex.h"
#include "indexer/CompletenessAlerts.h"
#include "indexer/EnvironmentRegistry.h"
#include "outbox/OutboxDispatcher.h"
#include "rpc/EthClient.h"
#include "store/ContractReader.h"
#include "store/Database.h"
#include "store/ReorgEventStore.h"

#include <QDateTime>
#include <QSqlQuery>

#include "forkscope_version.h"

namespace forkscope::report {

namespace {

std::optional<qint64> optionalInt(const QVariant& v)
{
    return v.isNull() ? std::nullopt : std::optional<qint64>(v.toLongLong());
}

// The rest of build(), with the environment row resolved and the scope bound.
class Builder
{
public:
    Builder(store::Database& db, CheckpointReport& r)
        : m_db(db), m_r(r), m_scope{r.environment.id, qint64(r.environment.chainId)}
    {
    }

    void readCheckpoints()
    {
        QSqlQuery q = m_db.run(QStringLiteral("SELECT source_id, block_number, block_hash, "
                                              "policy_version, generation, start_block, "
                                              "updated_at, verified_at FROM indexer_checkpoints "
                                              "WHERE environment_id = ? AND chain_id = ? ORDER BY "
                                              "source_id"),
                               m_scope);
        while (q.next()) {
            CheckpointEntry c;
            c.sourceId = q.value(0).toString();
            c.blockNumber = q.value(1).toLongLong();
            c.blockHash = q.value(2).toString();
            c.policyVersion = q.value(3).toString();
            c.generation = q.value(4).toInt();
            c.startBlock = optionalInt(q.value(5));
            c.updatedAt = q.value(6).toString();
            c.verifiedAt = q.value(7).toString();
            m_r.checkpoints.append(c);
        }
    }

    void readReorgs()
    {
        store::ReorgEventStore reorgs(m_db);
        const QString env = m_r.environment.id;
        for (const store::ReorgEventRow& row : reorgs.list(env, m_r.environment.chainId)) {
            ReorgEntry e;
            e.id = row.id;
            e.sourceId = row.sourceId;
            e.detectedAt = row.detectedAt;
            e.oldBlockNumber = row.oldBlockNumber;
            e.oldBlockHash = row.oldBlockHash;
            e.forkBlockNumber = row.forkBlockNumber;
            e.forkBlockHash = row.forkBlockHash;
            e.depth = row.depth;
            e.reason = row.reason;
            e.rowsRemoved = row.rowsRemoved;
            e.deliveredOutboxRows = row.deliveredOutboxRows;
            m_r.reorgs.append(e);
        }
        // Diff rows of a reorg row that is gone are not this report's business.
        const auto counts = reorgs.diffCounts(env, m_r.environment.chainId);
        for (ReorgEntry& e : m_r.reorgs) {
            for (auto it = counts.value(e.id).cbegin(); it != counts.value(e.id).cend(); ++it) {
                e.diffCounts.insert(it.key(), it.value());
                e.diffItemsTotal += it.value();
            }
            if (e.diffItemsTotal == 0)
                continue;
            for (const store::ReorgDiffRow& row :
                 reorgs.diffItems(env, e.id, int(CheckpointReport::kMaxDiffItemsPerReorg), true)) {
                ReorgDiffItem d;
                d.kind = row.kind;
                d.blockNumber = row.blockNumber;
                d.logIndex = row.logIndex;
                d.txHash = row.txHash;
                d.contract = row.contract;
                d.holder = row.holder;
                d.fromAddr = row.fromAddr;
                d.toAddr = row.toAddr;
                d.value = row.value;
                d.beforeValue = row.beforeValue;
                d.afterValue = row.afterValue;
                d.eventKey = row.eventKey;
                e.diffItems.append(d);
            }
            e.diffTruncated = e.diffItemsTotal > e.diffItems.size();
        }
    }

    // The contracts the checkpoints say they cover (schema v3).
    QStringList declaredContracts()
    {
        QStringList names;
        QSqlQuery cq = m_db.run(QStringLiteral("SELECT contracts FROM indexer_checkpoints WHERE "
                                               "environment_id = ? AND chain_id = ? AND "
                                               "contracts IS NOT NULL"),
                                m_scope);
        while (cq.next())
            names << cq.value(0).toString().split(QLatin1Char(' '), Qt::SkipEmptyParts);
        return names;
    }

private:
    store::Database& m_db;
    CheckpointReport& m_r;
    QVariantList m_scope;
};

} // namespace

QString ReportBuilder::liveEnvironment(store::Database& db)
{
    return liveEnvironmentIn(indexer::EnvironmentRegistry(db), db.path(),
                             QStringLiteral("forkscope index"));
}

EnvironmentInfo ReportBuilder::findEnvironment(store::Database& db, const QString& environmentId)
{
    return environmentIn(indexer::EnvironmentRegistry(db), db.path(), environmentId);
}

CheckpointReport ReportBuilder::build(store::Database& db, const QString& environmentId,
                                      rpc::EthClient* node)
{
    CheckpointReport r;
    r.generatedAt = store::nowUtc();
    r.generator = QStringLiteral("forkscope " FORKSCOPE_VERSION);
    r.databasePath = db.path();

    const store::ReadSnapshot snapshot(db);
    r.environment = findEnvironment(db, environmentId);

    Builder b(db, r);
    b.readCheckpoints();
    b.readReorgs();
    store::SqliteContractReader reader(db);
    ReportSections sections(reader, r);
    sections.readCounts();
    const outbox::OutboxCounts outboxRows =
        outbox::countRows(db, r.environment.id, r.environment.chainId);
    r.counts.outboxPending = outboxRows.pending;
    r.counts.outboxDelivered = outboxRows.delivered;
    r.counts.outboxFailed = outboxRows.failed;
    sections.readSeries();
    {
        indexer::CompletenessAlerts alerts(db, r.environment.id, r.environment.chainId);
        r.completeness.openAlerts = alerts.open();
        QSqlQuery q = db.run(QStringLiteral("SELECT count(*) FROM completeness_alerts WHERE "
                                            "environment_id = ? AND resolved_at IS NOT NULL"),
                             {r.environment.id});
        r.completeness.resolvedAlerts = q.next() ? q.value(0).toLongLong() : 0;
        if (!r.completeness.openAlerts.isEmpty())
            r.completeness.state = QStringLiteral("data incomplete");
    }
    if (node) {
        sections.checkNode(*node);
        sections.checkInvariants(*node, b.declaredContracts());
    } else {
        r.invariants.summary = QStringLiteral("not checked: no node given");
    }
    return r;
}

} // namespace forkscope::report
