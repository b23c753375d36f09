// SqliteIndexStore::archiveSource: one contract's rows (a factory's with its children's) out
// of the live environment, every one kept under an archived environment of their own
// (indexer/ArchivedSource.h).
#include "SqliteIndexStore.h"
#include "indexer/CheckpointStore.h"
#include "indexer/IndexerErrors.h"

#include <QSqlQuery>

namespace forkscope::store {

namespace {

qint64 countRows(Database& db, const QString& sql, const QVariantList& args)
{
    QSqlQuery q = db.run(sql, args);
    return q.next() ? q.value(0).toLongLong() : 0;
}

} // namespace

indexer::ArchivedSource SqliteIndexStore::archiveSource(const chain::Address& address,
                                                        const QString& contracts,
                                                        const QString& archivedSet)
{
    requireOpen();
    WriteTransaction tx(m_db);
    m_checkpoints->ensureLive();
    const auto cp = m_checkpoints->read();
    if (!cp)
        throw indexer::IndexerError(
            QStringLiteral("environment %1 has indexed nothing yet: there is nothing of %2 to "
                           "archive; nothing was changed")
                .arg(m_env, address.toHex()));
    indexer::ArchivedSource a = indexer::archiveOf(address, m_env, cp->number, nowUtc());
    const QByteArray addr = address.toByteArray();
    const qint64 chain = qint64(m_chainId);
    // The addresses whose rows move: the contract, and a factory's children.
    m_db.run(QStringLiteral("CREATE TEMP TABLE IF NOT EXISTS archived_address (address BLOB "
                            "PRIMARY KEY) WITHOUT ROWID"));
    m_db.run(QStringLiteral("DELETE FROM temp.archived_address"));
    m_db.run(QStringLiteral("INSERT INTO temp.archived_address VALUES (?)"), {addr});
    m_db.run(QStringLiteral("INSERT OR IGNORE INTO temp.archived_address SELECT child FROM "
                            "child_store WHERE environment_id = ? AND chain_id = ? AND factory = "
                            "?"),
             {m_env, chain, addr});
    const QString ofThem = QStringLiteral(" IN (SELECT address FROM temp.archived_address)");
    const QVariantList mine{m_env, chain};
    a.logs = countRows(m_db,
                       QStringLiteral("SELECT count(*) FROM log_store WHERE environment_id = ? AND "
                                      "chain_id = ? AND address") +
                           ofThem,
                       mine);
    a.transfers = countRows(m_db,
                            QStringLiteral("SELECT count(*) FROM log_store WHERE environment_id = "
                                           "? AND chain_id = ? AND transfer_value IS NOT NULL "
                                           "AND address") +
                                ofThem,
                            mine);
    a.balances = countRows(m_db,
                           QStringLiteral("SELECT count(*) FROM balance_store WHERE "
                                          "environment_id = ? AND chain_id = ? AND contract") +
                               ofThem,
                           mine);
    a.wasPending =
        countRows(m_db,
                  QStringLiteral("SELECT count(*) FROM source_store WHERE environment_id "
                                 "= ? AND chain_id = ? AND address = ? AND state = "
                                 "'pending'"),
                  {m_env, chain, addr}) > 0;
    const QString archive = a.archiveEnvironmentId;
    // The archive: an environment of the same chain, archived from the start, with the
    // checkpoint the rows were indexed up to, so its views read like any other's.
    m_db.run(QStringLiteral("INSERT INTO environments (environment_id, chain_id, genesis_hash, "
                            "rpc_url, created_at, archived_at) SELECT ?, chain_id, genesis_hash, "
                            "rpc_url, ?, ? FROM environments WHERE environment_id = ?"),
             {archive, a.archivedAt, a.archivedAt, m_env});
    m_db.run(QStringLiteral("INSERT INTO indexer_checkpoints (environment_id, chain_id, "
                            "source_id, block_number, block_hash, policy_version, generation, "
                            "updated_at, start_block, verified_at, contracts) SELECT ?, "
                            "chain_id, source_id, block_number, block_hash, policy_version, "
                            "generation, ?, start_block, verified_at, ? FROM "
                            "indexer_checkpoints WHERE environment_id = ? AND chain_id = ? AND "
                            "source_id = ?"),
             {archive, a.archivedAt, archivedSet, m_env, chain, m_source});
    m_db.run(QStringLiteral("INSERT INTO block_store (environment_id, chain_id, block_number, "
                            "block_hash, parent_hash, block_timestamp) SELECT ?, chain_id, "
                            "block_number, block_hash, parent_hash, block_timestamp FROM "
                            "block_store WHERE environment_id = ? AND chain_id = ? AND "
                            "block_number IN (SELECT block_number FROM log_store WHERE "
                            "environment_id = ? AND chain_id = ? AND address") +
                 ofThem + QLatin1Char(')'),
             {archive, m_env, chain, m_env, chain});
    // The outbox rows of its logs, delivered or not: an archived contract is delivered no
    // more (and a delivered event happened: it is not retracted).
    a.outboxRows =
        m_db.run(QStringLiteral("UPDATE outbox_store SET environment_id = ? WHERE environment_id "
                                "= ? AND chain_id = ? AND log_index IS NOT NULL AND EXISTS "
                                "(SELECT 1 FROM log_store l WHERE l.environment_id = "
                                "outbox_store.environment_id AND l.chain_id = "
                                "outbox_store.chain_id AND l.block_number = "
                                "outbox_store.block_number AND l.log_index = "
                                "outbox_store.log_index AND l.address") +
                     ofThem + QLatin1Char(')'),
                 {archive, m_env, chain})
            .numRowsAffected();
    for (const char* sql :
         {"UPDATE log_store SET environment_id = ? WHERE environment_id = ? AND chain_id = ? AND "
          "address",
          "UPDATE balance_store SET environment_id = ? WHERE environment_id = ? AND chain_id = ? "
          "AND contract"})
        m_db.run(QString::fromLatin1(sql) + ofThem, {archive, m_env, chain});
    a.children = m_db.run(QStringLiteral("UPDATE child_store SET environment_id = ? WHERE "
                                         "environment_id = ? AND chain_id = ? AND factory = ?"),
                          {archive, m_env, chain, addr})
                     .numRowsAffected();
    for (const char* sql :
         {"UPDATE source_range_store SET environment_id = ? WHERE environment_id = ? AND "
          "chain_id = ? AND address = ?",
          "UPDATE source_store SET environment_id = ?, state = 'archived' WHERE environment_id "
          "= ? AND chain_id = ? AND address = ?"})
        m_db.run(QString::fromLatin1(sql), {archive, m_env, chain, addr});
    m_db.run(QStringLiteral("DELETE FROM temp.archived_address"));
    m_checkpoints->replaceContracts(contracts);
    tx.commit();
    m_checkpoints->setContracts(contracts);
    return a;
}

} // namespace forkscope::store
