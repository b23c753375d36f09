#pragma once

#include "EngineStatus.h"
#include "SourceList.h"
#include "SourceSpec.h"
#include "TablePage.h"
#include "chain/Hash32.h"
#include "foreign/ForeignBlockView.h"
#include "foreign/ForeignWatchSnapshot.h"
#include "foreign/ForeignWatchSpec.h"
#include "forktree/ForkBlockRows.h"
#include "forktree/ForkTreeSnapshot.h"
#include "lab/run/LabRunProgress.h"
#include "lab/run/LabRunResult.h"
#include "lab/run/LabRunSpec.h"
#include "report/CheckpointReport.h"

#include <QJsonObject>
#include <QObject>
#include <optional>

namespace forkscope::engine {

// What the window may know of the engine, and all it links (the forkscope_engine_api
// target): commands that return at once, and answers that arrive later as values by
// queued signal (Bitcoin Core's interfaces::Node, hotspot's parser signals). No SQL, RPC or
// thread headers come with it; the build refuses a widget that includes one.
// EngineHost implements it.
class EngineApi : public QObject
{
    Q_OBJECT
public:
    using QObject::QObject;
    ~EngineApi() override;

    virtual bool isRunning() const = 0;
    virtual void setIndexingPaused(bool paused) = 0;
    virtual void requestReorgDiff(qint64 id) = 0;
    // The fork tree over a window of blocks, read in pages off the GUI thread; answered by
    // forkTreeAvailable. While one is read, later requests replace each other: the latest
    // is answered next.
    virtual void requestForkTree(const forkscope::forktree::ForkTreeRequest& request) = 0;
    // The rows of one block of the tree (canonical or orphaned); answered by
    // forkBlockAvailable, not at all for a hash the environment does not hold.
    virtual void requestForkBlock(const forkscope::chain::Hash32& hash) = 0;
    virtual void requestTablePage(const forkscope::engine::TableRequest& request) = 0;
    // The live environment's sources and children; answered by sourceListAvailable.
    virtual void requestSourceList() = 0;
    // Whether the node has code at `address`; answered by codeChecked with the ticket.
    virtual quint64 requestCodeCheck(const QString& address) = 0;
    // Stops (state kept) or starts again the managed anvil; the engine and DB stay open.
    virtual void setDevnetRunning(bool running) = 0;
    // Lab controls; each answers through statusAvailable/logMessage.
    virtual void setDemoTraffic(bool on, int transfersPerTick) = 0;
    virtual void injectReorg(int depth, int txMode) = 0;
    virtual void rollbackBlocks(int blocks) = 0;
    virtual void setProxyKnobs(int node, const QJsonObject& changes) = 0;
    virtual void crashIndexer(const QString& point) = 0;
    virtual void checkInvariants(const QString& reason) = 0;
    virtual void resetLab() = 0;
    virtual void repair(quint64 fromBlock, const QString& node) = 0;
    virtual void setVerifyReceipts(bool on) = 0;
    virtual void verifyStoredData() = 0;
    // The lab scenarios (Lab menu): node 2 behind a forked replica; a second indexer on the
    // live environment; the next batch's acknowledgement lost; a reorg deeper than the
    // limit, and the two ways on from it (raise the limit and continue, or resetLab()).
    virtual void startForkedReplica() = 0;
    virtual void stopForkedReplica() = 0;
    virtual void startSecondWriter(int seconds = 8) = 0;
    virtual void loseNextAcknowledgement() = 0;
    // Adds a contract to the environment being indexed (docs/sources.md): backfilled from
    // `fromBlock` (nullopt: its deployment block) next to the head, then it joins the
    // contract set. Answers through logMessage ("Add contract..." calls it).
    virtual void addSource(const QString& address, std::optional<quint64> fromBlock) = 0;
    // The same for a factory (`spec` of Kind::Factory, check() holding): its children are
    // backfilled with it, each from its creation block, and join with it ("Add factory..."
    // calls it).
    virtual void addFactory(const SourceSpec& spec, std::optional<quint64> fromBlock) = 0;
    // The outbox's: the lab's own receiver applies the next row and drops its answer.
    virtual void loseNextOutboxAcknowledgement() = 0;
    virtual void injectDeepReorg() = 0;
    virtual void raiseReorgLimit(quint64 depth) = 0;
    // A checkpoint report, built off the GUI thread; the answer (reportAvailable or
    // reportFailed) carries the returned ticket, so a caller routes it by ticket and drops
    // answers it no longer waits for (hotspot's job tracker).
    virtual quint64 requestReport(const QString& environmentId, bool verify) = 0;

    // Lab > Run lab scenario...: `forkscope lab run` (docs/lab-run.md) on a worker of its
    // own, independent of the environment being indexed. Answers with labRunProgress as it
    // goes, then labRunFinished once everything it started is stopped. False, and nothing
    // started, while a run goes on.
    virtual bool startLabRun(const forkscope::lab::LabRunSpec& spec) = 0;
    // The run stops at its next check (between steps, or while it waits for the indexer),
    // stops everything it started, and labRunFinished follows, aborted.
    virtual void cancelLabRun() = 0;
    virtual bool isLabRunRunning() const = 0;
    // Another indexer's database watched against the lab's node ("Watch another indexer...",
    // docs/audit.md): checked every spec.intervalMs on a worker of its own. Returns the
    // watch's id; each check answers by foreignWatchAvailable with it, and a refusal or the
    // end of the watch by a final() one. Empty spec.contracts: the environment's contracts.
    virtual quint64 watchForeignIndexer(const forkscope::foreign::ForeignWatchSpec& spec) = 0;
    virtual void stopWatchingForeignIndexer(quint64 id) = 0;
    // One block of a watch: the table's rows next to the node's Transfers of the contracts;
    // answered by foreignBlockAvailable.
    virtual void requestForeignBlock(quint64 watchId, quint64 block) = 0;

signals:
    void statusAvailable(const forkscope::engine::EngineStatus& status);
    void logMessage(const QString& level, const QString& text);
    void reorgDiffAvailable(const forkscope::engine::ReorgDiff& diff);
    void forkTreeAvailable(const forkscope::forktree::ForkTreeSnapshot& tree);
    void forkBlockAvailable(const forkscope::forktree::ForkBlockRows& rows);
    void tablePageAvailable(const forkscope::engine::TablePage& page);
    void sourceListAvailable(const forkscope::engine::SourceList& sources);
    void codeChecked(const forkscope::engine::CodeCheck& check);
    void reportAvailable(quint64 ticket, const forkscope::report::CheckpointReport& report);
    void reportFailed(quint64 ticket, const QString& error);
    void labRunProgress(const forkscope::lab::LabRunProgress& progress);
    void labRunFinished(const forkscope::lab::LabRunResult& result);
    void foreignWatchAvailable(const forkscope::foreign::ForeignWatchSnapshot& snapshot);
    void foreignBlockAvailable(const forkscope::foreign::ForeignBlockView& view);
    void stopped();
};

} // namespace forkscope::engine
