#include "BalanceRevertPlan.h"
#include "chain/ChainParseError.h"
#include "chain/SignedAmount.h"
#include "chain/U256.h"
#include "store/Database.h"
#include "store/SqliteStatement.h"

#include <algorithm>
#include <string_view>

namespace forkscope::indexer {

namespace {

// A deep reorg touches most of the balances it walks past: a step to the next row of an
// ordered scan costs a fraction of a search from the B-tree's root. A key further ahead than
// this many rows is searched for instead, so a sparse set of holders costs one search each,
// as a SELECT per holder did.
constexpr int kMaxRowsSkipped = 8;

struct StoredRow
{
    QByteArray balance;
    qint64 sides = 0;
    qint64 updatedAt = 0;
    bool found = false;
};

// balance_store's row of each holder of `sorted` (merged: in the table's order), or
// found = false; one walk in key order.
std::vector<StoredRow> readRows(store::Database& db, const QByteArray& env, std::uint64_t chainId,
                                const HolderDeltas& sorted)
{
    std::vector<StoredRow> rows(sorted.size());
    if (sorted.isEmpty())
        return rows;
    store::SqliteStatement walk(
        db, "SELECT contract, holder, balance, transfer_sides, updated_at_block FROM "
            "balance_store WHERE environment_id = ?1 AND chain_id = ?2 AND "
            "(contract, holder) >= (?3, ?4) ORDER BY contract, holder");
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
        walk.bind(2, std::int64_t(chainId));
        walk.bindBytes(3, key.contract);
        walk.bindBytes(4, key.holder);
        return stepped();
    };
    // Whenever the rows end, no key from there on has a row: the keys are sorted.
    if (!seek(sorted.key(0)))
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

} // namespace

BalanceRevertPlan planBalanceRevert(store::Database& db, const QString& env, std::uint64_t chainId,
                                    HolderDeltas removed, std::uint64_t forkBlock)
{
    // Exact by invariant 3: each balance is the sum of its transfers, so taking the removed
    // ones' deltas back leaves the sum of those that remain.
    BalanceRevertPlan plan;
    removed.merge();
    plan.keys = std::move(removed);
    const HolderDeltas& keys = plan.keys;
    const std::vector<StoredRow> before = readRows(db, env.toUtf8(), chainId, keys);
    // Grown 1,550 times, its copies faulted in fresh memory.
    plan.changes.reserve(qsizetype(keys.size()));
    plan.rewrite.reserve(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
        if (!before[i].found)
            continue; // no row to take anything from; the invariant check reports the gap
        const HolderDelta& delta = keys.delta(i);
        BalanceChange change{keys.key(i), before[i].balance, QByteArray()};
        const qint64 sidesLeft = before[i].sides - delta.sides;
        if (sidesLeft > 0) {
            change.after = QByteArray::fromStdString(
                (chain::amount::fromString(change.before.constData(), int(change.before.size()),
                                           QStringLiteral("token_balances.balance")) -
                 delta.amount)
                    .str());
            plan.rewrite.push_back(
                {i, change.after, sidesLeft, std::min(before[i].updatedAt, qint64(forkBlock))});
        } else {
            plan.drop.push_back(i);
        }
        if (change.before != change.after)
            plan.changes.append(std::move(change));
    }
    return plan;
}

BalanceRevertPlan planRollbackBalances(store::Database& db, const QString& env,
                                       std::uint64_t chainId, qint64 above)
{
    // What the removed Transfers added to each holder: the balances are reverted by exactly
    // that. Contract v4: a Transfer is a log_store row with a value; its parties are the low
    // 20 bytes of topics 1 and 2.
    HolderDeltas removed;
    qint64 count = 0;
    {
        store::SqliteStatement q(db, "SELECT address, substr(topic1, 13), substr(topic2, 13), "
                                     "transfer_value, block_number FROM log_store WHERE "
                                     "environment_id = ?1 AND chain_id = ?2 AND block_number > "
                                     "?3 AND transfer_value IS NOT NULL");
        q.bind(1, env.toUtf8());
        q.bind(2, std::int64_t(chainId));
        q.bind(3, std::int64_t(above));
        while (q.next()) {
            ++count;
            const auto contract = q.fixedBytes<chain::Address>(0, "log_store.address");
            const auto from = q.fixedBytes<chain::Address>(1, "log_store.topic1");
            const auto to = q.fixedBytes<chain::Address>(2, "log_store.topic2");
            const QByteArray value = q.text(3);
            const SignedAmount v(chain::u256::fromDecimal(
                std::string_view(value.constData(), std::size_t(value.size())),
                QStringLiteral("transfer_events.value")));
            const auto block = std::uint64_t(q.int64(4));
            if (!from.isZero())
                removed.addSide(HolderKey{contract, from}, -v, block);
            if (!to.isZero())
                removed.addSide(HolderKey{contract, to}, v, block);
        }
    }
    BalanceRevertPlan plan = planBalanceRevert(db, env, chainId, std::move(removed),
                                               std::uint64_t(std::max<qint64>(above, 0)));
    plan.transfersRead = count;
    return plan;
}

} // namespace forkscope::indexer
