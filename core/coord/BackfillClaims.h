#pragma once

#include "chain/Hash32.h"

#include <QString>
#include <chrono>
#include <limits>
#include <optional>

namespace forkscope::store::pg {
class PgConnection;
}

namespace forkscope::coord {

// A backfill range this process holds.
struct RangeClaim
{
    qint64 fromBlock = 0;
    qint64 toBlock = 0;
    int attempts = 0;       // including this one
    QString takenOverFrom;  // the owner it was taken over from, if any
    bool ownerGone = false; // taken over because that owner's session ended, not its lease
};

struct RangeCounts
{
    qint64 pending = 0, running = 0, done = 0, failed = 0;
    bool allDone() const { return pending == 0 && running == 0 && failed == 0; }
};

// Historical ranges shared by several indexer processes. A process claims the
// lowest range nobody holds with SELECT ... FOR UPDATE SKIP LOCKED, so claimers never
// wait on each other, under a lease on the server's clock. It renews the lease while it
// works. A claimer also holds a session advisory lock on its owner name: a range whose
// owner's session has ended (the process died, the server noticed its connection close)
// is taken over at once, so a process started again after a crash goes on where it was.
// One whose owner is lost without closing its connection (a machine gone) is taken over
// once the lease runs out. Either way the next claimer counts the attempt and names the
// previous owner.
//
// finish() runs inside the caller's transaction, after the range's rows are written
// there: the rows and the "done" mark commit together or not at all (docs/design.md,
// "Data and checkpoint commit together"). It only succeeds while this process still owns the
// range; otherwise it throws LeaseLostError and the caller rolls back, so a range taken
// over is indexed exactly once, by its new owner.
class BackfillClaims
{
public:
    BackfillClaims(store::pg::PgConnection& db, QString environmentId, qint64 chainId,
                   QString owner, std::chrono::milliseconds lease);

    // The class ("Fkow") of the claimers' owner locks, keyed by hashtext(owner); the head
    // and outbox locks use another ("Fksc", SessionLock).
    static constexpr int kOwnerLockClass = 1181446007;

    // Takes the planners' lock of an environment for the open transaction (released at its
    // end): whoever adds, cuts, removes, reopens or records ranges holds it, so no two see
    // the table change under them (two first starts would otherwise both see it empty, and
    // a range cut while a rollback removes ranges would leave a hole nobody plans again).
    static void lockPlanners(store::pg::PgConnection& db, const QByteArray& environmentId,
                             const QByteArray& chainId);

    // Cuts [from, to] into ranges of `size` blocks, appended above the last planned range
    // (the first process plans, a later one with a newer head extends). Returns how many
    // were added. Every process must start at the same first block (CoordinationError).
    int plan(qint64 fromBlock, qint64 toBlock, qint64 size);

    // The lowest pending or failed range, or a running one whose lease ran out or whose
    // owner's session has ended, starting at or below `maxTo`. It is cut to end at `maxTo`
    // at the latest (the head: a chain that became shorter than the plan must not leave
    // its ranges waiting for blocks it no longer has) and to hold at most `maxBlocks`
    // blocks (the claimer's range size now: it follows the logs per block seen since the
    // plan was cut, before any was seen); the rest stays pending as a range of its own.
    // Commits on its own. The first call takes this claimer's owner lock
    // (CoordinationError if another live session holds it: two processes with one name).
    std::optional<RangeClaim> claim(qint64 maxTo = std::numeric_limits<qint64>::max(),
                                    qint64 maxBlocks = std::numeric_limits<qint64>::max());

    // The chain is shorter than the plan: the pending and failed ranges that start above
    // `head` and above every range done or in hand go, and the one across `head` ends
    // there, so the plan ends at the head again and the head is followed, not waited for.
    // Ranges done or in hand stay: a stale one is reopened (reopenStaleRange) or rolled
    // back like any stored block. Returns how many ranges went.
    int dropAbove(qint64 head);

    // Extends the lease; false when this process no longer owns the range.
    bool renew(const RangeClaim& claim);

    // Marks the range done with the hashes that chain it to its neighbours. Must run in the
    // caller's open transaction. Throws LeaseLostError when the range was taken over.
    void finish(const RangeClaim& claim, const chain::Hash32& parentHash,
                const chain::Hash32& lastHash);

    // Gives the range back with the reason; after `maxAttempts` it is marked failed and
    // the checkpoint stops below it, loudly, rather than skip it.
    void fail(const RangeClaim& claim, const QString& error, int maxAttempts = 5);

    // Gives the range back uncounted (this process is stopping: not the range's fault).
    void release(const RangeClaim& claim);

    RangeCounts counts();

    // A process started again is the operator's "try again" (the node fixed, or another
    // --rpc): ranges that failed their attempts go back to pending with a fresh count.
    // Returns how many.
    qint64 retryFailed();
    // The lowest failed range, for the message that stops the backfill: "A-B: last error".
    QString firstFailed();

    const QString& owner() const { return m_owner; }

private:
    store::pg::PgConnection& m_db;
    QByteArray m_env;
    QByteArray m_chain;
    QByteArray m_owner8;
    bool m_ownerLocked = false;
    QString m_owner;
    QByteArray m_leaseMs;
};

} // namespace forkscope::coord
