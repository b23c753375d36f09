#include "PgBalances.h"
#include "PgConnection.h"

#include <QString>

#include <algorithm>

namespace forkscope::store::pg {

namespace {

// The zero address, which is no holder (a mint's sender, a burn's recipient).
constexpr const char* kZeroHolder = "'\\x0000000000000000000000000000000000000000'::bytea";

// Each Transfer's two sides in blocks ($lo, $hi] (the parameters' numbers), as (contract,
// holder, delta, block_number), the zero address included.
QByteArray sidesIn(const char* lo, const char* hi)
{
    const QByteArray range = QByteArray("s.environment_id = $1 AND s.chain_id = $2 AND "
                                        "s.transfer_value IS NOT NULL AND s.block_number > ") +
                             lo + " AND s.block_number <= " + hi;
    return "SELECT s.address AS contract, substr(s.topic2, 13) AS holder, s.transfer_value AS "
           "delta, s.block_number FROM log_store s WHERE " +
           range +
           " UNION ALL SELECT s.address, substr(s.topic1, 13), -s.transfer_value, "
           "s.block_number FROM log_store s WHERE " +
           range;
}

// A grouped (contract, holder, balance, updated_at_block, transfer_sides) row added to the
// stored one: how every fold and added contract's batch writes balance_store.
constexpr const char* kAddToStored =
    " ON CONFLICT (environment_id, chain_id, contract, holder) DO UPDATE SET balance = "
    "balance_store.balance + excluded.balance, updated_at_block = "
    "greatest(balance_store.updated_at_block, excluded.updated_at_block), transfer_sides = "
    "balance_store.transfer_sides + excluded.transfer_sides";

// `sides`: the holders' sides in blocks ($3, $4], then the caller's CTEs and statement.
QByteArray with(const char* cte, const char* rest)
{
    return "WITH sides AS (SELECT contract, holder, delta, block_number FROM (" +
           sidesIn("$3", "$4") + ") t WHERE holder <> " + kZeroHolder + ')' + cte + ' ' + rest;
}

} // namespace

namespace {

// One text array of a batch's column, in PostgreSQL's array syntax.
template <typename Each> QByteArray textArray(std::size_t n, Each each)
{
    QByteArray out;
    out.reserve(qsizetype(n) * 44 + 2);
    out += '{';
    for (std::size_t i = 0; i < n; ++i) {
        if (i)
            out += ',';
        out += each(i);
    }
    out += '}';
    return out;
}

// The sides of the blocks of gaps $g, $g+1 (bigint arrays, each gap (lo, hi]) from
// log_store, and the deltas $g+2 to $g+6 (contract and holder as hex, amount, sides, last
// block) as they are: (contract, holder, delta, sides, last).
QByteArray partsSides(int g)
{
    const auto p = [g](int k) -> QByteArray { return "$" + QByteArray::number(g + k); };
    return "SELECT contract, holder, delta, 1::bigint AS sides, block_number AS last FROM "
           "unnest(" +
           p(0) + "::bigint[], " + p(1) + "::bigint[]) AS g(lo, hi) CROSS JOIN LATERAL (" +
           sidesIn("g.lo", "g.hi") + ") t WHERE holder <> " + kZeroHolder +
           " UNION ALL SELECT decode(u.c, 'hex'), decode(u.h, 'hex'), u.d, u.n, u.b FROM unnest(" +
           p(2) + "::text[], " + p(3) + "::text[], " + p(4) + "::numeric[], " + p(5) +
           "::bigint[], " + p(6) + "::bigint[]) AS u(c, h, d, n, b)";
}

// partsSides' seven parameters, or insertDeltas' five when there are no gaps.
QList<QByteArray> partsParams(const FoldParts& parts)
{
    const indexer::HolderDeltas& d = parts.deltas;
    const std::size_t n = d.size();
    const auto gapEnd = [&](bool hi) {
        return textArray(std::size_t(parts.gaps.size()), [&](std::size_t i) {
            const auto& g = parts.gaps.at(qsizetype(i));
            return QByteArray::number(hi ? g.second : g.first);
        });
    };
    QList<QByteArray> params;
    if (!parts.gaps.isEmpty())
        params << gapEnd(false) << gapEnd(true);
    params << textArray(n, [&](std::size_t i) { return d.key(i).contract.toByteArray().toHex(); });
    params << textArray(n, [&](std::size_t i) { return d.key(i).holder.toByteArray().toHex(); });
    params << textArray(n,
                        [&](std::size_t i) { return QByteArray(d.delta(i).amount.str().c_str()); });
    params << textArray(n, [&](std::size_t i) { return QByteArray::number(d.delta(i).sides); });
    params << textArray(
        n, [&](std::size_t i) { return QByteArray::number(qulonglong(d.delta(i).lastBlock)); });
    return params;
}

// The deltas $g to $g+4 added to balance_store as they are, in the order sent. Without gaps
// a fold's deltas are already one row per holder, summed and in balance_store's key order
// (HolderDeltas), so it needs neither partsSides' grouping nor a sort: a quarter of the
// fold's server time. The order still takes the rows' locks as every other writer does.
QByteArray insertDeltas(int g, const char* where)
{
    const auto p = [g](int k) -> QByteArray { return "$" + QByteArray::number(g + k); };
    return "INSERT INTO balance_store (environment_id, chain_id, contract, holder, balance, "
           "updated_at_block, transfer_sides) SELECT $1, $2, decode(u.c, 'hex'), decode(u.h, "
           "'hex'), u.d, u.b, u.n FROM unnest(" +
           p(0) + "::text[], " + p(1) + "::text[], " + p(2) + "::numeric[], " + p(3) +
           "::bigint[], " + p(4) + "::bigint[]) WITH ORDINALITY AS u(c, h, d, n, b, o) " + where +
           " ORDER BY u.o" + kAddToStored;
}

// The sides CTE's rows (those `where` keeps) grouped per holder and added to balance_store.
QByteArray insertGrouped(const char* where)
{
    return QByteArray("INSERT INTO balance_store (environment_id, chain_id, contract, holder, "
                      "balance, updated_at_block, transfer_sides) SELECT $1, $2, contract, "
                      "holder, sum(delta), max(last), sum(sides)::bigint FROM sides ") +
           where + " GROUP BY contract, holder ORDER BY contract, holder" + kAddToStored;
}

// `parts` added to balance_store (the parameters from $g, as partsParams gives them):
// partsSides grouped when some blocks are read from log_store (`gaps`), insertDeltas
// otherwise. `lead` starts the sides CTE: "WITH " or ", " after the caller's own.
QByteArray addPartsSql(int g, const char* where, bool gaps, const char* lead)
{
    if (!gaps)
        return ' ' + insertDeltas(g, where);
    return lead + ("sides AS (" + partsSides(g) + ") ") + insertGrouped(where);
}

} // namespace

FoldParts foldParts(qint64 above, qint64 upTo, const QList<const BatchBalances*>& spans)
{
    FoldParts parts;
    if (spans.size() == 1) {
        parts.deltas = spans.first()->deltas;
    } else {
        std::vector<const indexer::HolderDeltas*> each;
        for (const BatchBalances* b : spans)
            each.push_back(&b->deltas);
        parts.deltas = indexer::HolderDeltas::sumOfMerged(each);
    }
    qint64 at = above; // every block up to here is in a span or a gap
    for (const BatchBalances* b : spans) {
        if (b->first - 1 > at)
            parts.gaps.append({at, b->first - 1});
        at = b->last;
    }
    if (upTo > at)
        parts.gaps.append({at, upTo});
    return parts;
}

void addBalances(PgConnection& db, const QByteArray& env, const QByteArray& chain, qint64 above,
                 qint64 upTo, const BatchBalances& batch)
{
    if (upTo <= above)
        return;
    // A batch outside the blocks is none of theirs: they are all read from log_store.
    const bool inside = batch.first > above && batch.last <= upTo && batch.first <= batch.last;
    const FoldParts parts = foldParts(
        above, upTo, inside ? QList<const BatchBalances*>{&batch} : QList<const BatchBalances*>{});
    static const QByteArray grouped = addPartsSql(3, "", true, "WITH ");
    static const QByteArray deltas = addPartsSql(3, "", false, "WITH ");
    const bool gaps = !parts.gaps.isEmpty();
    db.run(gaps ? "balances_add" : "balances_add_deltas", (gaps ? grouped : deltas).constData(),
           QList<QByteArray>{env, chain} + partsParams(parts));
}

void addContractBalances(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                         const QByteArray& contract, qint64 above, qint64 upTo)
{
    if (upTo <= above)
        return;
    static const QByteArray sql =
        with("", "INSERT INTO balance_store (environment_id, chain_id, contract, holder, "
                 "balance, updated_at_block, transfer_sides) SELECT $1, $2, contract, holder, "
                 "sum(delta), max(block_number), count(*) FROM sides WHERE contract = $5::bytea "
                 "GROUP BY contract, holder ORDER BY contract, holder") +
        kAddToStored;
    db.run("balances_add_contract", sql.constData(),
           {env, chain, QByteArray::number(above), QByteArray::number(upTo), contract});
}

qint64 revertBalances(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                      qint64 reorgId, qint64 fork, qint64 checkpoint)
{
    if (checkpoint <= fork)
        return 0;
    const QList<QByteArray> params{env, chain, QByteArray::number(fork),
                                   QByteArray::number(checkpoint), QByteArray::number(reorgId)};
    // What each holder's removed Transfers added; a holder whose sum does not change keeps
    // its row as it was and is no change (as SQLite records it).
    static const QByteArray diff =
        with(", d AS (SELECT contract, holder, sum(delta) AS delta, count(*) AS sides FROM sides "
             "GROUP BY contract, holder)",
             "INSERT INTO reorg_diff_store (reorg_id, environment_id, chain_id, kind, contract, "
             "holder, before_value, after_value) SELECT $5::bigint, $1, $2::bigint, "
             "'balance_changed', b.contract, b.holder, b.balance::text, CASE WHEN "
             "b.transfer_sides > d.sides THEN (b.balance - d.delta)::text END FROM d JOIN "
             "balance_store b ON b.environment_id = $1 AND b.chain_id = $2 AND b.contract = "
             "d.contract AND b.holder = d.holder WHERE b.transfer_sides <= d.sides OR d.delta <> "
             "0 ORDER BY b.contract, b.holder");
    const qint64 changed = db.run("balances_revert_diff", diff.constData(), params).affected();
    static const QByteArray revert =
        with(", d AS (SELECT contract, holder, sum(delta) AS delta, count(*) AS sides FROM sides "
             "GROUP BY contract, holder)",
             "UPDATE balance_store b SET balance = b.balance - d.delta, transfer_sides = "
             "b.transfer_sides - d.sides, updated_at_block = least(b.updated_at_block, "
             "greatest($3::bigint, 0)) FROM d WHERE b.environment_id = $1 AND b.chain_id = $2 "
             "AND b.contract = d.contract AND b.holder = d.holder");
    db.run("balances_revert", revert.constData(), params.mid(0, 4));
    db.run("balances_drop_empty",
           "DELETE FROM balance_store WHERE environment_id = $1 AND chain_id = $2 AND "
           "transfer_sides <= 0",
           {env, chain});
    return changed;
}

qint64 rebuildBalances(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                       qint64 reorgId, qint64 checkpoint)
{
    // What every holder's Transfers up to the checkpoint sum to; each stored row that
    // differs (or should not be, or is missing) is one correction, as SQLite's rebuild makes
    // them (audit/BalanceRebuild.h).
    constexpr const char* kWant =
        ", w AS (SELECT contract, holder, sum(delta) AS balance, count(*) AS sides, "
        "max(block_number) AS last FROM sides GROUP BY contract, holder)";
    static const QByteArray diff =
        with(", w AS (SELECT contract, holder, sum(delta) AS balance, count(*) AS sides, "
             "max(block_number) AS last FROM sides GROUP BY contract, holder)",
             "INSERT INTO reorg_diff_store (reorg_id, environment_id, chain_id, kind, contract, "
             "holder, before_value, after_value) SELECT $5::bigint, $1, $2::bigint, "
             "'balance_changed', coalesce(w.contract, b.contract), coalesce(w.holder, "
             "b.holder), b.balance::text, w.balance::text FROM w FULL JOIN (SELECT * FROM "
             "balance_store WHERE environment_id = $1 AND chain_id = $2) b ON b.contract = "
             "w.contract AND b.holder = w.holder WHERE b.balance IS DISTINCT FROM w.balance OR "
             "b.transfer_sides IS DISTINCT FROM w.sides ORDER BY 5, 6");
    const QList<QByteArray> params{env, chain, QByteArray::number(-1),
                                   QByteArray::number(checkpoint), QByteArray::number(reorgId)};
    const qint64 fixed = db.run("balances_rebuild_diff", diff.constData(), params).affected();
    if (fixed == 0)
        return 0;
    static const QByteArray drop =
        with(kWant, "DELETE FROM balance_store b WHERE b.environment_id = $1 AND b.chain_id = $2 "
                    "AND NOT EXISTS (SELECT 1 FROM w WHERE w.contract = b.contract AND w.holder "
                    "= b.holder)");
    db.run("balances_rebuild_drop", drop.constData(), params.mid(0, 4));
    static const QByteArray put =
        with(kWant, "INSERT INTO balance_store (environment_id, chain_id, contract, holder, "
                    "balance, updated_at_block, transfer_sides) SELECT $1, $2, contract, holder, "
                    "balance, last, sides FROM w ORDER BY contract, holder ON CONFLICT "
                    "(environment_id, chain_id, contract, holder) DO UPDATE SET balance = "
                    "excluded.balance, updated_at_block = excluded.updated_at_block, "
                    "transfer_sides = excluded.transfer_sides WHERE balance_store.balance <> "
                    "excluded.balance OR balance_store.transfer_sides <> "
                    "excluded.transfer_sides");
    db.run("balances_rebuild_put", put.constData(), params.mid(0, 4));
    return fixed;
}

QByteArray pendingBalancesSql()
{
    // One checkpoint row per environment's chain: an environment indexes one source.
    constexpr const char* kPendingSides =
        "SELECT s.environment_id, s.chain_id, s.address AS contract, substr(s.topic%1, 13) AS "
        "holder, %2s.transfer_value AS delta, s.block_number FROM log_store s JOIN "
        "balance_fold_store f ON f.environment_id = s.environment_id AND f.chain_id = "
        "s.chain_id AND s.block_number > f.balances_block JOIN checkpoint_store c ON "
        "c.environment_id = s.environment_id AND c.chain_id = s.chain_id AND s.block_number <= "
        "c.block_number WHERE s.transfer_value IS NOT NULL";
    const QString sides = QString::fromLatin1(kPendingSides);
    return "SELECT t.environment_id, t.chain_id, t.contract, t.holder, sum(t.delta) AS delta, "
           "max(t.block_number) AS last, count(*) AS sides FROM (" +
           sides.arg(2).arg(QString()).toLatin1() + " UNION ALL " +
           sides.arg(1).arg(QLatin1Char('-')).toLatin1() + ") t WHERE t.holder <> " + kZeroHolder +
           " GROUP BY t.environment_id, t.chain_id, t.contract, t.holder";
}

QList<QByteArray> foldIfStillParams(const GatedFold& fold, const FoldChecks& checked,
                                    const FoldParts& parts)
{
    const auto list = [](qsizetype n, const auto& each) {
        return textArray(std::size_t(n), [&](std::size_t i) { return each(qsizetype(i)); });
    };
    return QList<QByteArray>{
               fold.env,
               fold.chain,
               QByteArray::number(fold.from),
               QByteArray::number(fold.upTo),
               QByteArray::number(fold.epoch),
               list(checked.blocks.size(),
                    [&](qsizetype i) { return QByteArray::number(checked.blocks[i]); }),
               list(checked.xmins.size(), [&](qsizetype i) { return checked.xmins[i]; })} +
           partsParams(parts);
}

namespace {

// The gated fold, its parts added as addPartsSql adds them.
QByteArray gatedFoldSql(bool gaps)
{
    return "WITH gate AS (UPDATE balance_fold_store SET balances_block = $4, epoch = epoch + 1 "
           "WHERE environment_id = $1 AND chain_id = $2 AND balances_block = $3 AND epoch = $5 "
           "AND $4 <= (SELECT max(c.block_number) FROM checkpoint_store c WHERE "
           "c.environment_id = $1 AND c.chain_id = $2) AND NOT EXISTS (SELECT 1 FROM "
           "unnest($6::bigint[], $7::xid[]) AS k(b, x) WHERE NOT EXISTS (SELECT 1 FROM "
           "block_store bs WHERE bs.environment_id = $1 AND bs.chain_id = $2 AND "
           "bs.block_number = k.b AND bs.xmin = k.x)) RETURNING 1)" +
           addPartsSql(8, "WHERE EXISTS (SELECT 1 FROM gate)", gaps, ", ");
}

} // namespace

const char* foldIfStillName(const FoldParts& parts)
{
    return parts.gaps.isEmpty() ? "folds_if_still_deltas" : "folds_if_still";
}

QByteArray foldIfStillSql(const FoldParts& parts)
{
    static const QByteArray grouped = gatedFoldSql(true);
    static const QByteArray deltas = gatedFoldSql(false);
    return parts.gaps.isEmpty() ? deltas : grouped;
}

bool foldsNow(bool atTheHead, qint64 folded, qint64 upTo, const FoldWait& wait, qint64 foldAfter)
{
    if (atTheHead || upTo <= folded || wait.counted >= foldAfter)
        return true;
    // Wide, to stay exact: a billion blocks of a thousand Transfers each fits.
    const __int128 estimated = __int128(upTo - folded) * std::max<qint64>(wait.transfers, 0);
    return estimated >= __int128(foldAfter) * std::max<qint64>(wait.blocks, 1);
}

} // namespace forkscope::store::pg
