// The lab scenarios, each one click in the Lab menu: a forked replica behind
// node 2, a second writer on the live environment, and a reorg deeper than the limit.
// (The lost acknowledgement is the indexer's own knob: IndexingService::loseNextAck.)
#include "DisplayState.h"
#include "LabController.h"
#include "LabControllerLoop.h"
#include "indexer/IndexStore.h"
#include "indexer/Indexer.h"
#include "lab/DemoToken.h"
#include "lab/Devnet.h"
#include "lab/FaultProxy.h"
#include "lab/FaultProxyThread.h"
#include "lab/ReorgInjector.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"
#include "store/Database.h"
#include "store/OpenStore.h"

#include <QDeadlineTimer>
#include <QJsonArray>
#include <QTemporaryDir>

namespace forkscope::engine {

namespace {
void releaseWriterProxy(LabController::Loop& l)
{
    if (l.writerProxy)
        l.writerProxy->deleteLater(); // on its own thread
    l.writerProxy = nullptr;
}

quint64 headOf(rpc::JsonRpcClient& rpc)
{
    return rpc::EthClient(rpc).blockNumber();
}
} // namespace

void LabController::startForkedReplica(int extraBlocks)
{
    m_thread.post([this, extraBlocks] {
        auto& l = *m_loop;
        const QString action = QStringLiteral("forked replica on node 2");
        if (!available(action))
            return;
        if (l.proxies.size() < 2 || !l.proxies.at(1)) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("%1: the lab needs two nodes").arg(action));
            return;
        }
        if (l.replica) {
            emit logMessage(
                QStringLiteral("error"),
                QStringLiteral("%1: a replica already runs at %2").arg(action, l.snap.replicaUrl));
            return;
        }
        try {
            // Fork a few blocks below the head, so node 2 disagrees with blocks the indexer
            // has already stored: health can only say "forked" where it knows the canonical
            // hash.
            quint64 head = headOf(*l.anvil);
            if (head < 5) {
                l.anvil->callBlocking(QStringLiteral("anvil_mine"),
                                      QJsonArray{QStringLiteral("0x%1").arg(5 - head, 0, 16)});
                head = headOf(*l.anvil);
            }
            // Its head (forkAt + 3) stays below the lab's: a height the indexer has stored.
            const quint64 forkAt = head - 4;
            l.replica = std::make_unique<lab::Devnet>();
            lab::Devnet::Options o;
            o.extraArgs << QStringLiteral("--fork-url") << l.devnet->url().toString()
                        << QStringLiteral("--fork-block-number") << QString::number(forkAt);
            l.replica->start(o);
            rpc::JsonRpcClient replica(l.replica->url());
            replica.setTimeout(m_config.indexer.rpcTimeout);
            replica.setStopToken(m_thread.stopToken());
            // Blocks of its own after the fork: each carries a transaction the lab's chain
            // never sees, so no block of the replica can come out identical to the lab's.
            const auto sender = lab::DemoToken::defaultSender(replica);
            const int blocks = std::max(3, extraBlocks);
            for (int i = 0; i < blocks; ++i)
                lab::DemoToken::sendAndWait(
                    replica, QJsonObject{{QStringLiteral("from"), sender.toHex()},
                                         {QStringLiteral("to"), sender.toHex()},
                                         {QStringLiteral("value"),
                                          QStringLiteral("0x%1").arg(i + 1, 0, 16)}});
            lab::FaultProxy* node2 = l.proxies.at(1);
            QString error;
            const QJsonObject knob{{QStringLiteral("upstream"), l.replica->url().toString()}};
            QMetaObject::invokeMethod(
                node2, [&] { error = node2->applyKnobs(knob); }, Qt::BlockingQueuedConnection);
            if (!error.isEmpty())
                throw lab::DevnetError(error);
            l.snap.replicaUrl = l.replica->url().toString();
            emit logMessage(
                QStringLiteral("warning"),
                QStringLiteral("lab: node 2 now serves a replica forked from the lab's chain at "
                               "block %1 (%2), with %3 blocks of its own after it; node health "
                               "should show it forked, and the indexer (reading node 1) goes on")
                    .arg(forkAt)
                    .arg(l.snap.replicaUrl)
                    .arg(blocks));
            publishKnobs();
            dueVerdict(action);
        } catch (const std::exception& e) {
            if (l.replica)
                l.replica->stop();
            l.replica.reset();
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("%1: %2").arg(action, QString::fromUtf8(e.what())));
        }
        publish();
    });
}

void LabController::stopForkedReplica()
{
    m_thread.post([this] {
        auto& l = *m_loop;
        if (!l.replica)
            return;
        if (l.proxies.size() > 1 && l.proxies.at(1) && l.devnet) {
            lab::FaultProxy* node2 = l.proxies.at(1);
            const QJsonObject knob{{QStringLiteral("upstream"), l.devnet->url().toString()}};
            QMetaObject::invokeMethod(
                node2, [&] { node2->applyKnobs(knob); }, Qt::BlockingQueuedConnection);
        }
        l.replica->stop();
        l.replica.reset();
        l.snap.replicaUrl.clear();
        emit logMessage(QStringLiteral("info"),
                        QStringLiteral("lab: the forked replica stopped; node 2 serves the lab's "
                                       "chain again"));
        publishKnobs();
    });
}

void LabController::startSecondWriter(const QString& environmentId, int seconds)
{
    m_thread.post([this, environmentId, seconds] {
        auto& l = *m_loop;
        const QString action = QStringLiteral("two writers");
        if (!available(action))
            return;
        if (l.writer) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("%1: a second writer already runs").arg(action));
            return;
        }
        try {
            // Its own connection and its own view of the node, through a proxy that answers
            // after 300 ms: each of its steps reads the checkpoint, fetches, and commits
            // with a compare-and-swap on what it read, and the first indexer commits the
            // same blocks meanwhile. Exactly one of two commits of a block can win.
            // On the proxies' thread (its own event loop): this thread blocks in the steps.
            if (!l.proxyThread.isRunning())
                l.proxyThread.start(new QObject);
            l.writerProxy = lab::startFaultProxyOn(l.proxyThread.thread(), l.devnet->url(), 300);
            store::StoreOptions so;
            so.bulkWriter = false;
            so.owner = QStringLiteral("second writer");
            l.writerStore = store::openIndexStore(m_config.dbPath, so);
            l.writerRpc = std::make_unique<rpc::JsonRpcClient>(l.writerProxy->url());
            l.writerRpc->setTimeout(m_config.indexer.rpcTimeout);
            l.writerRpc->setStopToken(m_thread.stopToken());
            l.writerEth = std::make_unique<rpc::EthClient>(*l.writerRpc);
            indexer::IndexerConfig ic = m_config.indexer;
            ic.rpcUrl = l.writerProxy->url();
            ic.dbPath = m_config.dbPath;
            ic.environmentId = environmentId;
            ic.contracts = contracts();
            ic.factories = factories();
            ic.fetchWorkers = 1;
            ic.stopToken = m_thread.stopToken();
            l.writer = std::make_unique<indexer::Indexer>(ic, *l.writerStore, *l.writerEth);
            l.writerUntil = QDeadlineTimer(std::chrono::seconds(std::max(2, seconds)));
            l.writerRefusalsSeen = 0;
            l.snap.secondWriterRunning = true;
            l.snap.secondWriterRefusals = 0;
            l.snap.secondWriterCommits = 0;
            // Blocks to race for.
            l.writerDemoWasOn = l.snap.demoTraffic;
            l.snap.demoTraffic = true;
            emit logMessage(QStringLiteral("warning"),
                            QStringLiteral("lab: a second indexer writes into environment %1 "
                                           "for %2 s, racing the first; the compare-and-swap on "
                                           "the checkpoint decides every commit")
                                .arg(environmentId)
                                .arg(std::max(2, seconds)));
        } catch (const std::exception& e) {
            l.writer.reset();
            l.writerEth.reset();
            l.writerRpc.reset();
            l.writerStore.reset();
            releaseWriterProxy(l);
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("%1: %2").arg(action, QString::fromUtf8(e.what())));
        }
        publish();
        m_thread.wake();
    });
}

void LabController::secondWriterStep()
{
    auto& l = *m_loop;
    if (l.writerUntil.hasExpired()) {
        const indexer::IndexerStatus s = l.writer->status();
        l.writer.reset();
        l.writerEth.reset();
        l.writerRpc.reset();
        l.writerStore.reset();
        releaseWriterProxy(l);
        l.snap.secondWriterRunning = false;
        l.snap.demoTraffic = l.writerDemoWasOn;
        emit logMessage(
            l.snap.secondWriterRefusals > 0 ? QStringLiteral("ok") : QStringLiteral("warning"),
            QStringLiteral("lab: the second writer stopped: %1 committed, %2 refused by the "
                           "compare-and-swap; "
                           "nothing was written twice if the verdict holds")
                .arg(text::count(s.blocksCommitted, QStringLiteral("block"),
                                 QStringLiteral("blocks")),
                     text::count(l.snap.secondWriterRefusals, QStringLiteral("commit"),
                                 QStringLiteral("commits"))));
        dueVerdict(QStringLiteral("two writers"));
        publish();
        return;
    }
    try {
        const indexer::IndexerStatus& s = l.writer->step();
        l.snap.secondWriterCommits = s.blocksCommitted;
        if (s.checkpointConflicts > l.writerRefusalsSeen) {
            l.writerRefusalsSeen = s.checkpointConflicts;
            l.snap.secondWriterRefusals = s.checkpointConflicts;
            emit logMessage(QStringLiteral("warning"),
                            QStringLiteral("lab: second writer refused by the compare-and-swap: "
                                           "%1")
                                .arg(s.message));
            publish();
        }
    } catch (const std::exception& e) {
        if (!m_thread.stopToken()->stopRequested())
            emit logMessage(
                QStringLiteral("warning"),
                QStringLiteral("lab: second writer: %1").arg(QString::fromUtf8(e.what())));
        l.writerUntil = QDeadlineTimer(0);
    }
}

void LabController::injectDeepReorg(quint64 maxReorgDepth)
{
    m_thread.post([this, maxReorgDepth] {
        auto& l = *m_loop;
        const QString action = QStringLiteral("a reorg deeper than the limit");
        if (!available(action))
            return;
        try {
            // One past the limit: every replaced block carries a marker transaction of its
            // own (ReorgInjector), so anvil replaces all of them.
            const int depth = int(std::min<quint64>(maxReorgDepth + 1, 10000));
            quint64 head = headOf(*l.anvil);
            const quint64 need = quint64(depth) + 2;
            if (head < need) {
                l.anvil->callBlocking(QStringLiteral("anvil_mine"),
                                      QJsonArray{QStringLiteral("0x%1").arg(need - head, 0, 16)});
                head = headOf(*l.anvil);
            }
            // The indexer must have stored the blocks about to be replaced, or the reorg is
            // not deeper than anything it holds: inject once it has (indexerSynced).
            l.deepReorgAt = head;
            l.deepReorgDepth = depth;
            l.deepReorgLimit = maxReorgDepth;
            l.snap.deepReorgPending = QStringLiteral("a reorg of depth %1 once the indexer has "
                                                     "block %2 (limit %3)")
                                          .arg(depth)
                                          .arg(head)
                                          .arg(maxReorgDepth);
            emit logMessage(QStringLiteral("warning"),
                            QStringLiteral("lab: %1").arg(l.snap.deepReorgPending));
        } catch (const std::exception& e) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("%1: %2").arg(action, QString::fromUtf8(e.what())));
        }
        publish();
    });
}

} // namespace forkscope::engine
