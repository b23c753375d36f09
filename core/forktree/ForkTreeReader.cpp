#include "ForkTreeReader.h"
#include "BranchReasonText.h"
#include "store/ContractReader.h"

#include <QDateTime>
#include <QSet>
#include <algorithm>

namespace forkscope::forktree {

namespace {

chain::Hash32 hashAt(const store::ContractRows& q, int column, const QString& field)
{
    return chain::Hash32::fromHex(q.value(column).toString(), field);
}

struct Span
{
    quint64 from = 0;
    quint64 to = 0;
};

// The parts of [from, to] within kSpineContext of a point, merged, ascending.
QList<Span> contextSpans(QList<quint64> points, quint64 from, quint64 to)
{
    std::sort(points.begin(), points.end());
    QList<Span> spans;
    for (const quint64 p : std::as_const(points)) {
        const quint64 lo = std::max(from, p > kSpineContext ? p - kSpineContext : 0);
        const quint64 hi = std::min(to, p + kSpineContext);
        if (lo > hi)
            continue;
        if (!spans.isEmpty() && lo <= spans.last().to + 1)
            spans.last().to = std::max(spans.last().to, hi);
        else
            spans.append({lo, hi});
    }
    return spans;
}

// The canonical blocks in `spans`, ascending, at most `max`; false when more.
bool readSpine(store::ContractReader& reader, const QString& env, const QList<Span>& spans, int max,
               QVector<TreeBlock>& out)
{
    constexpr qsizetype kSpansPerQuery = 64;
    for (qsizetype i = 0; i < spans.size(); i += kSpansPerQuery) {
        QStringList ranges;
        QVariantList args{env};
        for (qsizetype j = i; j < std::min(spans.size(), i + kSpansPerQuery); ++j) {
            ranges << QStringLiteral("block_number BETWEEN ? AND ?");
            args << qint64(spans[j].from) << qint64(spans[j].to);
        }
        args << qint64(max - out.size() + 1);
        const auto q = reader.query(QStringLiteral("SELECT block_number, block_hash, parent_hash "
                                                   "FROM blocks WHERE environment_id = ? AND (") +
                                        ranges.join(QStringLiteral(" OR ")) +
                                        QStringLiteral(") ORDER BY block_number LIMIT ?"),
                                    args);
        while (q->next()) {
            if (out.size() == max)
                return false;
            out.append({quint64(q->value(0).toLongLong()),
                        hashAt(*q, 1, QStringLiteral("blocks.block_hash")),
                        hashAt(*q, 2, QStringLiteral("blocks.parent_hash"))});
        }
    }
    return true;
}

// The branches with blocks in [from, to], newest rollback first, each with its blocks there.
bool readBranches(store::ContractReader& reader, const QString& env, quint64 from, quint64 to,
                  const ForkTreeBounds& bounds, QVector<OrphanBranch>& out)
{
    const auto q = reader.query(
        QStringLiteral("SELECT o.reorg_id, o.block_number, o.block_hash, o.parent_hash, "
                       "o.removed_at, e.reason, e.fork_block_number, e.fork_block_hash FROM "
                       "orphaned_blocks o JOIN reorg_events e ON e.id = o.reorg_id AND "
                       "e.environment_id = o.environment_id WHERE o.environment_id = ? AND "
                       "o.block_number BETWEEN ? AND ? ORDER BY o.reorg_id DESC, o.block_number "
                       "LIMIT ?"),
        {env, qint64(from), qint64(to), bounds.maxOrphanBlocks + 1});
    int blocks = 0;
    while (q->next()) {
        if (++blocks > bounds.maxOrphanBlocks)
            return false;
        const qint64 reorgId = q->value(0).toLongLong();
        if (out.isEmpty() || out.last().reorgId != reorgId) {
            if (out.size() == bounds.maxBranches)
                return false;
            OrphanBranch b;
            b.reorgId = reorgId;
            // A reason no rollback writes is shown as the checkpoint re-check's.
            b.reason =
                branchReasonFromText(q->value(5).toString()).value_or(BranchReason::HashMismatch);
            b.forkPoint = quint64(std::max<qint64>(q->value(6).toLongLong(), 0));
            // NULL when the rollback went below the first block: the first block's parent.
            b.forkHash = q->value(7).isNull()
                             ? hashAt(*q, 3, QStringLiteral("orphaned_blocks.parent_hash"))
                             : hashAt(*q, 7, QStringLiteral("reorg_events.fork_block_hash"));
            b.rolledBackAt = QDateTime::fromString(q->value(4).toString(), Qt::ISODateWithMs);
            out.append(b);
        }
        out.last().blocks.append({quint64(q->value(1).toLongLong()),
                                  hashAt(*q, 2, QStringLiteral("orphaned_blocks.block_hash")),
                                  hashAt(*q, 3, QStringLiteral("orphaned_blocks.parent_hash"))});
    }
    return true;
}

// The latest sighting of each node and head in [from, to], newest first.
bool readSightings(store::ContractReader& reader, const QString& env, quint64 from, quint64 to,
                   int max, QVector<NodeSighting>& out)
{
    const auto q = reader.query(
        QStringLiteral("SELECT node, block_number, block_hash, max(seen_at) FROM node_sightings "
                       "WHERE environment_id = ? AND block_number BETWEEN ? AND ? GROUP BY node, "
                       "block_number, block_hash ORDER BY 4 DESC, 1 LIMIT ?"),
        {env, qint64(from), qint64(to), max + 1});
    while (q->next()) {
        if (out.size() == max)
            return false;
        out.append({q->value(0).toString(), quint64(q->value(1).toLongLong()),
                    hashAt(*q, 2, QStringLiteral("node_sightings.block_hash")),
                    QDateTime::fromString(q->value(3).toString(), Qt::ISODateWithMs)});
    }
    return true;
}

// The environment's checkpoint, lowest block and rollback count, into `w`.
void readEnds(store::ContractReader& reader, const QString& environmentId, ForkTreeWindow& w)
{
    w.checkpoint = quint64(std::max<qint64>(
        0, reader.scalar(QStringLiteral("SELECT max(block_number) FROM indexer_checkpoints WHERE "
                                        "environment_id = ?"),
                         {environmentId})));
    w.firstBlock = quint64(std::max<qint64>(
        0, reader.scalar(QStringLiteral("SELECT min(block_number) FROM blocks WHERE "
                                        "environment_id = ?"),
                         {environmentId})));
    w.reorgCount = reader.scalar(QStringLiteral("SELECT count(DISTINCT reorg_id) FROM "
                                                "orphaned_blocks WHERE environment_id = ?"),
                                 {environmentId});
}

// The branches, sightings and spine of w.fromBlock..w.toBlock.
void readWindow(store::ContractReader& reader, const QString& environmentId,
                const ForkTreeBounds& bounds, ForkTreeWindow& w)
{
    bool whole = readBranches(reader, environmentId, w.fromBlock, w.toBlock, bounds, w.branches);
    whole = readSightings(reader, environmentId, w.fromBlock, w.toBlock, bounds.maxSightings,
                          w.sightings) &&
            whole;
    QList<Span> spans;
    if (w.toBlock - w.fromBlock < kFullSpineWindow) {
        spans.append({w.fromBlock, w.toBlock});
    } else {
        QList<quint64> points{w.fromBlock, w.toBlock};
        for (const OrphanBranch& b : std::as_const(w.branches))
            points << b.forkPoint;
        for (const NodeSighting& s : std::as_const(w.sightings))
            points << s.number;
        spans = contextSpans(points, w.fromBlock, w.toBlock);
    }
    whole =
        readSpine(reader, environmentId, spans, bounds.maxCanonicalBlocks, w.canonical) && whole;
    w.truncated = !whole;
}

} // namespace

ForkTreeWindow readForkTree(store::ContractReader& reader, const QString& environmentId,
                            const ForkTreeRequest& request, const ForkTreeBounds& bounds)
{
    ForkTreeWindow w;
    w.fromBlock = std::min(request.fromBlock, request.toBlock);
    w.toBlock = std::max(request.fromBlock, request.toBlock);
    const auto snapshot = reader.snapshot(); // spine, branches and heads: one state
    readEnds(reader, environmentId, w);
    readWindow(reader, environmentId, bounds, w);
    return w;
}

ForkTreeWindow readWholeForkTree(store::ContractReader& reader, const QString& environmentId,
                                 const ForkTreeBounds& bounds)
{
    ForkTreeWindow w;
    const auto snapshot = reader.snapshot();
    readEnds(reader, environmentId, w);
    w.fromBlock = std::min(w.firstBlock, w.checkpoint);
    w.toBlock = w.checkpoint;
    readWindow(reader, environmentId, bounds, w);
    return w;
}

} // namespace forkscope::forktree
