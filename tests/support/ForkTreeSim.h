#pragma once

#include "forktree/ForkTreeWindow.h"

#include <QMap>
#include <QString>
#include <QVector>

namespace forkscope::lab {

// The fork tree's store side in miniature, for the tree's tests: commits, rollbacks and node
// polls change it as the indexer and the health poll change the store, and window() reads it
// back as the reader does (every spine block up to kFullSpan blocks, only those near
// something to see beyond). A script drives it, one step per ';':
//   commit N                 N new blocks on the spine
//   rollback F REASON        the spine above F leaves as a branch (hash|parent|absence|repair)
//   repair F                 a repair's rollback to F, the same blocks indexed again
//   poll NODE N              NODE's head is the spine block N
//   own NODE N               NODE's head is a block at N on no branch we know
//   prune K                  retention drops the branches of rollbacks 1..K
class ForkTreeSim
{
public:
    static constexpr quint64 kFullSpan = 4096;
    static constexpr quint64 kNear = 4;

    ForkTreeSim();
    // Runs a script; a step it cannot read fails the calling test through its return value.
    bool run(const QString& script, QString* error = nullptr);

    void commit(int n);
    qint64 rollback(quint64 forkPoint, forktree::BranchReason reason);
    void repair(quint64 forkPoint);
    void poll(const QString& node, quint64 number);
    void own(const QString& node, quint64 number);
    void prune(qint64 upToReorg);

    quint64 head() const { return m_spine.isEmpty() ? 0 : m_spine.back().number; }
    const QVector<forktree::TreeBlock>& spine() const { return m_spine; }
    const QVector<forktree::OrphanBranch>& branches() const { return m_branches; }
    forktree::ForkTreeWindow window(quint64 from, quint64 to) const;
    // From block 0 to the head, or to the highest head a node reported.
    forktree::ForkTreeWindow window() const;

    // A storm: `reorgs` rollbacks of 1 to 12 blocks with random reasons, each followed by
    // 1 to 20 new blocks, the same for the same seed.
    static QString stormScript(quint32 seed, int reorgs);

    // A hash nobody else has: the simulator's blocks are numbered by a counter.
    chain::Hash32 freshHash();

private:
    QVector<forktree::TreeBlock> m_spine; // from block 0
    QVector<forktree::OrphanBranch> m_branches;
    QVector<forktree::NodeSighting> m_sightings;
    qint64 m_nextReorg = 1;
    quint64 m_nextHash = 1;
    qint64 m_clock = 0;
};

} // namespace forkscope::lab
