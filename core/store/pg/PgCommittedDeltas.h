#pragma once

#include "PgBalances.h"

#include <QByteArray>
#include <cstddef>
#include <map>

namespace forkscope::store::pg {

// The holder deltas of the batches this writer committed in a backfill that no fold took
// yet. A backfill's fold (PgBalanceFolds) adds them as they are and reads from log_store
// only the blocks other writers stored: summing a hundred thousand Transfers back out of
// log_store was about half the server's work in a sync, and the writer had them decoded.
//
// A batch's deltas are its blocks' rows only while those rows stand: each remembers the
// xmin of its last block's block_store row, and the fold checks it in its statement. A
// rollback, or a range fetched again, deletes that row (every block above a fork goes), so
// whatever stores the block again has another xmin, and the fold writes nothing.
class PgCommittedDeltas
{
public:
    // At most `maxHolders` holder rows are kept (about 100 bytes each); the oldest batches'
    // go first (their blocks are then read from log_store).
    explicit PgCommittedDeltas(std::size_t maxHolders = 200'000) : m_maxHolders(maxHolders) {}

    // A committed batch's deltas and the xmin of its last block's block_store row.
    void remember(BatchBalances batch, QByteArray lastXmin);

    // What a fold of blocks (`above`, `upTo`] adds, with the blocks it must check. Forgets
    // what it returns, and every batch at or below `above` (folded, or no longer a whole
    // batch of blocks the fold could take).
    struct Taken
    {
        FoldParts parts;
        FoldChecks checks;
    };
    Taken take(qint64 above, qint64 upTo);

    // Forgets every batch at or below `block` (balance_store holds those blocks already).
    void forgetThrough(qint64 block);

    std::size_t holders() const { return m_holders; }

private:
    struct Batch
    {
        BatchBalances balances;
        QByteArray lastXmin;
    };
    void forget(std::map<qint64, Batch>::iterator at);

    std::size_t m_maxHolders;
    std::map<qint64, Batch> m_batches; // by first block
    std::size_t m_holders = 0;
};

} // namespace forkscope::store::pg
