#include "PrefixCheckpoint.h"
#include "CoordinationErrors.h"
#include "store/pg/PgConnection.h"

namespace forkscope::coord {

using store::pg::PgConnection;

PrefixCheckpoint::PrefixCheckpoint(PgConnection& db, QString environmentId, qint64 chainId,
                                   QString sourceId)
    : m_db(db), m_env(environmentId.toUtf8()), m_chain(QByteArray::number(chainId)),
      m_source(sourceId.toUtf8())
{
}

void PrefixCheckpoint::initialise(qint64 blockNumber, const chain::Hash32& blockHash)
{
    m_db.run("coord_cp_init",
             "INSERT INTO checkpoint_store (environment_id, chain_id, source_id, "
             "block_number, block_hash) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
             {m_env, m_chain, m_source, QByteArray::number(blockNumber),
              PgConnection::byteaParam(blockHash.toByteArray())});
}

std::optional<StoredCheckpoint> PrefixCheckpoint::read()
{
    const auto r = m_db.run("coord_cp_read",
                            "SELECT block_number, block_hash, version FROM "
                            "checkpoint_store WHERE environment_id = $1 AND chain_id = $2 "
                            "AND source_id = $3",
                            {m_env, m_chain, m_source});
    if (r.rows() == 0)
        return std::nullopt;
    StoredCheckpoint cp;
    cp.blockNumber = r.int64(0, 0);
    cp.blockHash =
        chain::Hash32::fromBytes(r.bytes(0, 1, 32), QStringLiteral("checkpoint_store.block_hash"));
    cp.version = r.int64(0, 2);
    return cp;
}

bool PrefixCheckpoint::swap(const StoredCheckpoint& from, qint64 block, const chain::Hash32& hash)
{
    return m_db.run("coord_cp_swap",
                    "UPDATE checkpoint_store SET block_number = $4, block_hash = $5, "
                    "version = version + 1, updated_at = clock_timestamp() WHERE "
                    "environment_id = $1 AND chain_id = $2 AND source_id = $3 AND "
                    "version = $6",
                    {m_env, m_chain, m_source, QByteArray::number(block),
                     PgConnection::byteaParam(hash.toByteArray()),
                     QByteArray::number(from.version)})
               .affected() == 1;
}

std::optional<std::pair<qint64, chain::Hash32>>
PrefixCheckpoint::prefixEnd(const StoredCheckpoint& from)
{
    // The finished ranges that chain on from the checkpoint, one after another; the walk
    // stops at the first gap, unfinished range or hash that does not follow.
    const auto top =
        m_db.run("coord_cp_prefix",
                 "WITH RECURSIVE prefix(to_block, last_hash) AS ("
                 " SELECT r.to_block, r.last_hash FROM range_store r WHERE r.environment_id = $1"
                 " AND r.chain_id = $2 AND r.from_block = $3::bigint + 1 AND r.status = 'done' AND"
                 " r.parent_hash = $4"
                 " UNION ALL"
                 " SELECT r.to_block, r.last_hash FROM range_store r JOIN prefix p ON"
                 " r.from_block = p.to_block + 1 AND r.parent_hash = p.last_hash WHERE"
                 " r.environment_id = $1 AND r.chain_id = $2 AND r.status = 'done')"
                 " SELECT to_block, last_hash FROM prefix ORDER BY to_block DESC LIMIT 1",
                 {m_env, m_chain, QByteArray::number(from.blockNumber),
                  PgConnection::byteaParam(from.blockHash.toByteArray())});
    if (top.rows() == 0)
        return std::nullopt;
    return std::pair{
        top.int64(0, 0),
        chain::Hash32::fromBytes(top.bytes(0, 1, 32), QStringLiteral("range_store.last_hash"))};
}

StoredCheckpoint PrefixCheckpoint::advance()
{
    for (;;) {
        const std::optional<StoredCheckpoint> cp = read();
        if (!cp)
            throw CoordinationError(
                QStringLiteral("no checkpoint for %1 on chain %2 (source %3): plan the backfill "
                               "first")
                    .arg(QString::fromUtf8(m_env), QString::fromUtf8(m_chain),
                         QString::fromUtf8(m_source)));
        const std::optional<std::pair<qint64, chain::Hash32>> top = prefixEnd(*cp);
        if (!top)
            return *cp;
        const qint64 to = top->first;
        const QByteArray hash = top->second.toByteArray();
        // Compare-and-swap: only from the generation read above. Another process that moved
        // it meanwhile made this UPDATE match nothing; read again and retry from there.
        const auto swapped =
            m_db.run("coord_cp_cas",
                     "UPDATE checkpoint_store SET block_number = $5, block_hash = $6, version = "
                     "version + 1, updated_at = clock_timestamp() WHERE environment_id = $1 AND "
                     "chain_id = $2 AND source_id = $3 AND version = $4 AND block_number < $5",
                     {m_env, m_chain, m_source, QByteArray::number(cp->version),
                      QByteArray::number(to), PgConnection::byteaParam(hash)});
        if (swapped.affected() == 1)
            return StoredCheckpoint{to, top->second, cp->version + 1};
        ++m_lostRaces;
    }
}

} // namespace forkscope::coord
