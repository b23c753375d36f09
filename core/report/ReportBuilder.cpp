#include "ReportBuilder.h"
#include "Downsample.h"
#include "ReportError.h"
#include "chain/Address.h"
#include "chain/ChainParseError.h"
#include "chain/Hex.h"
#include "indexer/CompletenessAlerts.h"
#include "indexer/EnvironmentRegistry.h"
#include "indexer/InvariantChecker.h"
#include "outbox/OutboxDispatcher.h"
#include "rpc/EthClient.h"
#include "store/Database.h"
#include "store/ReorgEventStore.h"

#include <QDateTime>
#include <QSqlQuery>

#include "forkscope_version.h"

namespace forkscope::report {

namespace {

constexpr int kMaxBackfillErrors = 5;

std::optional<double> unixSeconds(const QString& iso)
{
    QDateTime t = QDateTime::fromString(iso, Qt::ISODateWithMs);
    if (!t.isValid())
        t = QDateTime::fromString(iso, Qt::ISODate);
    if (!t.isValid())
        return std::nullopt;
    return double(t.toMSecsSinceEpoch()) / 1000.0;
}

std::optional<qint64> optionalInt(const QVariant& v)
{
    return v.isNull() ? std::nullopt : std::optional<qint64>(v.toLongLong());
}

QStringList ids(const QList<indexer::Environment>& envs)
{
    QStringList out;
    for (const auto& e : envs)
        out << e.id;
    return out;
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

    void readCounts()
    {
        Counts& c = m_r.counts;
        c.blocks = scalar("SELECT count(*) FROM blocks WHERE environment_id = ? AND chain_id = ?");
        c.logs = scalar("SELECT count(*) FROM logs WHERE environment_id = ? AND chain_id = ?");
        c.transfers = scalar(
            "SELECT count(*) FROM transfer_events WHERE environment_id = ? AND chain_id = ?");
        c.contracts = scalar("SELECT count(DISTINCT contract) FROM transfer_events WHERE "
                             "environment_id = ? AND chain_id = ?");
        c.balances =
            scalar("SELECT count(*) FROM token_balances WHERE environment_id = ? AND chain_id = ?");
        c.holders = scalar("SELECT count(DISTINCT holder) FROM token_balances WHERE "
                           "environment_id = ? AND chain_id = ? AND balance <> '0'");
        c.reorgs = m_r.reorgs.size();
        const outbox::OutboxCounts outboxRows =
            outbox::countRows(m_db, m_r.environment.id, m_r.environment.chainId);
        c.outboxPending = outboxRows.pending;
        c.outboxDelivered = outboxRows.delivered;
        c.outboxFailed = outboxRows.failed;
        QSqlQuery b = m_db.run(QStringLiteral("SELECT status, count(*), sum(to_block - from_block "
                                              "+ 1), sum(attempts) FROM backfill_ranges WHERE "
                                              "environment_id = ? AND chain_id = ? GROUP BY "
                                              "status ORDER BY status"),
                               m_scope);
        while (b.next())
            c.backfill.append({b.value(0).toString(),
                               b.value(1).toLongLong(),
                               b.value(2).toLongLong(),
                               b.value(3).toLongLong(),
                               {}});
        QSqlQuery e = m_db.run(QStringLiteral("SELECT status, last_error FROM backfill_ranges "
                                              "WHERE environment_id = ? AND chain_id = ? AND "
                                              "last_error IS NOT NULL AND last_error <> '' ORDER "
                                              "BY updated_at DESC, from_block"),
                               m_scope);
        while (e.next())
            for (BackfillStatusCount& s : c.backfill)
                if (s.status == e.value(0).toString() && s.lastErrors.size() < kMaxBackfillErrors &&
                    !s.lastErrors.contains(e.value(1).toString()))
                    s.lastErrors << e.value(1).toString();
    }

    void readSeries()
    {
        Series& s = m_r.series;
        QList<SeriesPoint> blocks;
        QSqlQuery b = m_db.run(QStringLiteral("SELECT block_timestamp, block_number FROM blocks "
                                              "WHERE environment_id = ? AND chain_id = ? ORDER BY "
                                              "block_number"),
                               m_scope);
        while (b.next())
            blocks.append({b.value(0).toDouble(), b.value(1).toDouble()});
        s.blocksTotal = blocks.size();
        s.blocks = downsampleEvenly(blocks, CheckpointReport::kMaxSeriesPoints);

        for (const ReorgEntry& e : m_r.reorgs)
            if (const auto t = unixSeconds(e.detectedAt))
                s.reorgs.append({*t, e.depth, e.reason});

        QList<SeriesPoint> delivered;
        QSqlQuery d = m_db.run(QStringLiteral("SELECT delivered_at FROM outbox WHERE "
                                              "environment_id = ? AND chain_id = ? AND "
                                              "delivered_at IS NOT NULL ORDER BY delivered_at"),
                               m_scope);
        while (d.next())
            if (const auto t = unixSeconds(d.value(0).toString()))
                delivered.append({*t, double(delivered.size() + 1)});
        s.outboxDeliveredTotal = delivered.size();
        s.outboxDelivered = downsampleEvenly(delivered, CheckpointReport::kMaxSeriesPoints);

        QList<SeriesPoint> pending;
        QSqlQuery p = m_db.run(QStringLiteral("SELECT block_number, count(*) FROM outbox WHERE "
                                              "environment_id = ? AND chain_id = ? AND "
                                              "delivered_at IS NULL AND failed_at IS NULL GROUP BY "
                                              "block_number ORDER BY block_number"),
                               m_scope);
        while (p.next())
            pending.append({p.value(0).toDouble(), p.value(1).toDouble()});
        s.outboxPendingByBlock = downsampleBySum(pending, CheckpointReport::kMaxSeriesPoints);
    }

    void checkNode(rpc::EthClient& eth)
    {
        NodeSummary& n = m_r.node;
        n.url = eth.rpc().endpoint().toString(QUrl::RemoveUserInfo);
        n.checked = true;
        n.checkedAt = store::nowUtc();
        try {
            n.chainId = eth.chainId();
            n.head = eth.blockNumber();
            const auto genesis = eth.blockByNumber(0);
            if (!genesis)
                throw ReportError(QStringLiteral("the node answered null for block 0"));
            n.genesisHash = genesis->hash.toHex();
            n.reachable = true;
            n.sameChain = *n.chainId == m_r.environment.chainId &&
                          n.genesisHash == m_r.environment.genesisHash;
        } catch (const rpc::RpcException& e) {
            n.error = e.error().toString();
        } catch (const ReportError& e) {
            n.error = e.message();
        }

        for (CheckpointEntry& c : m_r.checkpoints) {
            Verification& v = c.verification;
            v.method = QStringLiteral("eth_getBlockByNumber(%1) on %2")
                           .arg(chain::hex::encodeQuantity(std::uint64_t(c.blockNumber)), n.url);
            v.checkedAt = store::nowUtc();
            if (!n.reachable) {
                // One failed round trip is enough to know; do not wait a timeout per row.
                v.status = VerificationStatus::Unreachable;
                v.error = n.error;
                v.method += QStringLiteral(" (not sent: the node did not answer the chain checks)");
                continue;
            }
            try {
                const auto block = eth.blockByNumber(std::uint64_t(c.blockNumber));
                v.checkedAt = store::nowUtc();
                if (!block) {
                    v.status = VerificationStatus::Missing;
                } else {
                    v.nodeHash = block->hash.toHex();
                    v.status = v.nodeHash == c.blockHash ? VerificationStatus::Canonical
                                                         : VerificationStatus::Reorged;
                }
            } catch (const rpc::RpcException& e) {
                v.status = VerificationStatus::Unreachable;
                v.error = e.error().toString();
            }
        }
    }

    void checkInvariants(rpc::EthClient& eth)
    {
        InvariantVerdict& v = m_r.invariants;
        const NodeSummary& n = m_r.node;
        if (!n.reachable) {
            v.summary = QStringLiteral("not checked: node unreachable (%1)").arg(n.error);
            return;
        }
        if (!n.sameChain) {
            v.summary = QStringLiteral("not checked: the node at %1 serves chain %2 with genesis "
                                       "%3, not this environment's chain %4 with genesis %5 (the "
                                       "lab was reset, or the URL points elsewhere)")
                            .arg(n.url)
                            .arg(n.chainId.value_or(0))
                            .arg(n.genesisHash)
                            .arg(m_r.environment.chainId)
                            .arg(m_r.environment.genesisHash);
            return;
        }
        try {
            // The contracts the checkpoints say they cover (schema v3; a contract with no
            // stored row is exactly where a missed log would hide), plus every contract the
            // stored rows make claims about.
            QStringList names;
            QSqlQuery cq = m_db.run(QStringLiteral("SELECT contracts FROM indexer_checkpoints "
                                                   "WHERE environment_id = ? AND chain_id = ? AND "
                                                   "contracts IS NOT NULL"),
                                    m_scope);
            while (cq.next())
                names << cq.value(0).toString().split(QLatin1Char(' '), Qt::SkipEmptyParts);
            QSqlQuery q = m_db.run(
                QStringLiteral("SELECT address FROM logs WHERE environment_id = ? AND chain_id = ? "
                               "UNION SELECT contract FROM transfer_events WHERE environment_id = "
                               "? AND chain_id = ? UNION SELECT contract FROM token_balances WHERE "
                               "environment_id = ? AND chain_id = ?"),
                m_scope + m_scope + m_scope);
            while (q.next())
                names << q.value(0).toString();
            names.sort();
            names.removeDuplicates();
            QList<chain::Address> contracts;
            for (const QString& name : names) {
                contracts << chain::Address::fromHex(name, QStringLiteral("stored contract"));
                v.contractsChecked << name;
            }
            QStringList sources;
            for (const CheckpointEntry& c : m_r.checkpoints)
                sources << c.sourceId;
            if (sources.isEmpty())
                sources << QStringLiteral("default");
            indexer::InvariantChecker checker(m_db, eth);
            indexer::InvariantReport last;
            for (const QString& source : sources) {
                last = checker.check(m_r.environment.id, source, contracts);
                for (const QString& violation : last.violations)
                    v.violations << (sources.size() > 1 ? source + QStringLiteral(": ") + violation
                                                        : violation);
            }
            v.state = v.violations.isEmpty() ? InvariantState::Hold : InvariantState::Violated;
            v.summary = v.violations.isEmpty()
                            ? QStringLiteral("%1, checked against %2 at %3")
                                  .arg(last.summary(), n.url, store::nowUtc())
                            : QStringLiteral("%1 invariant violation(s) against %2: %3")
                                  .arg(v.violations.size())
                                  .arg(n.url)
                                  .arg(v.violations.mid(0, 3).join(QStringLiteral("; ")));
        } catch (const rpc::RpcException& e) {
            v = InvariantVerdict{};
            v.summary = QStringLiteral("not checked: the node failed during the check (%1)")
                            .arg(QString::fromUtf8(e.what()));
        } catch (const chain::ChainParseError& e) {
            v = InvariantVerdict{};
            v.summary =
                QStringLiteral("not checked: bad data in the database (%1)").arg(e.message());
        }
    }

private:
    qint64 scalar(const char* sql)
    {
        QSqlQuery q = m_db.run(QString::fromLatin1(sql), m_scope);
        return q.next() ? q.value(0).toLongLong() : 0;
    }

    store::Database& m_db;
    CheckpointReport& m_r;
    QVariantList m_scope;
};

} // namespace

QString ReportBuilder::liveEnvironment(store::Database& db)
{
    const auto envs = indexer::EnvironmentRegistry(db).list();
    for (const auto& e : envs)
        if (e.archivedAt.isEmpty())
            return e.id;
    if (envs.isEmpty())
        throw UnknownEnvironmentError(
            QStringLiteral("database %1 has no environments yet; index one first with "
                           "`forkscope index`")
                .arg(db.path()),
            {});
    throw UnknownEnvironmentError(QStringLiteral("database %1 has no live environment; pass "
                                                 "--env with one of: %2")
                                      .arg(db.path(), indexer::EnvironmentRegistry::describe(envs)),
                                  ids(envs));
}

EnvironmentInfo ReportBuilder::findEnvironment(store::Database& db, const QString& environmentId)
{
    indexer::EnvironmentRegistry registry(db);
    const auto env = registry.find(environmentId);
    if (!env) {
        const auto envs = registry.list();
        throw UnknownEnvironmentError(
            envs.isEmpty()
                ? QStringLiteral("environment %1 is not in %2, which has no environments yet")
                      .arg(environmentId, db.path())
                : QStringLiteral("environment %1 is not in %2; known environments: %3")
                      .arg(environmentId, db.path(), indexer::EnvironmentRegistry::describe(envs)),
            ids(envs));
    }
    return {env->id,     env->chainId,   env->genesisHash.toHex(),
            env->rpcUrl, env->createdAt, env->archivedAt};
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
    b.readCounts();
    b.readSeries();
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
        b.checkNode(*node);
        b.checkInvariants(*node);
    } else {
        r.invariants.summary = QStringLiteral("not checked: no node given");
    }
    return r;
}

} // namespace forkscope::report
