#pragma once

#include <QString>
#include <cstdint>
#include <stdexcept>

namespace forkscope::indexer {

class IndexerError : public std::runtime_error
{
public:
    explicit IndexerError(const QString& message) : std::runtime_error(message.toStdString()) {}
    QString message() const { return QString::fromUtf8(what()); }
};

// The chain diverged from the stored checkpoint deeper than --max-reorg-depth. Indexing
// stops and nothing is deleted: a human decides (raise the limit, or a new environment).
class DeepReorgError : public IndexerError
{
public:
    DeepReorgError(std::uint64_t checkpoint, std::uint64_t maxDepth)
        : IndexerError(QStringLiteral("reorg deeper than --max-reorg-depth %1: no block from %2 "
                                      "down to %3 matches the node. Nothing was deleted; raise "
                                      "--max-reorg-depth to roll back further, or index into a "
                                      "new --env")
                           .arg(maxDepth)
                           .arg(checkpoint)
                           .arg(checkpoint > maxDepth ? checkpoint - maxDepth : 0)),
          checkpoint(checkpoint), maxDepth(maxDepth)
    {
    }
    std::uint64_t checkpoint;
    std::uint64_t maxDepth;
};

// The environment was recorded against another chain (the devnet was reset, or --rpc
// points elsewhere). Continuing would mix two histories.
class ChainResetError : public IndexerError
{
public:
    using IndexerError::IndexerError;
};

// The run names other contracts than the checkpoint covers: continuing would leave the
// added contracts' logs below the checkpoint missing (and the removed ones' rows stale).
class ContractSetChangedError : public IndexerError
{
public:
    using IndexerError::IndexerError;
};

// An archived environment is read-only history.
class EnvironmentArchivedError : public IndexerError
{
public:
    using IndexerError::IndexerError;
};

// The checkpoint changed under us (another writer). Not fatal: re-read and decide again.
class CheckpointMovedError : public IndexerError
{
public:
    using IndexerError::IndexerError;
};

// The checkpoint was written by another projection generation.
class GenerationMismatchError : public IndexerError
{
public:
    using IndexerError::IndexerError;
};

} // namespace forkscope::indexer

namespace forkscope::indexer {

// The node has not reached (or no longer serves) a block the indexer needs: it is lagging
// or syncing. Not evidence of a reorg; wait and ask again (false reorgs from lagging nodes
// corrupt indexers that treat `null` as "gone").
class NodeBehindError : public IndexerError
{
public:
    using IndexerError::IndexerError;
};

// The node's answers contradict each other or the request: a header whose parent is not
// the block the same node serves below it, logs whose block hash is not their header's, a
// log nobody asked for. That is the node's fault, not a reorg of stored data: nothing from
// the batch is committed, nothing stored is rolled back, and the round is retried with a
// growing backoff while the node is shown as inconsistent.
class NodeInconsistentError : public IndexerError
{
public:
    using IndexerError::IndexerError;
};

} // namespace forkscope::indexer
