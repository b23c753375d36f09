#pragma once

#include "wire/CompletenessStats.h"

#include <QList>
#include <QMetaType>
#include <QString>
#include <cstdint>
#include <optional>

namespace forkscope::indexer {

// Where the backfill of one contract added to the environment stands, as its last round
// left it: it joins once `checkpoint` reaches the environment's.
struct SourceBackfillProgress
{
    QString contract;                        // 0x, lowercase
    std::uint64_t startBlock = 0;            // its backfill's first block
    std::optional<std::uint64_t> checkpoint; // nullopt: nothing backfilled yet
};

// What one round of the loop did, and the state it left; a value for progress lines and
// (later) the GUI.
struct IndexerStatus
{
    enum class State {
        Starting,
        Syncing,         // behind the head, committing
        Synced,          // checkpoint == head, verified on chain
        NodeUnreachable, // RPC failed: checkpoint kept, lag unknown
        NodeBehind,      // node's head below the checkpoint or answering null: waiting
        Reorged,         // a rollback was just committed
        // The node's answers contradict each other or the request (NodeInconsistentError,
        // wire::ReplyMismatchError): nothing committed, nothing rolled back, retried later
        NodeInconsistent,
        WaitingForStart, // nothing indexed yet: the node's head is below the start block
        // Another writer of the shared environment follows the head (or holds the ranges
        // left): nothing for this one to do until it goes
        StandingBy,
    };

    State state = State::Starting;
    std::optional<std::uint64_t> head;
    std::optional<std::uint64_t> checkpoint; // nullopt: nothing indexed yet
    QString message;

    // Totals since this process started.
    qint64 blocksCommitted = 0;
    qint64 logsCommitted = 0;
    qint64 transfersCommitted = 0;
    qint64 decodeFailures = 0;
    qint64 reorgs = 0;
    qint64 checkpointConflicts = 0;
    qint64 truncationHalvings = 0; // ranges halved because of a result cap
    qint64 rejectedBatches = 0;    // wire batches that did not start at expectedFromBlock
    qint64 childrenFound = 0;      // children of the factories committed
    qint64 childRefetches = 0;     // batches fetched again because a child was not in them
    qint64 fetchFailures = 0;      // failed range fetches (retried)
    qint64 absenceSuspicions = 0;  // logs gone without a hash contradiction
    qint64 inconsistencies = 0;    // rounds the node answered self-contradicting or off-request
    wire::CompletenessStats completeness; // the completeness proofs the fetches ran
    qint64 timeouts = 0;                  // requests to the node that hit their deadline
    qint64 abiDecoded = 0;                // logs decoded by the source's ABI
    qint64 abiUnmatched = 0;              // anonymous or unknown events, kept raw
    qint64 abiFailures = 0;               // matched an event but did not decode
    qint64 headChecksAhead = 0;     // rounds whose head check was answered during the last commit
    qint64 rangesTakenOver = 0;     // backfill ranges taken from a writer gone or past its lease
    qint64 rangesLost = 0;          // ranges taken from this writer (its rows for them rolled back)
    int sourcesPending = 0;         // added contracts whose backfill has not joined yet
    qint64 sourceLogsCommitted = 0; // logs their backfill committed
    qint64 sourcesJoined = 0;       // added contracts that joined the contract set
    // The added contracts still backfilling, each where its last batch left it.
    QList<SourceBackfillProgress> backfills;
    int retryDelayMs = 0; // how long to wait before the next round, if failing

    std::optional<std::uint64_t> lag() const
    {
        if (state == State::WaitingForStart)
            return 0; // nothing to index until the chain reaches the start block
        return cursorLag(head, checkpoint, state != State::NodeUnreachable);
    }
    // Blocks between the head and the checkpoint (nothing indexed counts as 0); unknown
    // without a head or while the node is unreachable: an outage is not a lag of N.
    static std::optional<std::uint64_t> cursorLag(std::optional<std::uint64_t> head,
                                                  std::optional<std::uint64_t> checkpoint,
                                                  bool reachable)
    {
        if (!head || !reachable)
            return std::nullopt;
        const std::uint64_t cp = checkpoint.value_or(0);
        return *head > cp ? *head - cp : 0;
    }

    static QString stateName(State s)
    {
        switch (s) {
        case State::Starting:
            return QStringLiteral("starting");
        case State::Syncing:
            return QStringLiteral("syncing");
        case State::Synced:
            return QStringLiteral("synced");
        case State::NodeUnreachable:
            return QStringLiteral("node unreachable, lag unknown");
        case State::NodeBehind:
            return QStringLiteral("node behind the checkpoint");
        case State::Reorged:
            return QStringLiteral("reorg rolled back");
        case State::NodeInconsistent:
            return QStringLiteral("node inconsistent");
        case State::WaitingForStart:
            return QStringLiteral("waiting for the start block");
        case State::StandingBy:
            return QStringLiteral("standing by");
        }
        return {};
    }
};

} // namespace forkscope::indexer

Q_DECLARE_METATYPE(forkscope::indexer::IndexerStatus)
