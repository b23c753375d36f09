#pragma once

#include "PgBinaryRows.h"
#include "indexer/HolderDeltas.h"
#include "indexer/VerifiedBatch.h"

#include <QByteArray>

namespace forkscope::store::pg {

class PgConnection;

// A verified batch as the COPY rows of the PostgreSQL store: its blocks, its logs (a
// Transfer's value decoded, or why a Transfer-looking log is not one; with an ABI, each
// log's event name and arguments as the fetch side decoded them). A Transfer's outbox row,
// its side effect, is rendered from its log until delivery takes it (PgPendingOutbox.h). The same
// projection BatchCommitter makes on SQLite (TransferDecoder, storedDecodeError), counted the same
// way.
class PgCommitRows
{
public:
    // `withBlocks` false: the blocks are stored already (an added contract's backfill).
    // `sides`, if given, receives each Transfer's two sides as decoded for its row (the zero
    // address no holder), unmerged: what the batch does to the balances, decoded once.
    PgCommitRows(const QByteArray& environmentId, qint64 chainId,
                 const indexer::VerifiedBatch& batch, bool withBlocks = true,
                 indexer::HolderDeltas* sides = nullptr);

    // COPY the rows, inside the caller's transaction.
    void copyInto(PgConnection& db) const;

    // What the rows hold, as CommitStats counts it.
    const indexer::CommitStats& stats() const { return m_stats; }

private:
    void addLog(const chain::LogEntry& log, const abi::EventDecoding& abiDecoding,
                indexer::HolderDeltas* sides);

    QByteArray m_env;
    qint64 m_chainId;
    PgBinaryRows m_blocks{6}, m_logs{16};
    indexer::CommitStats m_stats;
};

} // namespace forkscope::store::pg
