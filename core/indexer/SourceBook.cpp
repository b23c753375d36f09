#include "SourceBook.h"
#include "IndexerErrors.h"
#include "store/Database.h"
#include "store/SqliteStatement.h"

namespace forkscope::indexer {

SourceBook::SourceBook(store::Database& db, QString environmentId, std::uint64_t chainId)
    : m_db(db), m_env(std::move(environmentId)), m_chainId(chainId)
{
}

QList<AddedSource> SourceBook::list()
{
    store::SqliteStatement q(
        m_db, "SELECT address, start_block, block_number, block_hash, state, "
              "factory_rule FROM source_store WHERE environment_id = ?1 AND chain_id = ?2 "
              "ORDER BY address");
    q.bind(1, m_env.toUtf8());
    q.bind(2, std::int64_t(m_chainId));
    QList<AddedSource> out;
    while (q.next()) {
        AddedSource s;
        s.address = q.fixedBytes<chain::Address>(0, "source_store.address");
        s.startBlock = std::uint64_t(q.int64(1));
        if (!q.value(2).isNull()) {
            Checkpoint cp;
            cp.number = std::uint64_t(q.int64(2));
            cp.hash = q.fixedBytes<chain::Hash32>(3, "source_store.block_hash");
            cp.startBlock = s.startBlock;
            s.checkpoint = cp;
        }
        const QString state = QString::fromUtf8(q.text(4));
        const auto known = sourceStateFromText(state);
        if (!known)
            throw IndexerError(QStringLiteral("source_store holds state '%1' for %2, which this "
                                              "build does not know; upgrade Forkscope")
                                   .arg(state, s.address.toHex()));
        s.state = *known;
        if (!q.value(5).isNull())
            s.factoryRule = QString::fromUtf8(q.text(5));
        out.append(s);
    }
    return out;
}

bool SourceBook::add(const chain::Address& address, std::uint64_t startBlock,
                     const QString& factoryRule)
{
    store::SqliteStatement q(m_db, "INSERT INTO source_store (environment_id, chain_id, address, "
                                   "start_block, state, added_at, factory_rule) VALUES (?1, ?2, "
                                   "?3, ?4, 'pending', ?5, ?6) ON CONFLICT DO NOTHING");
    q.bind(1, m_env.toUtf8());
    q.bind(2, std::int64_t(m_chainId));
    q.bindBytes(3, address);
    q.bind(4, std::int64_t(startBlock));
    q.bind(5, store::nowUtc().toUtf8());
    if (factoryRule.isEmpty())
        q.bindNull(6);
    else
        q.bind(6, factoryRule.toUtf8());
    return q.execute() == 1;
}

void SourceBook::advance(const AddedSource& expected, std::uint64_t from, std::uint64_t to,
                         const chain::Hash32& hash)
{
    // Compare-and-swap on the checkpoint the batch continues (NULL: nothing backfilled).
    store::SqliteStatement move(
        m_db, "UPDATE source_store SET block_number = ?4, block_hash = ?5 WHERE environment_id "
              "= ?1 AND chain_id = ?2 AND address = ?3 AND state = 'pending' AND block_number IS "
              "?6 AND block_hash IS ?7");
    move.bind(1, m_env.toUtf8());
    move.bind(2, std::int64_t(m_chainId));
    move.bindBytes(3, expected.address);
    move.bind(4, std::int64_t(to));
    move.bindBytes(5, hash);
    if (expected.checkpoint) {
        move.bind(6, std::int64_t(expected.checkpoint->number));
        move.bindBytes(7, expected.checkpoint->hash);
    } else {
        move.bindNull(6);
        move.bindNull(7);
    }
    if (move.execute() != 1)
        throw CheckpointMovedError(
            QStringLiteral("the backfill of %1 in %2 no longer stands at %3; nothing written")
                .arg(expected.address.toHex(), m_env,
                     expected.checkpoint ? QString::number(expected.checkpoint->number)
                                         : QStringLiteral("its start")));
    store::SqliteStatement range(
        m_db, "INSERT INTO source_range_store (environment_id, chain_id, address, from_block, "
              "to_block, status, attempts, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, 'done', 1, "
              "?6) ON CONFLICT DO UPDATE SET to_block = excluded.to_block, status = 'done', "
              "attempts = attempts + 1, updated_at = excluded.updated_at");
    range.bind(1, m_env.toUtf8());
    range.bind(2, std::int64_t(m_chainId));
    range.bindBytes(3, expected.address);
    range.bind(4, std::int64_t(from));
    range.bind(5, std::int64_t(to));
    range.bind(6, store::nowUtc().toUtf8());
    range.execute();
}

void SourceBook::join(const chain::Address& address, const Checkpoint& cp)
{
    store::SqliteStatement q(
        m_db, "UPDATE source_store SET state = 'joined', joined_at = ?6 WHERE environment_id = "
              "?1 AND chain_id = ?2 AND address = ?3 AND state = 'pending' AND block_number = ?4 "
              "AND block_hash = ?5");
    q.bind(1, m_env.toUtf8());
    q.bind(2, std::int64_t(m_chainId));
    q.bindBytes(3, address);
    q.bind(4, std::int64_t(cp.number));
    q.bindBytes(5, cp.hash);
    q.bind(6, store::nowUtc().toUtf8());
    if (q.execute() != 1)
        throw CheckpointMovedError(
            QStringLiteral("%1 in %2 is not pending at block %3 any more; not joined")
                .arg(address.toHex(), m_env)
                .arg(cp.number));
}

int SourceBook::rollBackAbove(qint64 above, const chain::Hash32& forkHash)
{
    store::SqliteStatement q(
        m_db, "UPDATE source_store SET block_number = CASE WHEN ?3 >= start_block THEN ?3 END, "
              "block_hash = CASE WHEN ?3 >= start_block THEN ?4 END WHERE environment_id = ?1 "
              "AND chain_id = ?2 AND state = 'pending' AND block_number > ?3");
    q.bind(1, m_env.toUtf8());
    q.bind(2, std::int64_t(m_chainId));
    q.bind(3, std::int64_t(above));
    q.bindBytes(4, forkHash);
    const int moved = q.execute();
    // A range above the fork is given back whole (fetched again); one across it keeps its
    // part below.
    store::SqliteStatement drop(m_db, "DELETE FROM source_range_store WHERE environment_id = ?1 "
                                      "AND chain_id = ?2 AND from_block > ?3");
    drop.bind(1, m_env.toUtf8());
    drop.bind(2, std::int64_t(m_chainId));
    drop.bind(3, std::int64_t(above));
    drop.execute();
    store::SqliteStatement cut(m_db, "UPDATE source_range_store SET to_block = ?3, updated_at = "
                                     "?4 WHERE environment_id = ?1 AND chain_id = ?2 AND to_block "
                                     "> ?3");
    cut.bind(1, m_env.toUtf8());
    cut.bind(2, std::int64_t(m_chainId));
    cut.bind(3, std::int64_t(above));
    cut.bind(4, store::nowUtc().toUtf8());
    cut.execute();
    return moved;
}

} // namespace forkscope::indexer
