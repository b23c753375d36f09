#pragma once

#include "AddedSource.h"

#include <QList>

namespace forkscope::store {
class Database;
}

namespace forkscope::indexer {

// The contracts added to an environment on a SQLite file (source_store, source_range_store:
// store/SourcesContract.h). Every write runs inside the caller's transaction where there is
// one, so a source's checkpoint moves with its rows, and goes back with a rollback's.
class SourceBook
{
public:
    SourceBook(store::Database& db, QString environmentId, std::uint64_t chainId);

    QList<AddedSource> list();
    // Records `address` as pending from `startBlock` (a factory with its rule); false when it
    // is already recorded.
    bool add(const chain::Address& address, std::uint64_t startBlock, const QString& factoryRule);
    // Moves the source's checkpoint from where `expected` has it to `to`/`hash` and records
    // the range `from`..`to` done. Throws CheckpointMovedError when it is no longer there.
    void advance(const AddedSource& expected, std::uint64_t from, std::uint64_t to,
                 const chain::Hash32& hash);
    // The source joins the environment's contract set at `cp`. Throws CheckpointMovedError
    // unless it is pending with exactly that checkpoint.
    void join(const chain::Address& address, const Checkpoint& cp);
    // A rollback to `above` (the fork block, or the start block - 1) with the fork's hash:
    // pending checkpoints above it go back to it (or to nothing below their start block),
    // and their ranges above it are given back to be fetched again. Returns the sources
    // moved.
    int rollBackAbove(qint64 above, const chain::Hash32& forkHash);

private:
    store::Database& m_db;
    QString m_env;
    std::uint64_t m_chainId;
};

} // namespace forkscope::indexer
