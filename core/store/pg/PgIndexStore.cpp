#include "PgIndexStore.h"
#include "PgBalances.h"
#include "PgCommitRows.h"
#include "PgConnection.h"
#include "PgContract.h"
#include "PgContractReader.h"
#include "PgCoordination.h"
#include "PgEnvironmentRegistry.h"
#include "PgError.h"
#include "PgForkTree.h"
#include "PgPendingOutbox.h"
#include "coord/BackfillClaims.h"
#include "coord/CoordinationErrors.h"
#include "coord/PrefixCheckpoint.h"
#include "indexer/CrashPoints.h"
#include "indexer/IndexerErrors.h"
#include "store/Database.h"

#include <QUrl>

namespace forkscope::store::pg {

namespace {

std::unique_ptr<PgConnection> openNamed(const QString& url, const QString& owner)
{
    PgConnection::Options options;
    options.applicationName = QStringLiteral("forkscope %1").arg(owner);
    return PgConnection::open(url, options);
}

QByteArray number(qint64 n)
{
    return QByteArray::number(n);
}

} // namespace

PgIndexStore::PgIndexStore(const QString& url, QString owner, std::chrono::milliseconds lease)
    : m_db(openNamed(url, owner)), m_url(url), m_owner(std::move(owner)), m_lease(lease)
{
    m_restored = ensurePgContract(*m_db);
}

// The coordination's session lock and the reader use the connection: they go first.
PgIndexStore::~PgIndexStore()
{
    m_folds.reset();
    m_reader.reset();
    m_checkpoint.reset();
    m_coordination.reset();
}

QString PgIndexStore::describe() const
{
    return m_db->displayUrl();
}

void PgIndexStore::requireOpen() const
{
    if (!m_coordination)
        throw indexer::IndexerError(
            QStringLiteral("the store of %1 has no environment open").arg(m_db->displayUrl()));
}

indexer::Environment PgIndexStore::open(const indexer::EnvironmentClaim& claim)
{
    // Every process of an environment indexes the same contracts with the same ABI on the
    // same chain; the first one's claim is the environment's.
    const indexer::Environment env = PgEnvironmentRegistry(*m_db).openForIndexing(
        claim.environmentId, claim.chainId, claim.genesis, claim.rpcUrl, claim.contracts,
        claim.abiDigest, claim.factoryRules);
    if (m_coordination && m_environmentId == claim.environmentId && m_chainId == claim.chainId &&
        m_sourceId == claim.sourceId) {
        m_contracts = indexer::contractSetText(claim.contracts, claim.factoryRules);
        return env; // open already: its ranges and locks stay this writer's
    }
    m_checkpoint.reset();
    m_coordination.reset();
    m_environmentId = claim.environmentId;
    m_sourceId = claim.sourceId;
    m_contracts = indexer::contractSetText(claim.contracts, claim.factoryRules);
    m_env = claim.environmentId.toUtf8();
    m_chain = QByteArray::number(qulonglong(claim.chainId));
    m_source = claim.sourceId.toUtf8();
    m_chainId = claim.chainId;
    m_folds = std::make_unique<PgBalanceFolds>(m_url, m_owner, m_env, m_chain);
    m_coordination = std::make_unique<PgCoordination>(*m_db, claim.environmentId,
                                                      qint64(claim.chainId), m_owner, m_lease);
    m_checkpoint = std::make_unique<coord::PrefixCheckpoint>(*m_db, claim.environmentId,
                                                             qint64(claim.chainId), claim.sourceId);
    return env;
}

void PgIndexStore::requireLive()
{
    requireOpen();
    PgEnvironmentRegistry(*m_db).requireLive(m_environmentId);
}

QStringList PgIndexStore::otherSources()
{
    requireOpen();
    const PgResult r = m_db->run("store_other_sources",
                                 "SELECT source_id FROM checkpoint_store WHERE environment_id = $1 "
                                 "AND chain_id = $2 AND source_id <> $3",
                                 {m_env, m_chain, m_source});
    QStringList out;
    for (int i = 0; i < r.rows(); ++i)
        out << QString::fromUtf8(r.text(i, 0));
    return out;
}

std::optional<PgIndexStore::Row> PgIndexStore::readRow(bool forUpdate)
{
    static const QByteArray columns =
        "SELECT block_number, block_hash, coalesce(start_block, block_number + 1), "
        "coalesce(policy_version, ''), generation, coalesce(" +
        pgIsoUtcSql("verified_at") +
        ", ''), coalesce(contracts, ''), version FROM "
        "checkpoint_store WHERE environment_id = $1 AND chain_id = $2 AND source_id = $3";
    static const QByteArray locked = columns + " FOR UPDATE";
    const PgResult r =
        forUpdate ? m_db->run("store_cp_lock", locked.constData(), {m_env, m_chain, m_source})
                  : m_db->run("store_cp_read", columns.constData(), {m_env, m_chain, m_source});
    if (r.rows() == 0)
        return std::nullopt;
    Row row;
    row.number = r.int64(0, 0);
    row.hash = chain::Hash32::fromBytes(r.bytes(0, 1, 32),
                                        QStringLiteral("indexer_checkpoints.block_hash"));
    row.startBlock = r.int64(0, 2);
    row.policyVersion = QString::fromUtf8(r.text(0, 3));
    row.generation = int(r.int64(0, 4));
    row.verifiedAt = QString::fromUtf8(r.text(0, 5));
    row.contracts = QString::fromUtf8(r.text(0, 6));
    row.version = r.int64(0, 7);
    return row;
}

std::optional<indexer::Checkpoint> PgIndexStore::checkpoint()
{
    requireOpen();
    const std::optional<Row> row = readRow(false);
    // Just below the first block: nothing indexed yet.
    if (!row || row->number < row->startBlock)
        return std::nullopt;
    indexer::Checkpoint cp;
    cp.number = std::uint64_t(row->number);
    cp.hash = row->hash;
    cp.startBlock = std::uint64_t(row->startBlock);
    cp.policyVersion = row->policyVersion;
    cp.generation = row->generation;
    cp.verifiedAt = row->verifiedAt;
    cp.contracts = row->contracts;
    return cp;
}

void PgIndexStore::markVerified(const indexer::Checkpoint& cp)
{
    requireOpen();
    m_db->run("store_cp_verified",
              "UPDATE checkpoint_store SET verified_at = clock_timestamp() WHERE environment_id = "
              "$1 AND chain_id = $2 AND source_id = $3 AND block_number = $4 AND block_hash = $5",
              {m_env, m_chain, m_source, number(qint64(cp.number)),
               PgConnection::byteaParam(cp.hash.toByteArray())});
}

bool PgIndexStore::adoptContracts(const QString& contractSet)
{
    requireOpen();
    return m_db->run("store_cp_adopt",
                     "UPDATE checkpoint_store SET contracts = $4 WHERE environment_id = $1 AND "
                     "chain_id = $2 AND source_id = $3 AND contracts IS NULL",
                     {m_env, m_chain, m_source, contractSet.toUtf8()})
               .affected() == 1;
}

qint64 PgIndexStore::advance(const Row& from, const BatchBalances& batch, bool atTheHead,
                             qint64 batchTransfers, std::optional<PgBalanceFolds::Later>& foldLater)
{
    coord::StoredCheckpoint at;
    at.blockNumber = from.number;
    at.blockHash = from.hash;
    const auto top = m_checkpoint->prefixEnd(at);
    if (!top)
        return from.number;
    const qint64 to = top->first;
    m_db->run("store_cp_move",
              "UPDATE checkpoint_store SET block_number = $4, block_hash = $5, version = version "
              "+ 1, updated_at = clock_timestamp() WHERE environment_id = $1 AND chain_id = $2 "
              "AND source_id = $3",
              {m_env, m_chain, m_source, number(to),
               PgConnection::byteaParam(top->second.toByteArray())});
    // The Transfers the checkpoint now covers count in the balances (folded in now, or read
    // from log_store until then), and a range indexing stopped at, now committed with every
    // check passed, is no longer an open alert.
    foldLater =
        m_folds->onMove(*m_db, from.number, to, batch, atTheHead, batchTransfers, m_foldAfter);
    m_db->run("store_alerts_committed",
              "UPDATE completeness_alerts SET resolved_at = $4, resolution = 'fetched whole when "
              "indexing reached it (every check passed)' WHERE environment_id = $1 AND chain_id = "
              "$2 AND resolved_at IS NULL AND kind = 'fetch' AND to_block <= $3",
              {m_env, m_chain, number(to), nowUtc().toUtf8()});
    return to;
}

void PgIndexStore::foldBalances(const Row& row)
{
    m_folds->foldNow(*m_db, row.number, row.number);
}

qint64 PgIndexStore::keepDeliveredKeys(std::uint64_t first, std::uint64_t last)
{
    // Usually no delivered row keeps its key as text: one probe of the key index says so.
    if (m_db->run("store_kept_keys_any",
                  "SELECT EXISTS (SELECT 1 FROM outbox_store WHERE environment_id = $1 AND "
                  "chain_id = $2 AND event_key LIKE 'transfer:%')",
                  {m_env, m_chain})
            .text(0, 0) != "t")
        return 0;
    // The Transfer's pending row is rendered, never stored: repointing the kept row at the
    // log is all, and the rendered row is gone with it.
    static const QByteArray repoint =
        "UPDATE outbox_store o SET log_index = l.log_index, event_key = NULL, payload = NULL FROM "
        "log_store l WHERE o.environment_id = $1 AND o.chain_id = $2 AND o.block_number BETWEEN "
        "$3 AND $4 AND o.event_key IS NOT NULL AND l.environment_id = o.environment_id AND "
        "l.chain_id = o.chain_id AND l.block_number = o.block_number AND o.event_key = " +
        pgOutboxEventKeySql() + " AND " + pgOutboxNotStoredSql();
    return m_db
        ->run("store_kept_keys_repoint", repoint.constData(),
              {m_env, m_chain, number(qint64(first)), number(qint64(last))})
        .affected();
}

indexer::CommitStats PgIndexStore::commit(const indexer::VerifiedBatch& batch,
                                          const indexer::CommitPlacement& placement)
{
    requireOpen();
    const chain::BlockHeader& firstHeader = batch.blocks.first();
    const chain::BlockHeader& lastHeader = batch.blocks.last();
    const std::uint64_t first = firstHeader.number;
    const std::uint64_t last = lastHeader.number;
    const std::uint64_t next =
        placement.expected ? placement.expected->number + 1 : placement.startBlock;
    if (!placement.range && first != next)
        throw indexer::CheckpointMovedError(
            QStringLiteral("blocks %1-%2 do not continue the checkpoint of %3 (block %4 is next)")
                .arg(first)
                .arg(last)
                .arg(m_environmentId)
                .arg(next));
    if (placement.range && !m_coordination->holds(*placement.range))
        throw indexer::CheckpointMovedError(
            QStringLiteral("range %1-%2 of %3 is no longer this writer's; nothing written")
                .arg(placement.range->from)
                .arg(placement.range->to)
                .arg(m_environmentId));
    // What the batch does to each holder, decoded with its rows: a fold in this commit
    // adds it, and a backfill's batch keeps it for the fold that takes its blocks, checked
    // against its last block's row (PgCommittedDeltas.h).
    const bool remember = placement.range && m_foldAfter > 0;
    BatchBalances balances{qint64(first), qint64(last), {}};
    const PgCommitRows rows(m_env, qint64(m_chainId), batch, true, &balances.deltas);
    balances.deltas.merge();
    indexer::CommitStats stats = rows.stats();
    PgTransaction tx(*m_db);
    // The rows first, outside any lock another writer waits for: writers COPY side by side.
    try {
        copyRows(rows, first, last);
    } catch (const indexer::CheckpointMovedError&) {
        if (placement.range)
            m_coordination->committed(*placement.range); // not this writer's any more
        throw;
    }
    // The children the batch's creation events announce go with the blocks that hold them.
    stats.children += insertChildren(batch.children);
    stats.outboxRows -= keepDeliveredKeys(first, last);
    // An archived environment's chain is gone; it holds the environment live until commit.
    PgEnvironmentRegistry(*m_db).requireLive(m_environmentId);
    // The checkpoint row, locked: every writer that moves it (a commit, a rollback) takes it
    // first, then ranges, so none waits on another in a circle.
    std::optional<Row> row = readRow(true);
    if (first == next) {
        // The batch continues the checkpoint this writer read: still so?
        const bool still = placement.expected
                               ? row && row->number == qint64(placement.expected->number) &&
                                     row->hash == placement.expected->hash
                               : !row || row->number < row->startBlock;
        if (!still)
            throw indexer::CheckpointMovedError(
                QStringLiteral("the checkpoint of %1/%2 moved away from %3 while this batch was "
                               "prepared; re-reading it")
                    .arg(m_environmentId, m_sourceId)
                    .arg(placement.expected ? QString::number(placement.expected->number)
                                            : QStringLiteral("nothing indexed")));
    }
    if (placement.range) {
        coord::RangeClaim claim;
        claim.fromBlock = qint64(placement.range->from);
        claim.toBlock = qint64(placement.range->to);
        try {
            m_coordination->claims().finish(claim, firstHeader.parentHash, lastHeader.hash);
        } catch (const coord::LeaseLostError& e) {
            m_coordination->committed(*placement.range);
            throw indexer::CheckpointMovedError(e.message());
        }
    } else {
        // Followed blocks are one more done range, so the ranges stay contiguous for a writer
        // that plans more of them later. A range planned there meanwhile: look again.
        coord::BackfillClaims::lockPlanners(*m_db, m_env, m_chain);
        const qint64 added =
            m_db->run("store_followed_range",
                      "INSERT INTO range_store (environment_id, chain_id, from_block, to_block, "
                      "status, attempts, parent_hash, last_hash) VALUES ($1, $2, $3, $4, "
                      "'done', 1, $5, $6) ON CONFLICT DO NOTHING",
                      {m_env, m_chain, number(qint64(first)), number(qint64(last)),
                       PgConnection::byteaParam(firstHeader.parentHash.toByteArray()),
                       PgConnection::byteaParam(lastHeader.hash.toByteArray())})
                .affected();
        if (added != 1)
            throw indexer::CheckpointMovedError(
                QStringLiteral("blocks %1-%2 of %3 were planned as a range meanwhile; looking "
                               "again")
                    .arg(first)
                    .arg(last)
                    .arg(m_environmentId));
    }
    if (!row && first == placement.startBlock) {
        // The first range of the environment: the checkpoint starts just below it, with its
        // parent's hash, so it chains on like every other range.
        m_db->run("store_cp_first",
                  "INSERT INTO checkpoint_store (environment_id, chain_id, source_id, "
                  "block_number, block_hash, policy_version, generation, start_block, contracts) "
                  "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                  {m_env, m_chain, m_source, number(qint64(first) - 1),
                   PgConnection::byteaParam(firstHeader.parentHash.toByteArray()),
                   placement.policyVersion.toUtf8(), number(placement.generation),
                   number(qint64(placement.startBlock)),
                   m_contracts.isEmpty() ? QByteArray() : m_contracts.toUtf8()});
        row = readRow(true);
    }
    std::optional<PgBalanceFolds::Later> foldLater;
    if (row) {
        const qint64 now =
            advance(*row, balances, !placement.range, qint64(stats.transfers), foldLater);
        if (now >= row->startBlock)
            stats.checkpoint = std::uint64_t(now);
    }
    const QByteArray lastXmin =
        remember ? m_db->run("store_last_xmin",
                             "SELECT xmin FROM block_store WHERE environment_id = $1 AND "
                             "chain_id = $2 AND block_number = $3",
                             {m_env, m_chain, number(qint64(last))})
                       .text(0, 0)
                 : QByteArray();
    indexer::crashPoint("before-commit");
    tx.commit();
    indexer::crashPoint("after-commit");
    if (remember)
        m_folds->remember(std::move(balances), lastXmin);
    if (foldLater)
        m_folds->send(*foldLater);
    if (placement.range)
        m_coordination->committed(*placement.range);
    return stats;
}

void PgIndexStore::copyRows(const PgCommitRows& rows, std::uint64_t first, std::uint64_t last)
{
    try {
        rows.copyInto(*m_db);
    } catch (const PgError& e) {
        if (e.sqlState() != "23505") // unique_violation
            throw;
        // The transaction is aborted: asked outside it. Rows no range done says whose are
        // not another writer's: an inconsistency, left to stop this writer loudly.
        m_db->rollback();
        const bool another =
            m_db->run("store_stored_meanwhile",
                      "SELECT EXISTS (SELECT 1 FROM range_store WHERE environment_id = $1 AND "
                      "chain_id = $2 AND status = 'done' AND from_block <= $4 AND to_block >= $3)",
                      {m_env, m_chain, number(qint64(first)), number(qint64(last))})
                .text(0, 0) == "t";
        if (!another)
            throw;
        throw indexer::CheckpointMovedError(
            QStringLiteral("blocks %1-%2 of %3 were stored by another writer meanwhile (a range "
                           "taken over while this writer was slow, or planned while it followed "
                           "the head); nothing of this batch written, looking again")
                .arg(first)
                .arg(last)
                .arg(m_environmentId));
    }
}

int PgIndexStore::recordSightings(const QList<forktree::NodeSighting>& heads)
{
    requireOpen();
    if (heads.isEmpty())
        return 0;
    PgTransaction tx(*m_db);
    const int stored = recordNodeSightings(*m_db, m_env, m_chain, heads, m_orphanRetention);
    tx.commit();
    return stored;
}

std::optional<chain::Hash32> PgIndexStore::storedHash(std::uint64_t block)
{
    requireOpen();
    const PgResult r = m_db->run("store_stored_hash",
                                 "SELECT block_hash FROM block_store WHERE environment_id = $1 AND "
                                 "chain_id = $2 AND block_number = $3",
                                 {m_env, m_chain, number(qint64(block))});
    if (r.rows() == 0)
        return std::nullopt;
    return chain::Hash32::fromBytes(r.bytes(0, 0, 32), QStringLiteral("block_store.block_hash"));
}

QSet<indexer::LogAt> PgIndexStore::storedLogs(std::uint64_t from, std::uint64_t to)
{
    requireOpen();
    const PgResult r = m_db->run("store_stored_logs",
                                 "SELECT block_number, log_index FROM log_store WHERE "
                                 "environment_id = $1 AND chain_id = $2 AND block_number BETWEEN "
                                 "$3 AND $4",
                                 {m_env, m_chain, number(qint64(from)), number(qint64(to))});
    QSet<indexer::LogAt> held;
    for (int i = 0; i < r.rows(); ++i)
        held.insert({std::uint64_t(r.int64(i, 0)), std::uint64_t(r.int64(i, 1))});
    return held;
}

qint64 PgIndexStore::recordAlert(const QString& node, std::uint64_t fromBlock,
                                 std::uint64_t toBlock, const QString& what, const QString& kind)
{
    requireOpen();
    return m_db
        ->run("store_alert_record",
              "INSERT INTO completeness_alerts (environment_id, chain_id, detected_at, node, "
              "from_block, to_block, what, kind) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) "
              "RETURNING id",
              {m_env, m_chain, nowUtc().toUtf8(), node.toUtf8(), number(qint64(fromBlock)),
               number(qint64(toBlock)), what.toUtf8(), kind.toUtf8()})
        .int64(0, 0);
}

QList<indexer::CompletenessAlert> PgIndexStore::openAlerts()
{
    requireOpen();
    const PgResult q = m_db->run("store_alerts_open",
                                 "SELECT id, detected_at, node, from_block, to_block, what, kind "
                                 "FROM completeness_alerts WHERE environment_id = $1 AND chain_id "
                                 "= $2 AND resolved_at IS NULL ORDER BY from_block, id",
                                 {m_env, m_chain});
    QList<indexer::CompletenessAlert> alerts;
    for (int i = 0; i < q.rows(); ++i) {
        indexer::CompletenessAlert a;
        a.id = q.int64(i, 0);
        a.detectedAt = QString::fromUtf8(q.text(i, 1));
        a.node = QString::fromUtf8(q.text(i, 2));
        a.fromBlock = std::uint64_t(q.int64(i, 3));
        a.toBlock = std::uint64_t(q.int64(i, 4));
        a.what = QString::fromUtf8(q.text(i, 5));
        a.kind = QString::fromUtf8(q.text(i, 6));
        alerts.append(a);
    }
    return alerts;
}

int PgIndexStore::resolveAlerts(const QList<qint64>& ids, const QString& resolution)
{
    requireOpen();
    int resolved = 0;
    for (qint64 id : ids)
        resolved +=
            int(m_db->run("store_alert_resolve",
                          "UPDATE completeness_alerts SET resolved_at = $4, resolution = "
                          "$5 WHERE id = $3 AND environment_id = $1 AND chain_id = $2 AND "
                          "resolved_at IS NULL",
                          {m_env, m_chain, number(id), nowUtc().toUtf8(), resolution.toUtf8()})
                    .affected());
    return resolved;
}

qint64 PgIndexStore::outboxPendingAtOrBelow(std::uint64_t height)
{
    requireOpen();
    return pendingOutboxCount(*m_db, m_env, m_chain, height);
}

qint64 PgIndexStore::insertChildren(const QList<wire::ChildCreation>& children)
{
    qint64 inserted = 0;
    for (const wire::ChildCreation& c : children)
        inserted += m_db->run("store_child",
                              "INSERT INTO child_store (environment_id, chain_id, child, "
                              "factory, block_number, log_index, block_hash, tx_hash) VALUES "
                              "($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING",
                              {m_env, m_chain, PgConnection::byteaParam(c.child.toByteArray()),
                               PgConnection::byteaParam(c.factory.toByteArray()),
                               number(qint64(c.blockNumber)), number(qint64(c.logIndex)),
                               PgConnection::byteaParam(c.blockHash.toByteArray()),
                               PgConnection::byteaParam(c.txHash.toByteArray())})
                        .affected();
    return inserted;
}

QList<wire::ChildCreation> PgIndexStore::children()
{
    requireOpen();
    const PgResult r = m_db->run("store_children",
                                 "SELECT factory, child, block_number, log_index, block_hash, "
                                 "tx_hash FROM child_store WHERE environment_id = $1 AND chain_id "
                                 "= $2 ORDER BY block_number, log_index",
                                 {m_env, m_chain});
    QList<wire::ChildCreation> out;
    for (int i = 0; i < r.rows(); ++i) {
        wire::ChildCreation c;
        c.factory =
            chain::Address::fromBytes(r.bytes(i, 0, 20), QStringLiteral("child_store.factory"));
        c.child = chain::Address::fromBytes(r.bytes(i, 1, 20), QStringLiteral("child_store.child"));
        c.blockNumber = std::uint64_t(r.int64(i, 2));
        c.logIndex = std::uint64_t(r.int64(i, 3));
        c.blockHash =
            chain::Hash32::fromBytes(r.bytes(i, 4, 32), QStringLiteral("child_store.block_hash"));
        c.txHash =
            chain::Hash32::fromBytes(r.bytes(i, 5, 32), QStringLiteral("child_store.tx_hash"));
        out.append(c);
    }
    return out;
}

qint64 PgIndexStore::childCount()
{
    requireOpen();
    return m_db
        ->run("store_child_count",
              "SELECT count(*) FROM child_store WHERE environment_id = $1 AND chain_id = $2",
              {m_env, m_chain})
        .int64(0, 0);
}

indexer::Coordination& PgIndexStore::coordination()
{
    requireOpen();
    return *m_coordination;
}

ContractReader& PgIndexStore::reader()
{
    if (!m_reader)
        m_reader = std::make_unique<PgContractReader>(*m_db);
    return *m_reader;
}

} // namespace forkscope::store::pg
