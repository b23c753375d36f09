// PgIndexStore's contracts added to an environment already indexed (docs/sources.md):
// source_store and source_range_store, each write in one transaction with what it covers.
#include "PgBalances.h"
#include "PgCommitRows.h"
#include "PgConnection.h"
#include "PgEnvironmentRegistry.h"
#include "PgIndexStore.h"
#include "PgPendingOutbox.h"
#include "indexer/CrashPoints.h"
#include "indexer/IndexerErrors.h"
#include "store/Database.h"

#include <QSet>

namespace forkscope::store::pg {

namespace {

QByteArray sourceNumber(qint64 n)
{
    return QByteArray::number(n);
}

} // namespace

QList<indexer::AddedSource> PgIndexStore::addedSources()
{
    requireOpen();
    const PgResult r =
        m_db->run("store_sources",
                  "SELECT address, start_block, block_number, block_hash, state, "
                  "factory_rule FROM source_store WHERE environment_id = $1 AND chain_id = $2 "
                  "ORDER BY address",
                  {m_env, m_chain});
    QList<indexer::AddedSource> out;
    for (int i = 0; i < r.rows(); ++i) {
        indexer::AddedSource s;
        s.address =
            chain::Address::fromBytes(r.bytes(i, 0, 20), QStringLiteral("source_store.address"));
        s.startBlock = std::uint64_t(r.int64(i, 1));
        if (!r.isNull(i, 2)) {
            indexer::Checkpoint cp;
            cp.number = std::uint64_t(r.int64(i, 2));
            cp.hash = chain::Hash32::fromBytes(r.bytes(i, 3, 32),
                                               QStringLiteral("source_store.block_hash"));
            cp.startBlock = s.startBlock;
            s.checkpoint = cp;
        }
        const QString state = QString::fromUtf8(r.text(i, 4));
        const auto known = indexer::sourceStateFromText(state);
        if (!known)
            throw indexer::IndexerError(
                QStringLiteral("source_store holds state '%1' for %2, which this build does not "
                               "know; upgrade Forkscope")
                    .arg(state, s.address.toHex()));
        s.state = *known;
        if (!r.isNull(i, 5))
            s.factoryRule = QString::fromUtf8(r.text(i, 5));
        out.append(s);
    }
    return out;
}

bool PgIndexStore::addSource(const chain::Address& address, std::uint64_t startBlock,
                             const QString& factoryRule)
{
    requireOpen();
    PgTransaction tx(*m_db);
    PgEnvironmentRegistry(*m_db).requireLive(m_environmentId);
    const bool added =
        m_db->run("store_source_add",
                  "INSERT INTO source_store (environment_id, chain_id, address, start_block, "
                  "state, added_at, factory_rule) VALUES ($1, $2, $3, $4, 'pending', $5, $6) ON "
                  "CONFLICT DO NOTHING",
                  {m_env, m_chain, PgConnection::byteaParam(address.toByteArray()),
                   sourceNumber(qint64(startBlock)), nowUtc().toUtf8(),
                   factoryRule.isEmpty() ? QByteArray() : factoryRule.toUtf8()})
            .affected() == 1;
    tx.commit();
    return added;
}

indexer::CommitStats PgIndexStore::commitSource(const indexer::VerifiedBatch& batch,
                                                const indexer::AddedSource& source)
{
    requireOpen();
    const chain::BlockHeader& firstHeader = batch.blocks.first();
    const chain::BlockHeader& lastHeader = batch.blocks.last();
    const std::uint64_t first = firstHeader.number;
    const std::uint64_t last = lastHeader.number;
    if (first != source.nextBlock())
        throw indexer::CheckpointMovedError(
            QStringLiteral("blocks %1-%2 do not continue the backfill of %3 (block %4 is next)")
                .arg(first)
                .arg(last)
                .arg(source.address.toHex())
                .arg(source.nextBlock()));
    const PgCommitRows rows(m_env, qint64(m_chainId), batch, false);
    indexer::CommitStats stats = rows.stats();
    const QByteArray address = PgConnection::byteaParam(source.address.toByteArray());
    PgTransaction tx(*m_db);
    PgEnvironmentRegistry(*m_db).requireLive(m_environmentId);
    // The checkpoint row first, as every writer that moves it: a rollback cannot take the
    // batch's blocks meanwhile. They must still be the stored ones, at or below it.
    const std::optional<Row> row = readRow(true);
    if (row)
        foldBalances(*row); // the batch's balances go straight to balance_store
    // Its Transfers lie below the checkpoint, where delivery may have stored every row:
    // rendered for delivery from its first block (PgPendingOutbox.h).
    lowerOutboxCursor(*m_db, m_env, m_chain, qint64(first));
    const PgResult stored = m_db->run("store_source_block",
                                      "SELECT block_hash FROM block_store WHERE environment_id = "
                                      "$1 AND chain_id = $2 AND block_number = $3",
                                      {m_env, m_chain, sourceNumber(qint64(last))});
    if (!row || row->number < qint64(last) || stored.rows() != 1 ||
        stored.bytes(0, 0, 32) != lastHeader.hash.toByteArray())
        throw indexer::CheckpointMovedError(
            QStringLiteral("block %1 of %2 is no longer the stored block the backfill of %3 "
                           "fetched against; nothing written")
                .arg(last)
                .arg(m_environmentId, source.address.toHex()));
    const bool moved =
        m_db->run(
                "store_source_move",
                "UPDATE source_store SET block_number = $4, block_hash = $5 WHERE "
                "environment_id = $1 AND chain_id = $2 AND address = $3 AND state = 'pending' "
                "AND block_number IS NOT DISTINCT FROM $6::bigint AND block_hash IS NOT "
                "DISTINCT FROM $7::bytea",
                {m_env, m_chain, address, sourceNumber(qint64(last)),
                 PgConnection::byteaParam(lastHeader.hash.toByteArray()),
                 source.checkpoint ? sourceNumber(qint64(source.checkpoint->number)) : QByteArray(),
                 source.checkpoint ? PgConnection::byteaParam(source.checkpoint->hash.toByteArray())
                                   : QByteArray()})
            .affected() == 1;
    if (!moved)
        throw indexer::CheckpointMovedError(
            QStringLiteral("the backfill of %1 in %2 no longer stands where this batch started; "
                           "nothing written")
                .arg(source.address.toHex(), m_environmentId));
    m_db->run("store_source_range",
              "INSERT INTO source_range_store (environment_id, chain_id, address, from_block, "
              "to_block, status, attempts, updated_at) VALUES ($1, $2, $3, $4, $5, 'done', 1, "
              "$6) ON CONFLICT (environment_id, chain_id, address, from_block) DO UPDATE SET "
              "to_block = excluded.to_block, status = 'done', attempts = "
              "source_range_store.attempts + 1, updated_at = excluded.updated_at",
              {m_env, m_chain, address, sourceNumber(qint64(first)), sourceNumber(qint64(last)),
               nowUtc().toUtf8()});
    rows.copyInto(*m_db);
    stats.children += insertChildren(batch.children);
    stats.outboxRows -= keepDeliveredKeys(first, last);
    // The balances of every contract the batch holds Transfers of: the source's, and an
    // added factory's children's.
    QSet<chain::Address> tokens{source.address};
    for (const chain::LogEntry& log : batch.logs)
        tokens.insert(log.address);
    for (const chain::Address& token : tokens)
        addContractBalances(*m_db, m_env, m_chain, PgConnection::byteaParam(token.toByteArray()),
                            qint64(first) - 1, qint64(last));
    indexer::crashPoint("source-before-commit");
    tx.commit();
    return stats;
}

void PgIndexStore::joinSource(const indexer::AddedSource& source, const indexer::Checkpoint& cp,
                              const QString& contracts)
{
    requireOpen();
    PgTransaction tx(*m_db);
    PgEnvironmentRegistry(*m_db).requireLive(m_environmentId);
    const std::optional<Row> row = readRow(true);
    if (!row || row->number != qint64(cp.number) || row->hash != cp.hash)
        throw indexer::CheckpointMovedError(
            QStringLiteral("the checkpoint of %1 moved from %2 before %3 joined; not joined")
                .arg(m_environmentId)
                .arg(cp.number)
                .arg(source.address.toHex()));
    // Folded while the contract is pending: from here its Transfers are the checkpoint's.
    foldBalances(*row);
    const bool joined =
        m_db->run("store_source_join",
                  "UPDATE source_store SET state = 'joined', joined_at = $6 WHERE environment_id "
                  "= $1 AND chain_id = $2 AND address = $3 AND state = 'pending' AND "
                  "block_number = $4 AND block_hash = $5",
                  {m_env, m_chain, PgConnection::byteaParam(source.address.toByteArray()),
                   sourceNumber(qint64(cp.number)), PgConnection::byteaParam(cp.hash.toByteArray()),
                   nowUtc().toUtf8()})
            .affected() == 1;
    if (!joined)
        throw indexer::CheckpointMovedError(
            QStringLiteral("%1 in %2 is not pending at block %3 any more; not joined")
                .arg(source.address.toHex(), m_environmentId)
                .arg(cp.number));
    m_db->run("store_source_set",
              "UPDATE checkpoint_store SET contracts = $4 WHERE environment_id = $1 AND chain_id "
              "= $2 AND source_id = $3",
              {m_env, m_chain, m_source, contracts.toUtf8()});
    m_db->run("store_source_env_set",
              "UPDATE environment_store SET contracts = $2 WHERE environment_id = $1",
              {m_env, contracts.toUtf8()});
    tx.commit();
    m_contracts = contracts;
}

} // namespace forkscope::store::pg
