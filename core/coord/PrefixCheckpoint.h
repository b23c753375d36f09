#pragma once

#include "chain/Hash32.h"

#include <QString>
#include <optional>

namespace forkscope::store::pg {
class PgConnection;
}

namespace forkscope::coord {

struct StoredCheckpoint
{
    qint64 blockNumber = 0;
    chain::Hash32 blockHash;
    qint64 version = 0; // the compare-and-swap token, bumped by every move
};

// The one checkpoint of an environment on a shared database (docs/design.md, "The
// checkpoint is a claim about a finished prefix"). It moves only across the contiguous
// prefix of finished backfill ranges above it whose hashes chain on (each range's parent
// hash is the previous range's last hash), and only by compare-and-swap on its version:
// two processes that finish ranges at once both try, one wins, the other re-reads and finds
// nothing (or more) left to do. A range that is missing, running, failed or does not chain
// on stops the checkpoint below it: a reader never sees a block as indexed while one below
// it is not (invariant 1).
class PrefixCheckpoint
{
public:
    PrefixCheckpoint(store::pg::PgConnection& db, QString environmentId, qint64 chainId,
                     QString sourceId);

    // Creates the checkpoint at the block before the first one to index, if there is none.
    void initialise(qint64 blockNumber, const chain::Hash32& blockHash);

    std::optional<StoredCheckpoint> read();

    // Advances across the finished prefix. Returns the checkpoint after the attempt (moved
    // by this call, by another process, or not at all). Commits on its own.
    StoredCheckpoint advance();

    // Moves the checkpoint from `from` to (block, hash), either way, only if its version
    // is still from's: false when another writer moved it meanwhile. For a writer that
    // moves it inside its own data transaction (the head follower, and its rollbacks).
    bool swap(const StoredCheckpoint& from, qint64 block, const chain::Hash32& hash);

    // Where the contiguous prefix of finished, chained ranges above `from` ends (its last
    // block and hash), nullopt when none follows it.
    std::optional<std::pair<qint64, chain::Hash32>> prefixEnd(const StoredCheckpoint& from);

    // How many compare-and-swaps this object lost to another process (diagnostics, tests).
    int lostRaces() const { return m_lostRaces; }

private:
    store::pg::PgConnection& m_db;
    QByteArray m_env;
    QByteArray m_chain;
    QByteArray m_source;
    int m_lostRaces = 0;
};

} // namespace forkscope::coord
