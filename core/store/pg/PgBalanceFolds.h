#pragma once

#include "PgBalances.h"
#include "PgCommittedDeltas.h"
#include "PgConnection.h"
#include "PgError.h"

#include <QByteArray>
#include <QString>
#include <memory>
#include <optional>

namespace forkscope::store::pg {

// Where balance_store stands in one environment's chain, and the folds that move it
// (PgBalances.h). `balance_fold_store` holds the block balance_store holds the Transfers up
// to, none (NULL, or no row) meaning up to the checkpoint, and an epoch every fold bumps.
//
// A fold at the head, and before anything else writes balances or rows at or below the
// checkpoint (a rollback, a repair, an added contract, an archive), runs in the caller's
// transaction with the row locked. A backfill's fold is the one that costs: it runs after
// the commit that made it due, on a connection of its own, beside the next ranges' rows
// instead of before them. It takes effect only if the row still stands at the block and
// epoch it was decided on and the checkpoint still covers its blocks: anything that moved
// the row meanwhile (another fold, a rollback) makes it do nothing, and what it would have
// folded waits for the next.
class PgBalanceFolds
{
public:
    // `url` opens the fold's own connection, named after `owner`, when a first fold is sent.
    // A fold that waits `lockTimeoutMs` for the row (another writer's fold holds it) gives
    // up and writes nothing, as if the row had moved: that fold covers the same Transfers.
    PgBalanceFolds(QString url, QString owner, QByteArray env, QByteArray chain,
                   int lockTimeoutMs = PgConnection::Options{}.lockTimeoutMs);
    // Waits for a fold in flight (a fraction of a second): it commits whole or not at all,
    // so this only keeps a fold from outliving its writer.
    ~PgBalanceFolds();
    PgBalanceFolds(const PgBalanceFolds&) = delete;
    PgBalanceFolds& operator=(const PgBalanceFolds&) = delete;

    struct Mark
    {
        std::optional<qint64> block; // balance_store holds the Transfers up to here
        qint64 epoch = 0;
    };
    // The row as `db` reads it now, locked for the caller's transaction or not.
    Mark read(PgConnection& db, bool lock) const;

    // A fold decided in a commit, sent once it committed: blocks (from.block, upTo].
    struct Later
    {
        Mark from;
        qint64 upTo = 0;
    };
    // In the caller's transaction, the checkpoint row locked and moving from `from` to `to`
    // with `batch`'s merged deltas (`batchTransfers` Transfers): folds now at the head or when
    // `foldAfter` is 0; otherwise leaves the Transfers waiting and returns the fold to send
    // after the commit once about `foldAfter` wait (foldsNow) and none of this writer's runs.
    std::optional<Later> onMove(PgConnection& db, qint64 from, qint64 to,
                                const BatchBalances& batch, bool atTheHead, qint64 batchTransfers,
                                qint64 foldAfter);
    // Everything up to `upTo` in balance_store now, in the caller's transaction, `batch`'s
    // blocks from it; the checkpoint row is locked at `checkpoint`.
    void foldNow(PgConnection& db, qint64 checkpoint, qint64 upTo, const BatchBalances& batch = {});
    // A batch this writer committed in a backfill, its last block's block_store row having
    // xmin `lastXmin`: a fold sent later adds its deltas instead of reading its Transfers
    // back (PgCommittedDeltas.h).
    void remember(BatchBalances batch, QByteArray lastXmin);
    // Sends a fold onMove returned, not waiting for it. Never throws: the commit it follows
    // stands; a failure to send is thrown by the next running().
    void send(const Later& fold);
    // Whether the fold sent is still running. A finished one's failure, or a failure to
    // send, is thrown here: nothing of that fold was written. Giving up on the row's lock
    // is no failure.
    bool running();
    // Waits for the fold sent; returns the holders it wrote, 0 when the row had moved.
    qint64 await();

private:
    QString m_url;
    QString m_owner;
    int m_lockTimeoutMs;
    QByteArray m_env;
    QByteArray m_chain;
    std::unique_ptr<PgConnection> m_conn; // the folds sent
    std::optional<Later> m_sent;
    std::optional<PgError> m_failed;
    PgCommittedDeltas m_committed;
    // The Transfers this writer committed since balance_store last took them up to `since`.
    struct Counted
    {
        qint64 since = -2;
        qint64 transfers = 0;
    };
    Counted m_counted;
};

} // namespace forkscope::store::pg
