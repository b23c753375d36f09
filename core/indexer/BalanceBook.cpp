#include "BalanceBook.h"
#include "chain/ChainParseError.h"
#include "chain/SignedAmount.h"
#include "store/Database.h"
#include "store/MultiRowInsert.h"
#include "store/SqliteStatement.h"

#include <QScopeGuard>
#include <QSqlQuery>
#include <algorithm>
#include <vector>

namespace forkscope::indexer {

BalanceBook::BalanceBook(store::Database& db, QString environmentId, std::uint64_t chainId)
    : m_db(db), m_env(std::move(environmentId)), m_chainId(chainId)
{
}

BalanceBook::~BalanceBook() = default;

std::optional<QString> BalanceBook::current(const HolderKey& key)
{
    QSqlQuery& q = m_db.runCached(
        QStringLiteral("SELECT balance FROM balance_store WHERE environment_id = ? AND "
                       "chain_id = ? AND contract = ? AND holder = ?"),
        {m_env, qint64(m_chainId), key.contract.toByteArray(), key.holder.toByteArray()});
    std::optional<QString> out;
    if (q.next())
        out = q.value(0).toString();
    q.finish();
    return out;
}

void BalanceBook::apply(HolderDeltas deltas, std::uint64_t atBlock)
{
    // An upsert per holder, the exact 256-bit addition inside SQLite (forkscope_amount_add), so
    // the old balance never makes a round trip through here; 64 holders per statement.
    // Not the revert's walk and REPLACE: measured both ways, the 100k sync's indexer CPU was
    // 0.84-1.00 s with them against 0.78-0.80 s with this, though the commit-only bench
    // preferred them (bench/README.md, twenty-fourth sitting).
    if (!m_upsert)
        m_upsert = std::make_unique<store::MultiRowInsert>(
            m_db,
            "INSERT INTO balance_store (environment_id, chain_id, contract, holder, balance, "
            "updated_at_block, transfer_sides)",
            7,
            "ON CONFLICT (environment_id, chain_id, contract, holder) DO UPDATE SET "
            "balance = forkscope_amount_add(balance_store.balance, excluded.balance), "
            "updated_at_block = excluded.updated_at_block, "
            "transfer_sides = balance_store.transfer_sides + excluded.transfer_sides",
            64);
    const QByteArray env = m_env.toUtf8();
    deltas.merge();
    m_upsert->start(qsizetype(deltas.size()), true);
    for (std::size_t i = 0; i < deltas.size(); ++i) {
        const HolderKey& key = deltas.key(i);
        const HolderDelta& delta = deltas.delta(i);
        m_upsert->add([&](store::RowBinder& row) {
            row.bind(1, env);
            row.bind(2, std::int64_t(m_chainId));
            row.bindBytes(3, key.contract);
            row.bindBytes(4, key.holder);
            row.bind(5, QByteArray::fromStdString(delta.amount.str()));
            row.bind(6, std::int64_t(atBlock));
            row.bind(7, std::int64_t(delta.sides));
        });
    }
    m_upsert->finish();
}

void BalanceBook::writeRows(const HolderDeltas& keys, const std::vector<NewRow>& rows)
{
    // REPLACE, not an UPDATE per holder: each row is written whole, 64 to a statement (the
    // revert's writes 13-14 ms as grouped upserts, 11.6 ms so). Sound only while
    // balance_store has no other index, trigger or foreign key for the replaced row's
    // delete to touch; add one and this must become an UPDATE again.
    if (!m_replace)
        m_replace = std::make_unique<store::MultiRowInsert>(
            m_db,
            "INSERT OR REPLACE INTO balance_store (environment_id, chain_id, contract, holder, "
            "balance, transfer_sides, updated_at_block)",
            7, QByteArray(), 64);
    const QByteArray env = m_env.toUtf8();
    m_replace->start(qsizetype(rows.size()), true);
    for (const NewRow& r : rows)
        m_replace->add([&](store::RowBinder& row) {
            const HolderKey& key = keys.key(r.at);
            row.bind(1, env);
            row.bind(2, std::int64_t(m_chainId));
            row.bindBytes(3, key.contract);
            row.bindBytes(4, key.holder);
            row.bind(5, r.balance);
            row.bind(6, std::int64_t(r.sides));
            row.bind(7, std::int64_t(r.updatedAt));
        });
    m_replace->finish();
}

namespace {

// A deep reorg touches most of the balances it walks past: a step to the next row of an
// ordered scan costs a fraction of a search from the B-tree's root. A key further ahead than
// this many rows is searched for instead, so a sparse set of holders costs one search each,
// as a SELECT per holder did.
constexpr int kMaxRowsSkipped = 8;

} // namespace

std::vector<BalanceBook::StoredRow> BalanceBook::readRows(const HolderDeltas& sorted)
{
    if (!m_walk)
        m_walk = std::make_unique<store::SqliteStatement>(
            m_db, "SELECT contract, holder, balance, transfer_sides, updated_at_block FROM "
                  "balance_store WHERE environment_id = ?1 AND chain_id = ?2 AND "
                  "(contract, holder) >= (?3, ?4) ORDER BY contract, holder");
    store::SqliteStatement& walk = *m_walk;
    // Reset however the walk ends, a damaged row's exception included: a statement left
    // mid-scan would not take the next walk's bindings.
    const auto resetWalk = qScopeGuard([&walk] { walk.reset(); });
    const QByteArray env = m_env.toUtf8();
    std::vector<StoredRow> rows(sorted.size());
    HolderKey at; // the row the walk stands on
    // Steps to the next row; false when there is none (next() has then reset the statement).
    const auto stepped = [&] {
        if (!walk.next())
            return false;
        at = {walk.fixedBytes<chain::Address>(0, "balance_store.contract"),
              walk.fixedBytes<chain::Address>(1, "balance_store.holder")};
        return true;
    };
    // Starts the walk at the first row at or after `key`.
    const auto seek = [&](const HolderKey& key) {
        walk.bind(1, env);
        walk.bind(2, std::int64_t(m_chainId));
        walk.bindBytes(3, key.contract);
        walk.bindBytes(4, key.holder);
        return stepped();
    };
    // Whenever the rows end, no key from there on has a row: the keys are sorted.
    if (sorted.isEmpty() || !seek(sorted.key(0)))
        return rows;
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        const HolderKey& want = sorted.key(i);
        for (int skipped = 0; holderKeyLess(at, want) && skipped < kMaxRowsSkipped; ++skipped)
            if (!stepped())
                return rows;
        if (holderKeyLess(at, want)) {
            walk.reset();
            if (!seek(want))
                return rows;
        }
        if (at == want)
            rows[i] = {walk.text(2), walk.int64(3), walk.int64(4), true};
    }
    return rows;
}

QList<BalanceChange> BalanceBook::revert(HolderDeltas removed, std::uint64_t forkBlock)
{
    // Exact by invariant 3: each balance is the sum of its transfers, so taking the removed
    // ones' deltas back leaves the sum of those that remain. No row can have been written
    // above the fork any more, hence updated_at_block is capped there.
    // A deep reorg touches thousands of holders. The rows before are read first, in key order
    // by one walk (readRows), then written back 64 per statement (writeRows): no write while
    // the walk's cursor is open on the table.
    if (!m_delete)
        m_delete = std::make_unique<store::SqliteStatement>(
            m_db, "DELETE FROM balance_store WHERE environment_id = ?1 AND chain_id = ?2 AND "
                  "contract = ?3 AND holder = ?4");
    removed.merge();
    const std::vector<StoredRow> before = readRows(removed);

    const QByteArray env = m_env.toUtf8();
    QList<BalanceChange> changes;
    // Grown 1,550 times, its copies faulted in fresh memory.
    changes.reserve(qsizetype(removed.size()));
    std::vector<NewRow> rows;
    rows.reserve(removed.size());
    for (std::size_t i = 0; i < removed.size(); ++i) {
        if (!before[i].found)
            continue; // no row to take anything from; the invariant check reports the gap
        const HolderKey& key = removed.key(i);
        const HolderDelta& delta = removed.delta(i);
        BalanceChange change{key, before[i].balance, QByteArray()};
        const qint64 sidesLeft = before[i].sides - delta.sides;
        if (sidesLeft > 0) {
            change.after = QByteArray::fromStdString(
                (chain::amount::fromString(change.before.constData(), int(change.before.size()),
                                           QStringLiteral("token_balances.balance")) -
                 delta.amount)
                    .str());
            rows.push_back(
                {i, change.after, sidesLeft, std::min(before[i].updatedAt, qint64(forkBlock))});
        } else { // no transfer names the holder any more: no row (not a row of "0")
            m_delete->bind(1, env);
            m_delete->bind(2, std::int64_t(m_chainId));
            m_delete->bindBytes(3, key.contract);
            m_delete->bindBytes(4, key.holder);
            m_delete->execute();
        }
        if (change.before != change.after)
            changes.append(std::move(change));
    }
    writeRows(removed, rows);
    return changes;
}

} // namespace forkscope::indexer
