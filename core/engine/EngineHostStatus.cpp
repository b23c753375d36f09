// EngineHost's status: each worker's snapshot (the indexer's, the lab's, the read side's
// summary) folded into the one EngineStatus the window renders.
#include "DisplayState.h"
#include "EngineHost.h"
#include "EngineHostSession.h"
#include "IndexingService.h"
#include "LabController.h"
#include "ReadService.h"

namespace forkscope::engine {

void EngineHost::onIndexing(Session* s, const IndexingSnapshot& snap)
{
    const indexer::IndexerStatus& st = snap.status;
    using State = indexer::IndexerStatus::State;
    m_status.indexingPaused = snap.paused;
    m_status.checkpoint = st.checkpoint;
    if (st.head)
        m_status.headBlock = st.head;
    if (snap.chainId != 0) {
        m_status.chainId = snap.chainId;
        // The read side follows the chain and the node the indexer reads (token metadata
        // comes from that node).
        if (s->chainId != snap.chainId || s->tokenNode != snap.endpoint) {
            s->chainId = snap.chainId;
            s->tokenNode = snap.endpoint;
            s->read->setScope(s->liveEnvironment, snap.chainId, QUrl(snap.endpoint));
        }
    }
    m_status.environmentId = snap.environmentId;
    m_status.transfersCommitted = st.transfersCommitted;
    m_status.reorgs = st.reorgs;
    m_status.truncationHalvings = st.truncationHalvings;
    m_status.indexerTimeouts = st.timeouts;
    m_status.inconsistencies = st.inconsistencies;
    m_status.backfills = st.backfills;
    m_status.completeness = st.completeness;
    m_status.blocksCommitted = st.blocksCommitted;
    m_status.sightingsStored = snap.sightingsStored;
    m_status.eventsPerSecond = snap.eventsPerSecond;
    m_status.blocksPerSecond = snap.blocksPerSecond;
    m_status.lastCommitAt = snap.lastCommitAt;
    m_status.safeHeight = snap.safeHeight;
    m_status.crashArmed = snap.crashArmed;
    m_status.indexerRestarts = snap.restarts;
    m_status.verifyReceipts = snap.verifyReceipts;
    m_status.suspectedTruncations = snap.suspectedTruncations;
    m_status.maxReorgDepth = snap.maxReorgDepth;
    m_status.deepReorgCheckpoint = snap.deepReorgCheckpoint;
    m_status.deepReorgLimit = snap.deepReorgLimit;
    m_status.checkpointConflicts = st.checkpointConflicts;
    s->haltCount = snap.haltCount;
    m_status.rejectedBatches = st.rejectedBatches;
    // Never green over a gap: an open completeness alert outranks "synced".
    m_status.indexerState = snap.paused                      ? QStringLiteral("paused")
                            : !m_status.openAlerts.isEmpty() ? QStringLiteral("data incomplete")
                                                             : snap.state;
    if (!snap.fatal.isEmpty())
        m_status.message = snap.fatal;
    // A block not fetched whole is "data incomplete" (its alert), not a failure.
    using Halt = IndexingSnapshot::Halt;
    using H = EngineStatus::IndexerHalt;
    m_status.indexerFailure = !snap.fatal.isEmpty() && snap.halt != Halt::Truncation ? snap.fatal
                              : s->noContracts                                       ? kNoContracts
                                                                                     : QString();
    switch (snap.halt) {
    case Halt::None:
        m_status.indexerHalt = s->noContracts ? H::NoContracts : H::None;
        break;
    case Halt::Database:
        m_status.indexerHalt = H::Database;
        break;
    case Halt::DeepReorg:
        m_status.indexerHalt = H::DeepReorg;
        break;
    case Halt::Truncation:
        m_status.indexerHalt = H::DataIncomplete;
        break;
    case Halt::Other:
        m_status.indexerHalt = H::Other;
        break;
    }
    if (st.state == State::NodeUnreachable) {
        if (m_status.connection != EngineStatus::Connection::Failed)
            m_status.connection = EngineStatus::Connection::Unreachable;
        m_status.message = st.message;
        s->unreachableFromHealth = false;
        noteStillUnreachable(s);
    } else if (snap.chainId != 0 && m_status.connection != EngineStatus::Connection::Failed) {
        if (m_status.connection != EngineStatus::Connection::Connected || !s->announced) {
            s->announced = true;
            log(QStringLiteral("info"), QStringLiteral("connected to %1, chain id %2")
                                            .arg(m_status.endpoint)
                                            .arg(snap.chainId));
        }
        m_status.connection = EngineStatus::Connection::Connected;
        if (snap.fatal.isEmpty())
            m_status.message.clear();
    }
    s->indexingSuspended = snap.suspended;
    updateLabReady(s);
    if (st.state == State::Synced && !snap.paused && !snap.suspended && snap.fatal.isEmpty())
        s->lab->indexerSynced(snap.environmentId, st.checkpoint.value_or(0), snap.stepStartedNs);
    // A verdict waiting for the indexer to catch up would wait for ever while it is stopped:
    // what stopped it settles it (LabController::indexerHalted). Not a stop a command has
    // lifted since (raise the limit, repair): its snapshots may still be on their way.
    const bool halted = !snap.fatal.isEmpty() && !snap.suspended && snap.haltCount > s->haltsLifted;
    if (halted != s->haltForwarded) {
        s->haltForwarded = halted;
        s->lab->indexerHalted(snap.environmentId, halted ? int(m_status.indexerHalt) : 0,
                              snap.fatal);
    }
    publishSoon();
}

void EngineHost::noteStillUnreachable(Session* s)
{
    // A Retry that ends where it began says so, once.
    if (m_status.startAttempt > 1 && !s->retryAnswered) {
        s->retryAnswered = true;
        log(QStringLiteral("error"), QStringLiteral("retry: %1 still does not answer: %2")
                                         .arg(m_status.endpoint, m_status.message));
    }
}

void EngineHost::updateLabReady(Session* s)
{
    // One place decides whether the lab acts: set up, not resetting, an indexer that can
    // write (not one whose database is unusable: reorgs nothing indexes would be injected).
    using H = EngineStatus::IndexerHalt;
    m_status.labReady = s->labReady && !m_resetting && s->indexing != nullptr &&
                        !s->indexingSuspended && s->config.managedDevnet &&
                        m_status.connection != EngineStatus::Connection::Failed &&
                        m_status.indexerHalt != H::Database && m_status.indexerHalt != H::Other;
}

void EngineHost::onLab(Session* s, const LabSnapshot& snap)
{
    s->labReady = snap.labReady;
    m_status.devnetRunning = snap.devnetRunning;
    m_status.devnetStoppedByUser = snap.devnetStoppedByUser;
    updateLabReady(s);
    m_status.demoTraffic = snap.demoTraffic;
    m_status.demoTransfersPerTick = snap.demoTransfersPerTick;
    if (!snap.labNodes.isEmpty())
        m_status.labNodes = snap.labNodes;
    m_status.proxyKnobs = snap.proxyKnobs;
    m_status.verdict = snap.verdict;
    m_status.replicaUrl = snap.replicaUrl;
    // Two writers: both sides of the race in one line when it ends, this indexer's
    // refusals too (they are counted in its own status, not the lab's).
    if (snap.secondWriterRunning && !m_status.secondWriterRunning)
        s->conflictsBeforeRace = m_status.checkpointConflicts;
    if (!snap.secondWriterRunning && m_status.secondWriterRunning)
        log(QStringLiteral("info"),
            QStringLiteral("two writers: the second writer committed %1 and was refused %2 "
                           "times; this indexer was refused %3 times while they raced (Checkpoint "
                           "tab, \"Commits refused\")")
                .arg(snap.secondWriterCommits)
                .arg(snap.secondWriterRefusals)
                .arg(m_status.checkpointConflicts - s->conflictsBeforeRace));
    m_status.secondWriterRunning = snap.secondWriterRunning;
    m_status.secondWriterRefusals = snap.secondWriterRefusals;
    m_status.secondWriterCommits = snap.secondWriterCommits;
    m_status.deepReorgPending = snap.deepReorgPending;
    // A lab scenario started the lab's own outbox receiver: the outbox delivers there.
    if (!snap.labSinkUrl.isEmpty() && snap.labSinkUrl != s->routedSink && s->indexing) {
        s->routedSink = snap.labSinkUrl;
        s->indexing->setOutboxWebhook(QUrl(snap.labSinkUrl));
        m_status.outboxSink = snap.labSinkUrl;
    }
    publishSoon();
}

void EngineHost::onSummary(Session* s, const DbSummary& d)
{
    if (d.environmentId != s->liveEnvironment)
        return; // read before a reset: not the live environment any more
    m_status.schemaVersion = d.schemaVersion;
    m_status.storedReadAt = d.readAt.isValid() ? d.readAt : QDateTime::currentDateTimeUtc();
    m_status.recentReorgs = d.recentReorgs;
    m_status.openAlerts = d.openAlerts;
    m_status.storedCheckpoint = d.checkpoint;
    m_status.checkpointHash = d.checkpointHash;
    m_status.policyVersion = d.policyVersion;
    m_status.generation = d.generation;
    m_status.verifiedAt = d.verifiedAt;
    m_status.outboxPending = d.outboxPending;
    m_status.outboxDelivered = d.outboxDelivered;
    m_status.outboxFailed = d.outboxFailed;
    m_status.outboxDeliveredPerSecond = d.outboxDeliveredPerSecond;
    m_status.outboxOldestPendingAgeSecs = d.outboxOldestPendingAgeSecs;
    m_status.environments = d.environments;
    if (!d.openAlerts.isEmpty() && !m_status.indexingPaused)
        m_status.indexerState = QStringLiteral("data incomplete"); // never green over a gap
    // The nodes the open alerts name are marked in node health, across restarts too, and
    // unmarked once their alerts are resolved (a repair, a retry that got the blocks whole).
    if (s->indexing) {
        QHash<QString, QPair<qint64, quint64>> alerted;
        for (const auto& a : d.openAlerts) {
            auto it = alerted.find(a.node);
            if (it == alerted.end())
                alerted.insert(a.node, {1, a.fromBlock});
            else
                *it = {it->first + 1, std::min(it->second, quint64(a.fromBlock))};
        }
        s->indexing->setAlertedNodes(alerted);
    }
    publishSoon();
}

} // namespace forkscope::engine
