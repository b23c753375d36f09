#include "BalanceBook.h"
#include "chain/ChainParseError.h"
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
        QStringLiteral("SELECT balance FROM token_balances WHERE environment_id = ? AND "
                       "chain_id = ? AND contract = ? AND holder = ?"),
        {m_env, qint64(m_chainId), key.contract, key.holder});
    std::optional<QString> out;
    if (q.next())
        out = q.value(0).toString();
    q.finish();
    return out;
}

void BalanceBook::apply(const QHash<HolderKey, SignedAmount>& deltas, std::uint64_t atBlock)
{
    // One upsert per holder; the exact 256-bit addition runs inside SQLite
    // (forkscope_amount_add), so the old balance never makes a round trip through Qt.
    if (!m_upsertDelta)
        m_upsertDelta = std::make_unique<store::SqliteStatement>(
            m_db,
            "INSERT INTO token_balances (environment_id, chain_id, contract, holder, balance, "
            "updated_at_block) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
            "ON CONFLICT (environment_id, chain_id, contract, holder) DO UPDATE SET "
            "balance = forkscope_amount_add(token_balances.balance, excluded.balance), "
            "updated_at_block = excluded.updated_at_block");
    const QByteArray env = m_env.toUtf8();
    for (auto it = deltas.cbegin(); it != deltas.cend(); ++it) {
        m_upsertDelta->bind(1, env);
        m_upsertDelta->bind(2, std::int64_t(m_chainId));
        m_upsertDelta->bind(3, it.key().contract.toLatin1());
        m_upsertDelta->bind(4, it.key().holder.toLatin1());
        m_upsertDelta->bind(5, QByteArray::fromStdString(it.value().str()));
        m_upsertDelta->bind(6, std::int64_t(atBlock));
        m_upsertDelta->execute();
    }
}

QList<BalanceChange> BalanceBook::recompute(const QList<HolderKey>& holders)
{
    QList<BalanceChange> changes;
    for (const HolderKey& key : holders) {
        const auto before = current(key);
        SignedAmount sum = 0;
        bool any = false;
        std::uint64_t lastBlock = 0;
        QSqlQuery& q = m_db.runCached(
            QStringLiteral("SELECT value, from_addr, to_addr, block_number FROM transfer_events "
                           "WHERE environment_id = ? AND chain_id = ? AND contract = ? AND "
                           "(from_addr = ? OR to_addr = ?)"),
            {m_env, qint64(m_chainId), key.contract, key.holder, key.holder});
        while (q.next()) {
            any = true;
            const SignedAmount v(chain::u256::fromDecimal(q.value(0).toString(),
                                                          QStringLiteral("transfer_events.value")));
            // Received minus sent; a self-transfer matches both sides and nets to zero.
            if (q.value(1).toString() == key.holder)
                sum -= v;
            if (q.value(2).toString() == key.holder)
                sum += v;
            lastBlock = std::max<std::uint64_t>(lastBlock, q.value(3).toULongLong());
        }
        q.finish();

        BalanceChange change{key, before.value_or(QString()), QString()};
        if (any) {
            change.after = chain::amount::toString(sum);
            m_db.runCached(
                QStringLiteral(
                    "INSERT INTO token_balances (environment_id, chain_id, contract, holder, "
                    "balance, updated_at_block) VALUES (?, ?, ?, ?, ?, ?) "
                    "ON CONFLICT (environment_id, chain_id, contract, holder) DO UPDATE SET "
                    "balance = excluded.balance, updated_at_block = excluded.updated_at_block"),
                {m_env, qint64(m_chainId), key.contract, key.holder, change.after,
                 qint64(lastBlock)});
        } else {
            m_db.runCached(QStringLiteral("DELETE FROM token_balances WHERE environment_id = ? AND "
                                          "chain_id = ? AND contract = ? AND holder = ?"),
                           {m_env, qint64(m_chainId), key.contract, key.holder});
        }
        if (change.before != change.after)
            changes.append(change);
    }
    return changes;
}

} // namespace forkscope::indexer
