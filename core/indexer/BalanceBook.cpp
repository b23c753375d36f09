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
        {m_env, qint64(m_chainId), key.contractBlob(), key.holderBlob()});
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
        const QByteArray contract = it.key().contractBlob();
        const QByteArray holder = it.key().holderBlob();
        m_upsertDelta->bindBlob(3, contract.constData(), int(contract.size()));
        m_upsertDelta->bindBlob(4, holder.constData(), int(holder.size()));
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
    QList<BalanceChange> changes;
    for (auto it = removed.cbegin(); it != removed.cend(); ++it) {
        const HolderKey& key = it.key();
        QSqlQuery& q = m_db.runCached(
            QStringLiteral("SELECT balance, transfer_sides FROM balance_store WHERE "
                           "environment_id = ? AND chain_id = ? AND contract = ? AND holder = ?"),
            {m_env, qint64(m_chainId), key.contractBlob(), key.holderBlob()});
        if (!q.next()) {
            q.finish();
            continue; // no row to take anything from; the invariant check reports the gap
        }
        BalanceChange change{key, q.value(0).toString(), QString()};
        const qint64 sidesLeft = q.value(1).toLongLong() - it.value().sides;
        q.finish();
        if (sidesLeft > 0) {
            change.after = chain::amount::toString(
                chain::amount::fromString(change.before, QStringLiteral("token_balances.balance")) -
                it.value().amount);
            m_db.runCached(
                QStringLiteral("UPDATE balance_store SET balance = ?, transfer_sides = ?, "
                               "updated_at_block = min(updated_at_block, ?) WHERE environment_id "
                               "= ? AND chain_id = ? AND contract = ? AND holder = ?"),
                {change.after, sidesLeft, qint64(forkBlock), m_env, qint64(m_chainId),
                 key.contractBlob(), key.holderBlob()});
        } else { // no transfer names the holder any more: no row (not a row of "0")
            m_db.runCached(QStringLiteral("DELETE FROM balance_store WHERE environment_id = ? AND "
                                          "chain_id = ? AND contract = ? AND holder = ?"),
                           {m_env, qint64(m_chainId), key.contractBlob(), key.holderBlob()});
        }
        if (change.before != change.after)
            changes.append(change);
    }
    return changes;
}

} // namespace forkscope::indexer
