#include "ReportBuilder.h"
#include "EnvironmentChoice.h"
#include "ReportError.h"
#include "ReportSections.h"
#include "forktree/ForkTreeReader.h"
#include "indexer/CompletenessAlerts.h"
#include "indexer/EnvironmentRegistry.h"
#include "store/ContractReader.h"
#include "store/Database.h"

#include "forkscope_version.h"

namespace forkscope::report {

namespace {

std::optional<qint64> optionalInt(const QVariant& v)
{
    return v.isNull() ? std::nullopt : std::optional<qint64>(v.toLongLong());
}

// The environments of the reader, for EnvironmentChoice.h.
struct Environments
{
    store::ContractReader& reader;
    QList<indexer::Environment> list() { return indexer::readEnvironments(reader); }
    std::optional<indexer::Environment> find(const QString& id)
    {
        for (const indexer::Environment& e : list())
            if (e.id == id)
                return e;
        return std::nullopt;
    }
};

// The rest of build(), with the environment row resolved and the scope bound.
class Builder
{
public:
    Builder(store::ContractReader& reader, CheckpointReport& r)
        : m_reader(reader), m_r(r), m_scope{r.environment.id, qint64(r.environment.chainId)}
    {
    }

    void readCheckpoints()
    {
        for (auto q = m_reader.query(QStringLiteral("SELECT source_id, block_number, block_hash, "
                                                    "policy_version, generation, start_block, "
                                                    "updated_at, verified_at FROM "
                                                    "indexer_checkpoints WHERE environment_id = ? "
                                                    "AND chain_id = ? ORDER BY source_id"),
                                     m_scope);
             q->next();) {
            CheckpointEntry c;
            c.sourceId = q->value(0).toString();
            c.blockNumber = q->value(1).toLongLong();
            c.blockHash = q->value(2).toString();
            c.policyVersion = q->value(3).toString();
            c.generation = q->value(4).toInt();
            c.startBlock = optionalInt(q->value(5));
            c.updatedAt = q->value(6).toString();
            c.verifiedAt = q->value(7).toString();
            m_r.checkpoints.append(c);
        }
    }

    void readReorgs()
    {
        for (auto q = m_reader.query(
                 QStringLiteral("SELECT id, coalesce(source_id, ''), detected_at, "
                                "old_block_number, coalesce(old_block_hash, ''), "
                                "fork_block_number, coalesce(fork_block_hash, ''), depth, "
                                "reason, rows_removed, coalesce(delivered_outbox_rows, 0) FROM "
                                "reorg_events WHERE environment_id = ? AND chain_id = ? ORDER BY "
                                "id"),
                 m_scope);
             q->next();) {
            ReorgEntry e;
            e.id = q->value(0).toLongLong();
            e.sourceId = q->value(1).toString();
            e.detectedAt = q->value(2).toString();
            e.oldBlockNumber = q->value(3).toLongLong();
            e.oldBlockHash = q->value(4).toString();
            e.forkBlockNumber = q->value(5).toLongLong();
            e.forkBlockHash = q->value(6).toString();
            e.depth = q->value(7).toLongLong();
            e.reason = q->value(8).toString();
            e.rowsRemoved = q->value(9).toLongLong();
            e.deliveredOutboxRows = q->value(10).toLongLong();
            m_r.reorgs.append(e);
        }
        // Diff rows of a reorg row that is gone are not this report's business.
        QHash<qint64, QHash<QString, qint64>> counts;
        for (auto q = m_reader.query(QStringLiteral("SELECT reorg_id, kind, count(*) FROM "
                                                    "reorg_diff_items WHERE environment_id = ? "
                                                    "AND chain_id = ? GROUP BY reorg_id, kind"),
                                     m_scope);
             q->next();)
            counts[q->value(0).toLongLong()].insert(q->value(1).toString(),
                                                    q->value(2).toLongLong());
        for (ReorgEntry& e : m_r.reorgs) {
            const QHash<QString, qint64> byKind = counts.value(e.id);
            for (auto it = byKind.cbegin(); it != byKind.cend(); ++it) {
                e.diffCounts.insert(it.key(), it.value());
                e.diffItemsTotal += it.value();
            }
            if (e.diffItemsTotal == 0)
                continue;
            readDiffItems(e);
            e.diffTruncated = e.diffItemsTotal > e.diffItems.size();
        }
    }

    // The contracts the checkpoints say they cover.
    QStringList declaredContracts()
    {
        QStringList names;
        for (auto q = m_reader.query(QStringLiteral("SELECT contracts FROM indexer_checkpoints "
                                                    "WHERE environment_id = ? AND chain_id = ? "
                                                    "AND contracts IS NOT NULL"),
                                     m_scope);
             q->next();)
            names << q->value(0).toString().split(QLatin1Char(' '), Qt::SkipEmptyParts);
        // A factory's rule names no address of its own (its address is listed beside it);
        // its children are read from factory_children.
        names.removeIf([](const QString& n) { return n.startsWith(QLatin1String("factory:")); });
        return names;
    }

private:
    // The first of a rollback's rows, in the order it recorded them.
    void readDiffItems(ReorgEntry& e)
    {
        for (auto q = m_reader.query(
                 QStringLiteral("SELECT kind, block_number, log_index, tx_hash, contract, holder, "
                                "from_addr, to_addr, value, before_value, after_value, event_key "
                                "FROM (%1) x WHERE reorg_id = ? AND environment_id = ? ORDER BY "
                                "phase, id LIMIT ?")
                     .arg(m_reader.reorgDiffRecordedSql()),
                 {e.id, m_r.environment.id, qint64(CheckpointReport::kMaxDiffItemsPerReorg)});
             q->next();) {
            ReorgDiffItem d;
            d.kind = q->value(0).toString();
            d.blockNumber = optionalInt(q->value(1));
            d.logIndex = optionalInt(q->value(2));
            d.txHash = q->value(3).toString();
            d.contract = q->value(4).toString();
            d.holder = q->value(5).toString();
            d.fromAddr = q->value(6).toString();
            d.toAddr = q->value(7).toString();
            d.value = q->value(8).toString();
            d.beforeValue = q->value(9).toString();
            d.afterValue = q->value(10).toString();
            d.eventKey = q->value(11).toString();
            e.diffItems.append(d);
        }
    }

    store::ContractReader& m_reader;
    CheckpointReport& m_r;
    QVariantList m_scope;
};

} // namespace

QString ReportBuilder::liveEnvironment(store::ContractReader& reader)
{
    return liveEnvironmentIn(Environments{reader}, reader.describe(),
                             QStringLiteral("forkscope index --db %1").arg(reader.describe()));
}

EnvironmentInfo ReportBuilder::findEnvironment(store::ContractReader& reader,
                                               const QString& environmentId)
{
    return environmentIn(Environments{reader}, reader.describe(), environmentId);
}

CheckpointReport ReportBuilder::build(store::ContractReader& reader, const QString& environmentId,
                                      rpc::EthClient* node)
{
    CheckpointReport r;
    r.generatedAt = store::nowUtc();
    r.generator = QStringLiteral("forkscope " FORKSCOPE_VERSION);
    r.databasePath = reader.describe();

    const auto snapshot = reader.snapshot();
    r.environment = findEnvironment(reader, environmentId);
    const QVariantList scope{r.environment.id, qint64(r.environment.chainId)};
    // Contracts archived out of it: each archive is an environment of their rows, named
    // after this one (indexer/ArchivedSource.h), whose checkpoint names the contract.
    const QString archivePrefix = r.environment.id + QStringLiteral("~archive~");
    for (auto q = reader.query(
             QStringLiteral("SELECT c.contracts, e.archived_at, c.environment_id FROM "
                            "indexer_checkpoints c JOIN environments e ON e.environment_id = "
                            "c.environment_id WHERE substr(c.environment_id, 1, ?) = ? AND "
                            "c.chain_id = ? ORDER BY e.archived_at"),
             {qint64(archivePrefix.size()), archivePrefix, qint64(r.environment.chainId)});
         q->next();)
        r.environment.archivedContracts.append(
            {q->value(0).toString(), q->value(1).toString(), q->value(2).toString()});

    Builder b(reader, r);
    b.readCheckpoints();
    b.readReorgs();
    // The tree of the whole indexed range, for the PDF's picture.
    r.forkTree = forktree::laidOut(forktree::readWholeForkTree(reader, r.environment.id));
    ReportSections sections(reader, r);
    sections.readCounts();
    const store::OutboxTally outbox = reader.outboxTally(r.environment.id, r.environment.chainId);
    r.counts.outboxPending = outbox.pending;
    r.counts.outboxDelivered = outbox.delivered;
    r.counts.outboxFailed = outbox.failed;
    sections.readSeries();
    r.completeness.openAlerts =
        indexer::openAlerts(reader, r.environment.id, r.environment.chainId);
    r.completeness.resolvedAlerts =
        reader.scalar(QStringLiteral("SELECT count(*) FROM completeness_alerts WHERE "
                                     "environment_id = ? AND chain_id = ? AND resolved_at IS NOT "
                                     "NULL"),
                      scope);
    if (!r.completeness.openAlerts.isEmpty())
        r.completeness.state = QStringLiteral("data incomplete");
    if (node) {
        sections.checkNode(*node);
        sections.checkInvariants(*node, b.declaredContracts());
    } else {
        r.invariants.summary = QStringLiteral("not checked: no node given");
    }
    return r;
}

} // namespace forkscope::report
