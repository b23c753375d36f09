#include "ForkTreeSim.h"

#include <QRandomGenerator>
#include <QStringList>
#include <algorithm>
#include <array>

namespace forkscope::lab {

using forktree::BranchReason;
using forktree::TreeBlock;

ForkTreeSim::ForkTreeSim()
{
    m_spine.append({0, freshHash(), chain::Hash32()});
}

chain::Hash32 ForkTreeSim::freshHash()
{
    std::array<std::uint8_t, 32> raw{};
    raw[0] = 0xf0;
    quint64 n = m_nextHash++;
    for (int i = 31; i >= 24; --i, n >>= 8)
        raw[i] = std::uint8_t(n & 0xff);
    return chain::Hash32::fromRaw(raw);
}

void ForkTreeSim::commit(int n)
{
    for (int i = 0; i < n; ++i) {
        const TreeBlock& top = m_spine.back();
        m_spine.append({top.number + 1, freshHash(), top.hash});
    }
}

qint64 ForkTreeSim::rollback(quint64 forkPoint, BranchReason reason)
{
    if (forkPoint >= head())
        return 0;
    forktree::OrphanBranch b;
    b.reorgId = m_nextReorg++;
    b.reason = reason;
    b.forkPoint = forkPoint;
    b.forkHash = m_spine[qsizetype(forkPoint)].hash;
    b.blocks = m_spine.mid(qsizetype(forkPoint) + 1);
    b.rolledBackAt = QDateTime::fromSecsSinceEpoch(1700000000 + ++m_clock, Qt::UTC);
    m_spine.resize(qsizetype(forkPoint) + 1);
    m_branches.append(b);
    return b.reorgId;
}

void ForkTreeSim::repair(quint64 forkPoint)
{
    const QVector<TreeBlock> again = m_spine.mid(qsizetype(forkPoint) + 1);
    rollback(forkPoint, BranchReason::Repair);
    m_spine += again;
}

void ForkTreeSim::poll(const QString& node, quint64 number)
{
    const TreeBlock& b = m_spine[qsizetype(std::min(number, head()))];
    m_sightings.append(
        {node, b.number, b.hash, QDateTime::fromSecsSinceEpoch(1700000000 + ++m_clock, Qt::UTC)});
}

void ForkTreeSim::own(const QString& node, quint64 number)
{
    m_sightings.append({node, number, freshHash(),
                        QDateTime::fromSecsSinceEpoch(1700000000 + ++m_clock, Qt::UTC)});
}

void ForkTreeSim::prune(qint64 upToReorg)
{
    m_branches.removeIf([&](const forktree::OrphanBranch& b) { return b.reorgId <= upToReorg; });
}

forktree::ForkTreeWindow ForkTreeSim::window(quint64 from, quint64 to) const
{
    forktree::ForkTreeWindow w;
    w.fromBlock = from;
    w.toBlock = to;
    w.checkpoint = head();
    w.firstBlock = 0;
    w.reorgCount = qint64(m_branches.size());
    QVector<quint64> interest{from, to};
    for (const forktree::OrphanBranch& b : m_branches) {
        const quint64 last = b.blocks.back().number;
        if (last < from || b.forkPoint > to)
            continue;
        w.branches.append(b);
        interest.append(b.forkPoint);
    }
    for (const forktree::NodeSighting& s : m_sightings) {
        if (s.number < from || s.number > to)
            continue;
        w.sightings.removeIf(
            [&](const forktree::NodeSighting& o) { return o.node == s.node && o.hash == s.hash; });
        w.sightings.append(s);
        interest.append(s.number);
    }
    const bool full = to - from <= kFullSpan;
    for (const TreeBlock& b : m_spine) {
        if (b.number < from || b.number > to)
            continue;
        const bool near = std::any_of(interest.begin(), interest.end(), [&](quint64 n) {
            return b.number + kNear >= n && b.number <= n + kNear;
        });
        if (full || near)
            w.canonical.append(b);
    }
    return w;
}

forktree::ForkTreeWindow ForkTreeSim::window() const
{
    quint64 top = head();
    for (const forktree::NodeSighting& s : m_sightings)
        top = std::max(top, s.number);
    return window(0, top);
}

QString ForkTreeSim::stormScript(quint32 seed, int reorgs)
{
    QRandomGenerator rng(seed);
    QStringList steps{QStringLiteral("commit 80")};
    quint64 head = 80;
    static const QStringList reasons{QStringLiteral("hash"), QStringLiteral("parent"),
                                     QStringLiteral("absence"), QStringLiteral("repair")};
    for (int i = 0; i < reorgs; ++i) {
        const quint64 depth = 1 + rng.bounded(12);
        const quint64 fork = head - std::min<quint64>(depth, head - 1);
        steps.append(QStringLiteral("rollback %1 %2").arg(fork).arg(reasons[rng.bounded(4)]));
        const int grow = 1 + int(rng.bounded(20));
        steps.append(QStringLiteral("commit %1").arg(grow));
        head = fork + quint64(grow);
    }
    return steps.join(QStringLiteral("; "));
}

bool ForkTreeSim::run(const QString& script, QString* error)
{
    const auto fail = [&](const QString& step) {
        if (error)
            *error = QStringLiteral("cannot read step: ") + step;
        return false;
    };
    for (const QString& raw : script.split(QLatin1Char(';'), Qt::SkipEmptyParts)) {
        const QString step = raw.trimmed();
        const QStringList w = step.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        if (w.isEmpty())
            continue;
        const QString& op = w[0];
        bool ok = true;
        if (op == QLatin1String("commit") && w.size() == 2) {
            commit(w[1].toInt(&ok));
        } else if (op == QLatin1String("rollback") && w.size() == 3) {
            static const QStringList reasons{QStringLiteral("hash"), QStringLiteral("parent"),
                                             QStringLiteral("absence"), QStringLiteral("repair")};
            const int r = int(reasons.indexOf(w[2]));
            ok = r >= 0 && rollback(w[1].toULongLong(), BranchReason(r)) > 0;
        } else if (op == QLatin1String("repair") && w.size() == 2) {
            repair(w[1].toULongLong(&ok));
        } else if (op == QLatin1String("poll") && w.size() == 3) {
            poll(w[1], w[2].toULongLong(&ok));
        } else if (op == QLatin1String("own") && w.size() == 3) {
            own(w[1], w[2].toULongLong(&ok));
        } else if (op == QLatin1String("prune") && w.size() == 2) {
            prune(w[1].toLongLong(&ok));
        } else {
            ok = false;
        }
        if (!ok)
            return fail(step);
    }
    return true;
}

} // namespace forkscope::lab
