#include "SqliteIndexStore.h"
#include "ContractReader.h"
#include "SingleWriter.h"
#include "SqliteForkTree.h"
#include "SqliteStatement.h"
#include "audit/BalanceRebuild.h"
#include "chain/ChainParseError.h"
#include "chain/U256.h"
#include "indexer/BackfillLedger.h"
#include "indexer/BalanceBook.h"
#include "indexer/BatchCommitter.h"
#include "indexer/CheckpointStore.h"
#include "indexer/CompletenessAlerts.h"
#include "indexer/IndexerErrors.h"
#include "indexer/ReorgReason.h"
#include "indexer/ReorgRollback.h"
#include "indexer/SourceBook.h"
#include "outbox/OutboxDispatcher.h"

#include <QSqlQuery>

namespace forkscope::store {

namespace {

// Whether a Transfer from block `from` on has a value that is not a decimal amount.
bool anyValueUnparsable(Database& db, const QString& env, std::uint64_t chainId, std::uint64_t from)
{
    QSqlQuery q = db.run(QStringLiteral("SELECT value FROM transfer_events WHERE environment_id "
                                        "= ? AND chain_id = ? AND block_number >= ?"),
                         {env, qint64(chainId), qint64(from)});
    while (q.next()) {
        try {
            chain::u256::fromDecimal(q.value(0).toString(), QStringLiteral("value"));
        } catch (const chain::ChainParseError&) {
            return true;
        }
    }
    return false;
}

} // namespace

std::unique_ptr<SqliteIndexStore> SqliteIndexStore::open(const QString& path,
                                                         const Database::Options& options)
{
    return std::unique_ptr<SqliteIndexStore>(new SqliteIndexStore(Database::open(path, options)));
}

SqliteIndexStore::SqliteIndexStore(std::unique_ptr<Database> owned)
    : m_owned(std::move(owned)), m_db(*m_owned)
{
}

SqliteIndexStore::SqliteIndexStore(Database& db) : m_db(db) {}

// The parts refer to the connection and to each other: they go before it, users first.
SqliteIndexStore::~SqliteIndexStore()
{
    m_reader.reset();
    m_coordination.reset();
    m_rollback.reset();
    m_committer.reset();
    m_balances.reset();
    m_checkpoints.reset();
    m_ledger.reset();
}

void SqliteIndexStore::requireOpen() const
{
    if (!m_checkpoints)
        throw indexer::IndexerError(
            QStringLiteral("the store of %1 has no environment open").arg(m_db.path()));
}

indexer::Environment SqliteIndexStore::open(const indexer::EnvironmentClaim& claim)
{
    const indexer::Environment env = indexer::EnvironmentRegistry(m_db).openForIndexing(
        claim.environmentId, claim.chainId, claim.genesis, claim.rpcUrl);
    if (m_checkpoints && m_env == claim.environmentId && m_chainId == claim.chainId &&
        m_source == claim.sourceId) {
        m_checkpoints->setContracts(indexer::contractSetText(claim.contracts, claim.factoryRules));
        return env; // open already: the same parts go on
    }
    m_source = claim.sourceId;
    m_coordination.reset();
    m_rollback.reset();
    m_committer.reset();
    m_env = claim.environmentId;
    m_chainId = claim.chainId;
    m_checkpoints =
        std::make_unique<indexer::CheckpointStore>(m_db, m_env, m_chainId, claim.sourceId);
    m_checkpoints->setContracts(indexer::contractSetText(claim.contracts, claim.factoryRules));
    m_balances = std::make_unique<indexer::BalanceBook>(m_db, m_env, m_chainId);
    m_committer = std::make_unique<indexer::BatchCommitter>(m_db, m_env, m_chainId, *m_checkpoints,
                                                            *m_balances);
    m_rollback = std::make_unique<indexer::ReorgRollback>(m_db, m_env, m_chainId, claim.sourceId,
                                                          *m_checkpoints, *m_balances);
    if (m_planAsideFrom)
        m_rollback->setPlanAsideFrom(*m_planAsideFrom);
    m_rollback->setOrphanRetention(m_orphanRetention);
    m_ledger = std::make_unique<indexer::BackfillLedger>(m_db, m_env, m_chainId);
    m_coordination = std::make_unique<SingleWriter>(*m_ledger);
    m_ledgerOpen = !m_ledger->ranges().isEmpty();
    m_openFetchAlerts = false;
    for (const auto& a : openAlerts())
        m_openFetchAlerts = m_openFetchAlerts || a.kind == QLatin1String("fetch");
    return env;
}

void SqliteIndexStore::setPlanAsideFrom(qint64 transfers)
{
    m_planAsideFrom = transfers;
    if (m_rollback)
        m_rollback->setPlanAsideFrom(transfers);
}

void SqliteIndexStore::setOrphanRetention(qint64 rollbacks)
{
    m_orphanRetention = rollbacks;
    if (m_rollback)
        m_rollback->setOrphanRetention(rollbacks);
}

int SqliteIndexStore::recordSightings(const QList<forktree::NodeSighting>& heads)
{
    requireOpen();
    return recordNodeSightings(m_db, m_env, qint64(m_chainId), heads, m_orphanRetention);
}

void SqliteIndexStore::requireLive()
{
    requireOpen();
    m_checkpoints->ensureLive();
}

QStringList SqliteIndexStore::otherSources()
{
    requireOpen();
    return m_checkpoints->otherSources();
}

std::optional<indexer::Checkpoint> SqliteIndexStore::checkpoint()
{
    requireOpen();
    return m_checkpoints->read();
}

void SqliteIndexStore::markVerified(const indexer::Checkpoint& cp)
{
    requireOpen();
    m_checkpoints->markVerified(cp);
}

bool SqliteIndexStore::adoptContracts(const QString& contractSet)
{
    requireOpen();
    return m_checkpoints->adoptContracts(contractSet);
}

indexer::CommitStats SqliteIndexStore::commit(const indexer::VerifiedBatch& batch,
                                              const indexer::CommitPlacement& placement)
{
    requireOpen();
    const std::uint64_t first = batch.blocks.first().number;
    const std::uint64_t last = batch.blocks.last().number;
    // One writer per file: a batch continues the checkpoint, or it is not this file's.
    const std::uint64_t expectedFrom =
        placement.expected ? placement.expected->number + 1 : placement.startBlock;
    if (first != expectedFrom)
        throw indexer::CheckpointMovedError(
            QStringLiteral("blocks %1-%2 do not continue the checkpoint of %3 (block %4 is next)")
                .arg(first)
                .arg(last)
                .arg(m_env)
                .arg(expectedFrom));
    indexer::CommitStats stats = m_committer->commit(
        placement.expected, batch, placement.startBlock, placement.policyVersion,
        placement.generation, [&] {
            if (placement.range && placement.range->to == last) {
                m_ledger->markDone(placement.range->from, last, placement.range->attempts);
                m_ledgerOpen = true;
            }
            if (m_ledgerOpen)
                m_ledger->closeCovered(last);
            // A range indexing stopped at, now committed with every check passed.
            if (m_openFetchAlerts) {
                indexer::CompletenessAlerts alerts(m_db, m_env, m_chainId);
                alerts.resolveCommitted(last);
                m_openFetchAlerts = false;
                for (const auto& a : alerts.open())
                    m_openFetchAlerts = m_openFetchAlerts || a.kind == QLatin1String("fetch");
            }
        });
    stats.checkpoint = last;
    return stats;
}

indexer::RollbackResult SqliteIndexStore::rollBack(const indexer::Checkpoint& cp,
                                                   const indexer::ForkPoint& fork,
                                                   const QString& reason)
{
    requireOpen();
    return m_rollback->rollback(cp, fork, reason);
}

indexer::RepairOutcome SqliteIndexStore::repair(const indexer::Checkpoint& cp,
                                                const std::optional<indexer::ForkPoint>& fork,
                                                std::uint64_t from)
{
    requireOpen();
    WriteTransaction tx(m_db);
    indexer::RepairOutcome out;
    indexer::CompletenessAlerts alerts(m_db, m_env, m_chainId);
    if (!fork) {
        // Nothing stored to undo (and a depth-0 "reorg" is never recorded): the alerts of the
        // range are resolved, and indexing fetches it next.
        out.rollback.oldCheckpoint = cp.number;
        out.rollback.forkBlock = qint64(cp.number);
        out.alertsResolved = alerts.resolveFrom(
            from, QStringLiteral("fetched again from block %1 (nothing stored there to roll back)")
                      .arg(from));
        tx.commit();
        m_openFetchAlerts = true;
        return out;
    }
    // A value that is no number (a corrupt page, an edit) cannot be taken back from its
    // holders' balances: then the rebuild below computes every balance from what remains.
    m_rollback->setRevertBalances(!anyValueUnparsable(m_db, m_env, m_chainId, from));
    out.rollback = m_rollback->rollback(cp, *fork, indexer::reorg_reason::kRepair);
    m_rollback->setRevertBalances(true);
    // A rollback takes back what the removed Transfers added, exact only while each balance
    // was the sum of its Transfers: a repair follows lost or edited rows, so the balances are
    // computed again from what remains.
    const QList<indexer::BalanceChange> fixes = audit::rebuildBalances(m_db, m_env, m_chainId);
    indexer::ReorgRollback::recordBalanceChanges(m_db, out.rollback.reorgId, m_env, m_chainId,
                                                 fixes);
    out.balancesRebuilt = fixes.size();
    out.alertsResolved =
        out.rollback.alertsSettled +
        alerts.resolveFrom(
            from,
            QStringLiteral("repaired from block %1 (reorg id %2): rolled back and fetched again")
                .arg(from)
                .arg(out.rollback.reorgId));
    tx.commit();
    m_openFetchAlerts = true;
    return out;
}

QList<indexer::AddedSource> SqliteIndexStore::addedSources()
{
    requireOpen();
    return indexer::SourceBook(m_db, m_env, m_chainId).list();
}

bool SqliteIndexStore::addSource(const chain::Address& address, std::uint64_t startBlock,
                                 const QString& factoryRule)
{
    requireOpen();
    WriteTransaction tx(m_db);
    m_checkpoints->ensureLive();
    const bool added =
        indexer::SourceBook(m_db, m_env, m_chainId).add(address, startBlock, factoryRule);
    tx.commit();
    return added;
}

indexer::CommitStats SqliteIndexStore::commitSource(const indexer::VerifiedBatch& batch,
                                                    const indexer::AddedSource& source)
{
    requireOpen();
    const chain::BlockHeader& first = batch.blocks.first();
    const chain::BlockHeader& last = batch.blocks.last();
    if (first.number != source.nextBlock())
        throw indexer::CheckpointMovedError(
            QStringLiteral("blocks %1-%2 do not continue the backfill of %3 (block %4 is next)")
                .arg(first.number)
                .arg(last.number)
                .arg(source.address.toHex())
                .arg(source.nextBlock()));
    indexer::SourceBook book(m_db, m_env, m_chainId);
    return m_committer->commitSource(batch, [&] {
        m_checkpoints->ensureLive();
        // The batch's blocks are the environment's: the same hash at its last block, at or
        // below the checkpoint. Otherwise a rollback took them since they were fetched.
        const auto cp = m_checkpoints->read();
        const auto stored = storedHash(last.number);
        if (!cp || cp->number < last.number || !stored || *stored != last.hash)
            throw indexer::CheckpointMovedError(
                QStringLiteral("block %1 of %2 is no longer the stored block the backfill of %3 "
                               "fetched against; nothing written")
                    .arg(last.number)
                    .arg(m_env, source.address.toHex()));
        book.advance(source, first.number, last.number, last.hash);
    });
}

void SqliteIndexStore::joinSource(const indexer::AddedSource& source, const indexer::Checkpoint& cp,
                                  const QString& contracts)
{
    requireOpen();
    WriteTransaction tx(m_db);
    m_checkpoints->ensureLive();
    const auto now = m_checkpoints->read();
    if (!now || now->number != cp.number || now->hash != cp.hash)
        throw indexer::CheckpointMovedError(
            QStringLiteral("the checkpoint of %1 moved from %2 before %3 joined; not joined")
                .arg(m_env)
                .arg(cp.number)
                .arg(source.address.toHex()));
    indexer::SourceBook(m_db, m_env, m_chainId).join(source.address, cp);
    m_checkpoints->replaceContracts(contracts);
    tx.commit();
    m_checkpoints->setContracts(contracts);
}

QList<wire::ChildCreation> SqliteIndexStore::children()
{
    requireOpen();
    QList<wire::ChildCreation> out;
    SqliteStatement q(m_db, "SELECT factory, child, block_number, log_index, block_hash, tx_hash "
                            "FROM child_store WHERE environment_id = ?1 AND chain_id = ?2 ORDER "
                            "BY block_number, log_index");
    q.bind(1, m_env.toUtf8());
    q.bind(2, std::int64_t(m_chainId));
    while (q.next()) {
        wire::ChildCreation c;
        c.factory = q.fixedBytes<chain::Address>(0, "child_store.factory");
        c.child = q.fixedBytes<chain::Address>(1, "child_store.child");
        c.blockNumber = std::uint64_t(q.int64(2));
        c.logIndex = std::uint64_t(q.int64(3));
        c.blockHash = q.fixedBytes<chain::Hash32>(4, "child_store.block_hash");
        c.txHash = q.fixedBytes<chain::Hash32>(5, "child_store.tx_hash");
        out.append(c);
    }
    return out;
}

qint64 SqliteIndexStore::childCount()
{
    requireOpen();
    SqliteStatement q(m_db, "SELECT count(*) FROM child_store WHERE environment_id = ?1 AND "
                            "chain_id = ?2");
    q.bind(1, m_env.toUtf8());
    q.bind(2, std::int64_t(m_chainId));
    return q.next() ? q.int64(0) : 0;
}

std::optional<chain::Hash32> SqliteIndexStore::storedHash(std::uint64_t block)
{
    requireOpen();
    QSqlQuery& q = m_db.runCached(QStringLiteral("SELECT block_hash FROM blocks WHERE "
                                                 "environment_id = ? AND chain_id = ? AND "
                                                 "block_number = ?"),
                                  {m_env, qint64(m_chainId), qint64(block)});
    std::optional<chain::Hash32> h;
    if (q.next())
        h = chain::Hash32::fromHex(q.value(0).toString(), QStringLiteral("blocks.block_hash"));
    q.finish();
    return h;
}

QSet<indexer::LogAt> SqliteIndexStore::storedLogs(std::uint64_t from, std::uint64_t to)
{
    requireOpen();
    QSet<indexer::LogAt> held;
    SqliteStatement q(m_db, "SELECT block_number, log_index FROM log_store WHERE "
                            "environment_id = ?1 AND chain_id = ?2 AND block_number "
                            "BETWEEN ?3 AND ?4");
    q.bind(1, m_env.toUtf8());
    q.bind(2, std::int64_t(m_chainId));
    q.bind(3, std::int64_t(from));
    q.bind(4, std::int64_t(to));
    while (q.next())
        held.insert({std::uint64_t(q.int64(0)), std::uint64_t(q.int64(1))});
    return held;
}

qint64 SqliteIndexStore::recordAlert(const QString& node, std::uint64_t fromBlock,
                                     std::uint64_t toBlock, const QString& what,
                                     const QString& kind)
{
    requireOpen();
    if (kind == QLatin1String("fetch"))
        m_openFetchAlerts = true;
    return indexer::CompletenessAlerts(m_db, m_env, m_chainId)
        .record(node, fromBlock, toBlock, what, kind);
}

QList<indexer::CompletenessAlert> SqliteIndexStore::openAlerts()
{
    requireOpen();
    return indexer::CompletenessAlerts(m_db, m_env, m_chainId).open();
}

int SqliteIndexStore::resolveAlerts(const QList<qint64>& ids, const QString& resolution)
{
    requireOpen();
    return indexer::CompletenessAlerts(m_db, m_env, m_chainId).resolve(ids, resolution);
}

qint64 SqliteIndexStore::outboxPendingAtOrBelow(std::uint64_t height)
{
    requireOpen();
    return outbox::pendingAtOrBelow(m_db, m_env, m_chainId, height);
}

indexer::Coordination& SqliteIndexStore::coordination()
{
    requireOpen();
    return *m_coordination;
}

ContractReader& SqliteIndexStore::reader()
{
    if (!m_reader)
        m_reader = std::make_unique<SqliteContractReader>(m_db);
    return *m_reader;
}

} // namespace forkscope::store
