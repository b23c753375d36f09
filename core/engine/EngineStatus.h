#pragma once

#include "chain/TokenAmount.h"
#include "health/NodeHealth.h"
#include "indexer/CompletenessAlert.h"
#include "indexer/IndexerStatus.h"
#include "wire/CompletenessStats.h"

#include <QDateTime>
#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <QStringList>
#include <optional>

namespace forkscope::engine {

// One committed rollback, as the reorg panel shows it.
struct ReorgMark
{
    qint64 id = 0;
    QDateTime detectedAt;
    qint64 depth = 0;
    QString reason; // "hash mismatch", "parent mismatch", "absence"
    qint64 forkBlock = 0;
    qint64 rowsRemoved = 0;
};

// An immutable snapshot of the engine's connection, handed to the GUI by queued signal.
// The GUI renders it; it never asks the engine anything directly.
// What one rollback undid, for the reorg diff view.
struct ReorgDiff
{
    ReorgMark reorg;
    struct Item
    {
        QString kind; // transfer_removed, outbox_dropped, outbox_delivered_reorged,
                      // outbox_unconfirmed_retracted, balance_changed
        qint64 blockNumber = -1;
        qint64 logIndex = -1;
        QString contract, holder, from, to, value, before, after, eventKey;
        QString txHash;
        // Whether the re-indexed chain has a removed transfer again, above the fork: in the
        // same transaction, or the same token, parties and value in another one
        // (engine/ReindexMatch.h). Re-included, not lost.
        enum class Again { No, SameTransaction, OtherTransaction };
        Again again = Again::No;
    };
    QList<Item> items;
    // decimals() and symbol() of the items' tokens, by lowercase 0x address, as read for the
    // tables (TablePage::tokens); a token absent here keeps raw units.
    QHash<QString, chain::TokenInfo> tokens;
};

// The lab's reason to exist: after each lab action, the four invariants (docs/design.md,
// "Invariants") checked against the node once the indexer has caught up.
struct InvariantVerdict
{
    // Diverged: the indexer stopped at a reorg deeper than its limit, so the stored blocks
    // are no longer the node's chain (by design, nothing deleted): not a violation, and not
    // something waiting for the indexer would ever settle.
    enum class State { None, Checking, Holds, Violated, Unavailable, Diverged };
    State state = State::None;
    QString action;  // what the check followed ("inject reorg depth 5", "crash at ...")
    QString summary; // InvariantReport::summary(), or why no check could run
    QDateTime at;
};

struct EngineStatus
{
    enum class Connection { Starting, Connected, Unreachable, Failed, Stopped };
    // Why the indexer stopped and waits (None while it indexes): what the lab may still do
    // and what a due verdict can say follow from it.
    enum class IndexerHalt {
        None,
        NoContracts,    // nothing to index: indexing is off
        Database,       // the database cannot be opened or written
        DeepReorg,      // a reorg deeper than the limit; nothing deleted
        DataIncomplete, // a block not fetched whole; retried, or Repair...
        Other,          // any other fatal error
    };

    Connection connection = Connection::Starting;
    QString endpoint; // the node's URL
    bool managedDevnet = false;
    std::optional<quint64> chainId;
    std::optional<quint64> headBlock;
    QString dbPath;
    int schemaVersion = 0;
    QString message; // last error or notice, empty when all is well
    // Why the indexer stopped and will not retry on its own (a database it cannot open, a
    // deep reorg, no contracts to index): the window's failed state. Empty while it runs;
    // a block not fetched whole is "data incomplete" instead (openAlerts).
    QString indexerFailure;
    IndexerHalt indexerHalt = IndexerHalt::None;
    QDateTime updatedAt;
    // How many times the engine was started in this app (Retry, Restart, new settings) and
    // when the last start was: a retry that ends where it began still shows it happened.
    int startAttempt = 0;
    QDateTime startedAt;

    // The indexer, when it runs.
    QString environmentId;
    QString indexerState; // IndexerStatus::stateName, or "paused"
    bool indexingPaused = false;
    // The checkpoint as stored (for the checkpoint view), read as one row about once a
    // second: storedCheckpoint is the block checkpointHash is the hash of. The live
    // `checkpoint` below can already be past it, so the view never pairs the two.
    std::optional<quint64> storedCheckpoint;
    QString checkpointHash;
    QString policyVersion;
    int generation = 0;
    QString verifiedAt;
    std::optional<quint64> checkpoint; // nullopt: nothing indexed yet
    // The lag that has held for a moment (engine/LagDamper.h), set by the engine host for
    // every status it publishes: a new block arriving before the indexer's next poll is not
    // "syncing". Unset (lagHeldSet false) in a status nobody damped; then the texts use
    // the lag of this one snapshot.
    bool lagHeldSet = false;
    std::optional<quint64> heldLag;
    qint64 transfersCommitted = 0; // by this session
    double eventsPerSecond = 0;
    qint64 reorgs = 0;
    QStringList contracts;
    QList<ReorgMark> recentReorgs; // the last 200, oldest first
    qint64 blocksCommitted = 0;    // by this session
    // Node heads stored for the fork tree by this session: a change moves its node marks
    // even when the checkpoint stays.
    qint64 sightingsStored = 0;
    double blocksPerSecond = 0;
    QDateTime lastCommitAt;          // freshness: when the checkpoint last moved
    qint64 truncationHalvings = 0;   // getLogs ranges halved on a result cap (indexed node)
    qint64 suspectedTruncations = 0; // SuspectedTruncationError stops (indexed node)
    qint64 indexerTimeouts = 0;      // the indexer's requests that hit their deadline
    qint64 inconsistencies = 0;      // rounds the indexed node contradicted itself/the request
    // Contracts added to the environment and still in their own backfill, as the indexer's
    // last round left them (docs/sources.md); each leaves the list when it joins.
    QList<indexer::SourceBackfillProgress> backfills;
    // Ranges a provider did not return whole, unresolved (completeness_alerts): while any is
    // open the window shows the red "data incomplete" banner and offers Repair...
    QList<indexer::CompletenessAlert> openAlerts;
    wire::CompletenessStats completeness; // the completeness proofs of this session
    bool verifyReceipts = false;          // Lab > Verify receipts
    bool devnetRunning = false;           // the managed anvil (false for an external node)
    // The user stopped the managed anvil (Engine > Stop devnet): an outage chosen on
    // purpose, shown as such (not "node unreachable") with Start devnet as the way on.
    bool devnetStoppedByUser = false;
    // The managed lab is set up (demo token deployed, its environment indexing): the lab
    // controls act only then. False while it starts and during a lab reset.
    bool labReady = false;
    bool demoTraffic = false;
    int demoTransfersPerTick = 0;
    // The outbox: rows wait for the safe height (head - confirmations, capped by the
    // ready-ratio gate) and, with a sink, go out from the dispatcher's own thread.
    // When the counts below (and the stored checkpoint, reorgs and alerts) were last read
    // from the database; null until then, and for good when it cannot be opened: zeros
    // nobody read are not an empty outbox.
    QDateTime storedReadAt;
    qint64 outboxPending = 0;
    qint64 outboxDelivered = 0;
    qint64 outboxFailed = 0;
    double outboxDeliveredPerSecond = 0;
    std::optional<double> outboxOldestPendingAgeSecs; // by the pending row's block time
    std::optional<quint64> safeHeight;
    quint64 confirmations = 0;
    QString outboxSink; // empty: no sink configured, rows are kept, not delivered
    // The lab.
    InvariantVerdict verdict;
    QString crashArmed;            // a crash point waiting to be reached
    int indexerRestarts = 0;       // after simulated crashes
    QStringList labNodes;          // fault proxies in front of the managed anvil ("nodes")
    QList<QJsonObject> proxyKnobs; // their knobs, same order
    // Every environment in the database (newest first): the live one and the archived.
    struct EnvironmentEntry
    {
        QString id;
        quint64 chainId = 0;
        QString createdAt;
        QString archivedAt; // empty: live
        friend bool operator==(const EnvironmentEntry&, const EnvironmentEntry&) = default;
    };
    QList<EnvironmentEntry> environments;
    health::HealthSnapshot health; // every watched node, from the health monitor's thread
    // The lab scenarios.
    QString replicaUrl; // a forked replica serves node 2
    bool secondWriterRunning = false;
    qint64 secondWriterRefusals = 0; // its commits the compare-and-swap refused
    qint64 secondWriterCommits = 0;
    qint64 checkpointConflicts = 0; // the indexer's commits refused by the compare-and-swap
    qint64 rejectedBatches = 0;     // batches refused for not starting at expectedFromBlock
    QString deepReorgPending;
    // A reorg deeper than the limit stopped the indexer (nothing deleted): the checkpoint it
    // stopped at and the limit; 0 when not. The way on: raiseReorgLimit() or resetLab().
    quint64 deepReorgCheckpoint = 0;
    quint64 deepReorgLimit = 0;
    quint64 maxReorgDepth = 0; // the limit in force

    static QString connectionName(Connection c)
    {
        switch (c) {
        case Connection::Starting:
            return QStringLiteral("starting");
        case Connection::Connected:
            return QStringLiteral("connected");
        case Connection::Unreachable:
            return QStringLiteral("node unreachable");
        case Connection::Failed:
            return QStringLiteral("failed");
        case Connection::Stopped:
            return QStringLiteral("stopped");
        }
        return {};
    }
};

} // namespace forkscope::engine

Q_DECLARE_METATYPE(forkscope::engine::EngineStatus)
Q_DECLARE_METATYPE(forkscope::engine::ReorgDiff)
