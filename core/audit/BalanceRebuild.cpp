#include "BalanceRebuild.h"
#include "chain/SignedAmount.h"
#include "chain/U256.h"
#include "store/Database.h"

#include <QHash>
#include <QSqlQuery>

namespace forkscope::audit {

namespace {
const QString kZeroAddress = QStringLiteral("0x0000000000000000000000000000000000000000");

struct Sum
{
    chain::SignedAmount amount = 0;
    qint64 sides = 0;
    qint64 lastBlock = 0;
};
} // namespace

QList<indexer::BalanceChange> rebuildBalances(store::Database& db, const QString& env,
                                              std::uint64_t chainId)
{
    const QVariantList scope{env, qint64(chainId)};
    QHash<indexer::HolderKey, Sum> sums;
    {
        QSqlQuery q = db.run(QStringLiteral("SELECT contract, from_addr, to_addr, value, "
                                            "block_number FROM transfer_events WHERE "
                                            "environment_id = ? AND chain_id = ?"),
                             scope);
        while (q.next()) {
            const QString contract = q.value(0).toString();
            const chain::SignedAmount v(chain::u256::fromDecimal(
                q.value(3).toString(), QStringLiteral("transfer_events.value")));
            const qint64 block = q.value(4).toLongLong();
            const auto side = [&](const QString& holder, const chain::SignedAmount& delta) {
                if (holder == kZeroAddress)
                    return;
                Sum& s = sums[indexer::HolderKey::fromHex(contract, holder)];
                s.amount += delta;
                ++s.sides;
                s.lastBlock = std::max(s.lastBlock, block);
            };
            side(q.value(1).toString(), -v);
            side(q.value(2).toString(), v);
        }
    }

    QList<indexer::BalanceChange> changes;
    QSet<indexer::HolderKey> seen;
    {
        QSqlQuery q = db.run(QStringLiteral("SELECT contract, holder, balance, transfer_sides "
                                            "FROM token_balances WHERE environment_id = ? AND "
                                            "chain_id = ?"),
                             scope);
        while (q.next()) {
            const auto key =
                indexer::HolderKey::fromHex(q.value(0).toString(), q.value(1).toString());
            seen.insert(key);
            const auto it = sums.constFind(key);
            const QByteArray before = q.value(2).toString().toLatin1();
            if (it == sums.cend()) {
                changes.append({key, before, QByteArray()});
                continue;
            }
            const QByteArray after = chain::amount::toString(it->amount).toLatin1();
            if (after != before || q.value(3).toLongLong() != it->sides)
                changes.append({key, before, after});
        }
    }
    for (auto it = sums.cbegin(); it != sums.cend(); ++it)
        if (!seen.contains(it.key()))
            changes.append(
                {it.key(), QByteArray(), chain::amount::toString(it->amount).toLatin1()});

    for (const indexer::BalanceChange& c : changes) {
        const QVariantList key =
            scope + QVariantList{c.key.contract.toByteArray(), c.key.holder.toByteArray()};
        if (c.after.isEmpty()) {
            db.run(QStringLiteral("DELETE FROM balance_store WHERE environment_id = ? AND "
                                  "chain_id = ? AND contract = ? AND holder = ?"),
                   key);
            continue;
        }
        const Sum& s = sums[c.key];
        // The balance bound as a QString: a QByteArray would be stored as a BLOB.
        db.run(QStringLiteral("INSERT INTO balance_store (environment_id, chain_id, contract, "
                              "holder, balance, updated_at_block, transfer_sides) VALUES (?, ?, "
                              "?, ?, ?, ?, ?) ON CONFLICT (environment_id, chain_id, contract, "
                              "holder) DO UPDATE SET balance = excluded.balance, updated_at_block "
                              "= excluded.updated_at_block, transfer_sides = "
                              "excluded.transfer_sides"),
               key + QVariantList{QString::fromLatin1(c.after), s.lastBlock, s.sides});
    }
    return changes;
}

} // namespace forkscope::audit
