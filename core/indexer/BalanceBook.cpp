#include "BalanceBook.h"
#include "chain/ChainParseError.h"
#include "chain/SignedAmount.h"
#include "store/Database.h"
#include "store/SqliteStatement.h"

#include <QSqlQuery>

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

void BalanceBook::apply(const QHash<HolderKey, HolderDelta>& deltas, std::uint64_t atBlock)
{
    // One upsert per holder; the exact 256-bit addition runs inside SQLite
    // (forkscope_amount_add), so the old balance never makes a round trip through Qt.
    if (!m_upsertDelta)
        m_upsertDelta = std::make_unique<store::SqliteStatement>(
            m_db, "INSERT INTO balance_store (environment_id, chain_id, contract, holder, balance, "
                  "updated_at_block, transfer_sides) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) "
                  "ON CONFLICT (environment_id, chain_id, contract, holder) DO UPDATE SET "
                  "balance = forkscope_amount_add(balance_store.balance, excluded.balance), "
                  "updated_at_block = excluded.updated_at_block, "
                  "transfer_sides = balance_store.transfer_sides + excluded.transfer_sides");
    const QByteArray env = m_env.toUtf8();
    for (auto it = deltas.cbegin(); it != deltas.cend(); ++it) {
        m_upsertDelta->bind(1, env);
        m_upsertDelta->bind(2, std::int64_t(m_chainId));
        m_upsertDelta->bindBytes(3, it.key().contract);
        m_upsertDelta->bindBytes(4, it.key().holder);
        m_upsertDelta->bind(5, QByteArray::fromStdString(it.value().amount.str()));
        m_upsertDelta->bind(6, std::int64_t(atBlock));
        m_upsertDelta->bind(7, std::int64_t(it.value().sides));
        m_upsertDelta->execute();
    }
}

QList<BalanceChange> BalanceBook::revert(const QHash<HolderKey, HolderDelta>& removed,
                                         std::uint64_t forkBlock)
{
    // Exact by invariant 3: each balance is the sum of its transfers, so taking the removed
    // ones' deltas back leaves the sum of those that remain. No row can have been written
    // above the fork any more, hence updated_at_block is capped there.
    // A deep reorg touches thousands of holders: prepared statements bound directly (as
    // apply does), not QSqlQuery's QVariants (bench/README.md, rollback).
    if (!m_select) {
        m_select = std::make_unique<store::SqliteStatement>(
            m_db, "SELECT balance, transfer_sides FROM balance_store WHERE environment_id = ?1 "
                  "AND chain_id = ?2 AND contract = ?3 AND holder = ?4");
        m_update = std::make_unique<store::SqliteStatement>(
            m_db, "UPDATE balance_store SET balance = ?5, transfer_sides = ?6, updated_at_block = "
                  "min(updated_at_block, ?7) WHERE environment_id = ?1 AND chain_id = ?2 AND "
                  "contract = ?3 AND holder = ?4");
        m_delete = std::make_unique<store::SqliteStatement>(
            m_db, "DELETE FROM balance_store WHERE environment_id = ?1 AND chain_id = ?2 AND "
                  "contract = ?3 AND holder = ?4");
    }
    const QByteArray env = m_env.toUtf8();
    const auto bindKey = [&](store::SqliteStatement& st, const HolderKey& key) {
        st.bind(1, env);
        st.bind(2, std::int64_t(m_chainId));
        st.bindBytes(3, key.contract);
        st.bindBytes(4, key.holder);
    };
    QList<BalanceChange> changes;
    changes.reserve(removed.size()); // grown 1,550 times, its copies faulted in fresh memory
    for (auto it = removed.cbegin(); it != removed.cend(); ++it) {
        const HolderKey& key = it.key();
        bindKey(*m_select, key);
        if (!m_select->next())
            continue; // no row to take anything from; the invariant check reports the gap
        BalanceChange change{key, QString::fromLatin1(m_select->text(0)), QString()};
        const qint64 sidesLeft = m_select->int64(1) - it.value().sides;
        m_select->reset();
        if (sidesLeft > 0) {
            change.after = chain::amount::toString(
                chain::amount::fromString(change.before, QStringLiteral("token_balances.balance")) -
                it.value().amount);
            bindKey(*m_update, key);
            m_update->bind(5, change.after.toLatin1());
            m_update->bind(6, std::int64_t(sidesLeft));
            m_update->bind(7, std::int64_t(forkBlock));
            m_update->execute();
        } else { // no transfer names the holder any more: no row (not a row of "0")
            bindKey(*m_delete, key);
            m_delete->execute();
        }
        if (change.before != change.after)
            changes.append(std::move(change));
    }
    return changes;
}

} // namespace forkscope::indexer
