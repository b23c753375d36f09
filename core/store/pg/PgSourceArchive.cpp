// PgIndexStore::archiveSource: one contract's rows (a factory's with its children's) out of
// the live environment, every one kept under an archived environment of their own, as in a
// file (store/SqliteSourceArchive.cpp).
#include "PgConnection.h"
#include "PgEnvironmentRegistry.h"
#include "PgIndexStore.h"
#include "indexer/IndexerErrors.h"
#include "store/Database.h"

namespace forkscope::store::pg {

namespace {
// The addresses whose rows move, for statements whose $1, $2 and $3 are the live
// environment, the chain and the contract: the contract, and a factory's children (while
// child_store still holds them under the live environment).
#define FORKSCOPE_ARCHIVED_ADDRESSES                                                               \
    " IN (SELECT $3::bytea UNION SELECT child FROM child_store WHERE environment_id = $1 AND "     \
    "chain_id = $2 AND factory = $3)"
} // namespace

indexer::ArchivedSource PgIndexStore::archiveSource(const chain::Address& address,
                                                    const QString& contracts,
                                                    const QString& archivedSet)
{
    requireOpen();
    PgTransaction tx(*m_db);
    PgEnvironmentRegistry(*m_db).requireLive(m_environmentId);
    // The checkpoint row locked first, as every writer that moves it.
    const std::optional<Row> row = readRow(true);
    if (!row)
        throw indexer::IndexerError(
            QStringLiteral("environment %1 has indexed nothing yet: there is nothing of %2 to "
                           "archive; nothing was changed")
                .arg(m_environmentId, address.toHex()));
    foldBalances(*row); // the contract's balance rows move whole
    indexer::ArchivedSource a =
        indexer::archiveOf(address, m_environmentId, std::uint64_t(row->number), nowUtc());
    const QByteArray addr = PgConnection::byteaParam(address.toByteArray());
    const QByteArray archive = a.archiveEnvironmentId.toUtf8();
    const QByteArray at = a.archivedAt.toUtf8();
    const PgResult counted = m_db->run(
        "archive_counts",
        "SELECT (SELECT count(*) FROM log_store WHERE environment_id = $1 AND chain_id = $2 AND "
        "address" FORKSCOPE_ARCHIVED_ADDRESSES "), (SELECT count(*) FROM log_store WHERE "
        "environment_id = $1 AND chain_id = $2 AND transfer_value IS NOT NULL AND "
        "address" FORKSCOPE_ARCHIVED_ADDRESSES "), (SELECT count(*) FROM balance_store WHERE "
        "environment_id = $1 AND chain_id = $2 AND contract" FORKSCOPE_ARCHIVED_ADDRESSES "), "
        "(SELECT count(*) FROM source_store WHERE environment_id = $1 AND chain_id = $2 AND "
        "address = $3 AND state = 'pending')",
        {m_env, m_chain, addr});
    a.logs = counted.int64(0, 0);
    a.transfers = counted.int64(0, 1);
    a.balances = counted.int64(0, 2);
    a.wasPending = counted.int64(0, 3) > 0;
    // The archive: an environment of the same chain, archived from the start, with the
    // checkpoint the rows were indexed up to, so its views read like any other's.
    m_db->run("archive_environment",
              "INSERT INTO environment_store (environment_id, chain_id, genesis_hash, rpc_url, "
              "created_at, archived_at, contracts, abi_digest) SELECT $1, chain_id, "
              "genesis_hash, rpc_url, $2, $2, $3, abi_digest FROM environment_store WHERE "
              "environment_id = $4",
              {archive, at, address.toHex().toUtf8(), m_env});
    m_db->run("archive_checkpoint",
              "INSERT INTO checkpoint_store (environment_id, chain_id, source_id, block_number, "
              "block_hash, policy_version, start_block, verified_at, contracts, generation) "
              "SELECT $1, chain_id, source_id, block_number, block_hash, policy_version, "
              "start_block, verified_at, $2, generation FROM checkpoint_store WHERE "
              "environment_id = $3 AND chain_id = $4 AND source_id = $5",
              {archive, archivedSet.toUtf8(), m_env, m_chain, m_source});
    m_db->run("archive_blocks",
              "INSERT INTO block_store (environment_id, chain_id, block_number, block_hash, "
              "parent_hash, block_timestamp) SELECT $4, chain_id, block_number, block_hash, "
              "parent_hash, block_timestamp FROM block_store WHERE environment_id = $1 AND "
              "chain_id = $2 AND block_number IN (SELECT block_number FROM log_store WHERE "
              "environment_id = $1 AND chain_id = $2 AND address" FORKSCOPE_ARCHIVED_ADDRESSES ")",
              {m_env, m_chain, addr, archive});
    // The outbox rows of its logs, delivered or not: an archived contract is delivered no
    // more (and a delivered event happened: it is not retracted).
    a.outboxRows =
        m_db->run("archive_outbox",
                  "UPDATE outbox_store o SET environment_id = $4 WHERE o.environment_id = $1 AND "
                  "o.chain_id = $2 AND o.log_index IS NOT NULL AND EXISTS (SELECT 1 FROM "
                  "log_store l WHERE l.environment_id = o.environment_id AND l.chain_id = "
                  "o.chain_id AND l.block_number = o.block_number AND l.log_index = o.log_index "
                  "AND l.address" FORKSCOPE_ARCHIVED_ADDRESSES ")",
                  {m_env, m_chain, addr, archive})
            .affected();
    m_db->run("archive_logs",
              "UPDATE log_store SET environment_id = $4 WHERE environment_id = $1 AND chain_id = "
              "$2 AND address" FORKSCOPE_ARCHIVED_ADDRESSES,
              {m_env, m_chain, addr, archive});
    m_db->run("archive_balances",
              "UPDATE balance_store SET environment_id = $4 WHERE environment_id = $1 AND "
              "chain_id = $2 AND contract" FORKSCOPE_ARCHIVED_ADDRESSES,
              {m_env, m_chain, addr, archive});
    a.children = m_db->run("archive_children",
                           "UPDATE child_store SET environment_id = $4 WHERE environment_id = $1 "
                           "AND chain_id = $2 AND factory = $3",
                           {m_env, m_chain, addr, archive})
                     .affected();
    m_db->run("archive_source_ranges",
              "UPDATE source_range_store SET environment_id = $1 WHERE environment_id = $2 AND "
              "chain_id = $3 AND address = $4",
              {archive, m_env, m_chain, addr});
    m_db->run("archive_source",
              "UPDATE source_store SET environment_id = $1, state = 'archived' WHERE "
              "environment_id = $2 AND chain_id = $3 AND address = $4",
              {archive, m_env, m_chain, addr});
    m_db->run("archive_set",
              "UPDATE checkpoint_store SET contracts = $4 WHERE environment_id = $1 AND chain_id "
              "= $2 AND source_id = $3",
              {m_env, m_chain, m_source, contracts.toUtf8()});
    m_db->run("archive_env_set",
              "UPDATE environment_store SET contracts = $2 WHERE environment_id = $1",
              {m_env, contracts.toUtf8()});
    tx.commit();
    m_contracts = contracts;
    return a;
}

#undef FORKSCOPE_ARCHIVED_ADDRESSES

} // namespace forkscope::store::pg
