#pragma once

#include "indexer/HolderDeltas.h"

#include <QByteArray>
#include <QList>

#include <utility>

namespace forkscope::store::pg {

class PgConnection;

// balance_store on PostgreSQL: each (contract, holder)'s received minus sent, with the
// Transfer sides it sums and its last Transfer's block, the same rules as SQLite's
// BalanceBook (the zero address is no holder; no side left, no row). Ranges finish out of
// order in several processes, so a range's Transfers count only once the checkpoint covers
// them, and `token_balances` always equals the sum of the Transfers it shows (invariant 3).
//
// balance_store holds the Transfers up to `balance_fold_store.balances_block` (NULL, or no
// row: up to the checkpoint itself); `token_balances` adds those of the blocks between it
// and the checkpoint from log_store. A backfill folds them in once per many ranges, not at
// every checkpoint move, and off its commit path (PgBalanceFolds.h): a move re-writing
// every holder's row was most of the server's work.

// What the committing writer's own batch, blocks `first` to `last`, does to each holder, as
// PgCommitRows decoded its Transfers for their rows. A fold in the commit (at the head) takes
// these blocks' sides from here rather than reading them back from log_store: scanning the
// Transfers again and splitting each into its two sides was most of the fold's cost.
struct BatchBalances
{
    qint64 first = 0;
    qint64 last = -1;
    indexer::HolderDeltas deltas; // merged
};

// What a fold of blocks (`above`, `upTo`] adds: the deltas of `spans` (batches lying within
// those blocks, in block order, not overlapping) as they are, and the Transfers of every other
// block (`gaps`, each (lo, hi]) read from log_store.
struct FoldParts
{
    indexer::HolderDeltas deltas; // merged
    QList<std::pair<qint64, qint64>> gaps;
};
FoldParts foldParts(qint64 above, qint64 upTo, const QList<const BatchBalances*>& spans);

// Adds the Transfers of blocks (`above`, `upTo`]: those of `batch` from it when it lies
// within them, every other block's from log_store.
void addBalances(PgConnection& db, const QByteArray& env, const QByteArray& chain, qint64 above,
                 qint64 upTo, const BatchBalances& batch);

// The same for one contract's Transfers only (an added contract's backfill, whose blocks the
// checkpoint already covers); `contract` as a bytea parameter.
void addContractBalances(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                         const QByteArray& contract, qint64 above, qint64 upTo);

// Takes back the Transfers of blocks (`fork`, `checkpoint`] before a rollback deletes them,
// each changed balance recorded as a balance_changed row of reorg `reorgId`'s diff (its
// value before and after, no after when the row goes). A rewritten row's updated_at_block
// is capped at the fork, as SQLite's. Returns the balances changed.
qint64 revertBalances(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                      qint64 reorgId, qint64 fork, qint64 checkpoint);

// Recomputes every balance of the environment up to `checkpoint` from its Transfers and
// corrects each row that differs (a repair, after rows were lost or edited), each
// correction recorded in reorg `reorgId`'s diff. Returns the corrections.
qint64 rebuildBalances(PgConnection& db, const QByteArray& env, const QByteArray& chain,
                       qint64 reorgId, qint64 checkpoint);

// The Transfers `token_balances` adds to balance_store: each (environment, chain, contract,
// holder) with its sum (`delta`), last block (`last`) and sides (`sides`), over the blocks
// between `balance_fold_store.balances_block` and the checkpoint.
QByteArray pendingBalancesSql();

// A fold sent after its commit (PgBalanceFolds): adds the Transfers of blocks ($3, $4] of
// environment $1, chain $2 (`parts`), and moves balance_fold_store to $4, only if the row
// still stands at block $3 with epoch $5, the checkpoint is at or above $4, and each block
// `checked` names is still the block_store row its xmin says (the deltas taken for it are
// of that row's batch); otherwise it writes nothing. One statement: the row's update gates
// the insert, in one snapshot.
struct FoldChecks
{
    QList<qint64> blocks;
    QList<QByteArray> xmins;
};
struct GatedFold
{
    QByteArray env;
    QByteArray chain;
    qint64 from = 0;
    qint64 epoch = 0;
    qint64 upTo = 0;
};
QList<QByteArray> foldIfStillParams(const GatedFold& fold, const FoldChecks& checked,
                                    const FoldParts& parts);
// Its prepared statement's name and text: without gaps, the deltas alone (insertDeltas).
const char* foldIfStillName(const FoldParts& parts);
QByteArray foldIfStillSql(const FoldParts& parts);

// Whether a checkpoint move to `upTo` folds the Transfers above `folded` now: always at the
// head (a block or a few: the views stay a plain read), and in a backfill once about
// `foldAfter` Transfers wait: as the batch's density (`transfers` in `blocks`) estimates
// them, or as this writer counted its own commits since the last fold (`counted`: sparse
// blocks after dense ones must not hide what waits).
struct FoldWait
{
    qint64 transfers = 0; // the committing batch's
    qint64 blocks = 1;
    qint64 counted = 0;
};
bool foldsNow(bool atTheHead, qint64 folded, qint64 upTo, const FoldWait& wait, qint64 foldAfter);

} // namespace forkscope::store::pg
