#include "LabController.h"
#include "DisplayState.h"
#include "LabControllerLoop.h"
#include "concurrency/WorkerThread.h"
#include "indexer/Indexer.h"
#include "lab/DemoToken.h"
#include "lab/Devnet.h"
#include "lab/FaultProxy.h"
#include "lab/FaultProxyThread.h"
#include "lab/KnobDescription.h"
#include "lab/LabReset.h"
#include "lab/ReorgInjector.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"
#include "store/Database.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>

namespace forkscope::engine {

LabController::LabController(EngineConfig config, QObject* parent)
    : QObject(parent), m_config(std::move(config)), m_thread(QStringLiteral("forkscope-lab"))
{
    qRegisterMetaType<LabSetup>();
    qRegisterMetaType<LabSnapshot>();
}

LabController::~LabController()
{
    requestStop();
    wait();
}

void LabController::start()
{
    m_loop = std::make_unique<Loop>();
    m_thread.start([this] { setUp(); }, [this] { return step(); }, [this] { tearDown(); });
}

void LabController::requestStop()
{
    m_thread.requestStop();
}

bool LabController::wait(std::chrono::milliseconds timeout)
{
    return m_thread.wait(timeout);
}

void LabController::publish()
{
    emit snapshotAvailable(m_loop->snap);
}

QList<chain::Address> LabController::contracts() const
{
    // What the user configured, plus the lab's demo token.
    QList<chain::Address> out;
    for (const QString& c : m_config.contracts)
        out.append(chain::Address::fromHex(c, QStringLiteral("contract")));
    if (m_loop->demo)
        out.append(m_loop->demo->address());
    return out;
}

QList<wire::FactorySource> LabController::factories() const
{
    QList<wire::FactorySource> out = m_config.factories;
    if (m_loop->factory)
        out.append(m_loop->factory->source());
    return out;
}

LabSetup LabController::setup() const
{
    const Loop& l = *m_loop;
    LabSetup s;
    s.anvilUrl = l.devnet ? l.devnet->url() : m_config.rpcUrl;
    for (const auto& p : l.proxies)
        if (p)
            s.nodes << p->url();
    s.environmentId = l.environmentId;
    s.contracts = contracts();
    s.factories = factories();
    return s;
}

void LabController::setUp()
{
    Loop& l = *m_loop;
    l.snap.managed = m_config.managedDevnet;
    l.snap.demoTransfersPerTick = m_config.demoTransfersPerTick;
    try {
        if (!m_config.managedDevnet) {
            // An external node: the lab only checks verdicts against it.
            l.environmentId = m_config.indexer.environmentId.isEmpty()
                                  ? QStringLiteral("default")
                                  : m_config.indexer.environmentId;
            l.anvil = std::make_unique<rpc::JsonRpcClient>(m_config.rpcUrl);
            l.anvil->setTimeout(m_config.indexer.rpcTimeout);
            l.anvil->setStopToken(m_thread.stopToken());
            emit ready(setup());
            publish();
            return;
        }
        startDevnet();
        l.anvil = std::make_unique<rpc::JsonRpcClient>(l.devnet->url());
        l.anvil->setTimeout(m_config.indexer.rpcTimeout);
        l.anvil->setStopToken(m_thread.stopToken());
        if (m_config.labNodes > 0)
            startProxies();
        l.environmentId = m_config.indexer.environmentId.isEmpty()
                              ? lab::LabReset::newEnvironmentId()
                              : m_config.indexer.environmentId;
        // Something to watch with nothing to configure: a demo token and live transfers.
        deployDemoToken();
        l.snap.demoTraffic = m_config.demoTraffic;
        l.snap.labReady = true;
        emit ready(setup());
    } catch (const std::exception& e) {
        if (m_thread.stopToken()->stopRequested())
            return;
        emit failed(QString::fromUtf8(e.what()));
    }
    publish();
}

void LabController::startDevnet()
{
    Loop& l = *m_loop;
    if (!l.devnet) {
        l.devnet = std::make_unique<lab::Devnet>();
        connect(l.devnet.get(), &lab::Devnet::exitedUnexpectedly, l.devnet.get(),
                [this](int code, const QString& tail) {
                    m_loop->snap.devnetRunning = false;
                    emit failed(
                        QStringLiteral("managed anvil exited (code %1): %2").arg(code).arg(tail));
                    publish();
                });
    }
    lab::Devnet::Options o;
    // The same port on a restart: every client (indexer, fetch threads, health) keeps its URL.
    o.port = l.devnetPort;
    if (!l.devnetState.isValid())
        throw lab::DevnetError(
            QStringLiteral("cannot create a temporary directory for the devnet's state"));
    // anvil dumps its chain here when stopped and loads it when started again: blocks and
    // hashes survive, so a stop/start is an outage of the same chain, not a new chain.
    o.extraArgs << QStringLiteral("--state")
                << l.devnetState.filePath(QStringLiteral("anvil-state.json"));
    l.devnet->start(o);
    l.devnetPort = l.devnet->port();
    l.snap.devnetRunning = true;
    emit logMessage(QStringLiteral("info"),
                    QStringLiteral("managed anvil started at %1 (log %2)")
                        .arg(l.devnet->url().toString(), l.devnet->logPath()));
}

void LabController::startProxies()
{
    Loop& l = *m_loop;
    // The proxies serve on a thread of their own, driven by its event loop.
    auto* holder = new QObject;
    l.proxyThread.start(holder);
    for (int i = 0; i < m_config.labNodes; ++i) {
        lab::FaultProxy* proxy = nullptr;
        try {
            proxy = lab::startFaultProxyOn(l.proxyThread.thread(), l.devnet->url());
        } catch (const lab::DevnetError& e) {
            throw lab::DevnetError(QStringLiteral("lab node %1: %2").arg(i + 1).arg(e.message()));
        }
        l.proxies.append(proxy);
        l.snap.labNodes << proxy->url().toString();
    }
    emit logMessage(QStringLiteral("info"),
                    QStringLiteral("lab nodes (fault proxies in front of anvil): %1")
                        .arg(l.snap.labNodes.join(QStringLiteral(", "))));
    publishKnobs();
}

void LabController::publishKnobs()
{
    QList<QJsonObject> knobs;
    for (const auto& p : m_loop->proxies) {
        QJsonObject k;
        if (p)
            QMetaObject::invokeMethod(
                p, [&k, p] { k = p->knobs(); }, Qt::BlockingQueuedConnection);
        knobs << k;
    }
    m_loop->snap.proxyKnobs = knobs;
    publish();
}

void LabController::deployDemoToken()
{
    Loop& l = *m_loop;
    const auto sender = lab::DemoToken::defaultSender(*l.anvil);
    l.demo = std::make_unique<lab::DemoToken>(
        lab::DemoToken::deploy(*l.anvil, sender, QStringLiteral("Forkscope Demo"),
                               // A billion FSD: weeks of demo traffic at realistic amounts.
                               QStringLiteral("FSD"), chain::U256("1000000000000000000000000000")));
    l.demoOffset = 0;
    emit logMessage(QStringLiteral("info"),
                    QStringLiteral("demo token deployed at %1").arg(l.demo->address().toHex()));
    l.factory.reset();
    l.demoTicks = 0;
    if (m_config.demoChildEveryTicks > 0) {
        // A factory whose children come and go with the chain: a reorg that drops a
        // creation event takes its child (and every row of it) away.
        l.factory = std::make_unique<lab::DemoFactory>(lab::DemoFactory::deploy(*l.anvil, sender));
        emit logMessage(QStringLiteral("info"),
                        QStringLiteral("demo factory deployed at %1: a child every %2 demo ticks")
                            .arg(l.factory->address().toHex())
                            .arg(m_config.demoChildEveryTicks));
    }
}

int LabController::step()
{
    Loop& l = *m_loop;
    int next = -1;
    if (l.writer) {
        secondWriterStep();
        next = 0;
    }
    if (l.outboxAckUntil) {
        outboxAckStep();
        if (l.outboxAckUntil && next != 0)
            next = 200; // looks at the receiver's counts until the row came again
    }
    if (l.demo && l.snap.demoTraffic && l.snap.devnetRunning && l.snap.labReady) {
        if (!l.nextDemoTick.isForever() && !l.nextDemoTick.hasExpired()) {
            const int wait = int(std::max<qint64>(1, l.nextDemoTick.remainingTime()));
            return next == 0 ? 0 : wait;
        }
        try {
            const int n = std::max(1, l.snap.demoTransfersPerTick);
            l.demo->sprayAmounts(quint64(n), l.demoOffset, 50);
            l.demoOffset += quint64(n);
            demoFactoryTick();
        } catch (const std::exception& e) {
            if (!m_thread.stopToken()->stopRequested())
                emit logMessage(
                    QStringLiteral("warning"),
                    QStringLiteral("demo traffic: %1").arg(QString::fromUtf8(e.what())));
        }
        l.nextDemoTick = QDeadlineTimer(m_config.demoInterval);
        next = next == 0 ? 0 : int(m_config.demoInterval.count());
    }
    return next;
}

void LabController::demoFactoryTick()
{
    Loop& l = *m_loop;
    if (!l.factory)
        return;
    const quint64 tick = l.demoTicks++;
    if (tick % quint64(m_config.demoChildEveryTicks) == 0) {
        const chain::Address child = l.factory->createChild(1000000);
        emit logMessage(QStringLiteral("info"),
                        QStringLiteral("demo factory: child %1 created").arg(child.toHex()));
    }
    l.factory->transferThroughChild(tick);
}

bool LabController::available(const QString& action)
{
    const Loop& l = *m_loop;
    if (!(m_config.managedDevnet && l.devnet && l.snap.devnetRunning)) {
        emit logMessage(
            QStringLiteral("error"),
            QStringLiteral("%1: the lab controls need the managed anvil running").arg(action));
        return false;
    }
    if (!l.snap.labReady) {
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("%1: the lab is still being set up (demo token, indexer); "
                                       "try again once the Lab toolbar is enabled")
                            .arg(action));
        return false;
    }
    return true;
}

void LabController::runAction(const QString& action, const std::function<QString()>& act)
{
    if (!available(action))
        return;
    try {
        emit logMessage(QStringLiteral("warning"), QStringLiteral("lab: %1").arg(act()));
        dueVerdict(action);
    } catch (const std::exception& e) {
        emit logMessage(QStringLiteral("error"),
                        QStringLiteral("%1: %2").arg(action, QString::fromUtf8(e.what())));
    }
    publish();
}

void LabController::setDevnetRunning(bool running)
{
    m_thread.post([this, running] {
        Loop& l = *m_loop;
        if (!m_config.managedDevnet || !l.devnet || running == l.snap.devnetRunning)
            return;
        if (!running) {
            l.devnet->stop();
            l.snap.devnetRunning = false;
            l.snap.devnetStoppedByUser = true;
            emit logMessage(
                QStringLiteral("warning"),
                QStringLiteral("managed anvil stopped (its chain is kept for a restart); the "
                               "indexer waits, checkpoint unchanged"));
        } else {
            try {
                startDevnet();
                l.snap.devnetStoppedByUser = false;
            } catch (const std::exception& e) {
                emit logMessage(QStringLiteral("error"),
                                QStringLiteral("cannot start the managed anvil: %1")
                                    .arg(QString::fromUtf8(e.what())));
            }
        }
        publish();
    });
}

void LabController::setDemoTraffic(bool on, int transfersPerTick)
{
    m_thread.post([this, on, transfersPerTick] {
        Loop& l = *m_loop;
        l.snap.demoTransfersPerTick = std::clamp(transfersPerTick, 1, 200);
        if (!l.demo || !l.snap.labReady) {
            emit logMessage(QStringLiteral("error"),
                            m_config.managedDevnet
                                ? QStringLiteral("demo traffic: the lab is still being set up; "
                                                 "try again once the Lab toolbar is enabled")
                                : QStringLiteral("demo traffic needs the managed lab"));
            publish(); // the toggle the user clicked goes back to what the lab does
            return;
        }
        if (on != l.snap.demoTraffic)
            emit logMessage(QStringLiteral("info"),
                            on ? QStringLiteral("demo traffic on: %1 transfers a second")
                                     .arg(l.snap.demoTransfersPerTick)
                               : QStringLiteral("demo traffic off"));
        l.snap.demoTraffic = on;
        l.nextDemoTick = QDeadlineTimer(0);
        publish();
    });
}

void LabController::injectReorg(int depth, int txMode)
{
    m_thread.post([this, depth, txMode] {
        const QString action = QStringLiteral("inject reorg depth %1 (%2)")
                                   .arg(depth)
                                   .arg(lab::ReorgInjector::modeName(lab::ReorgTxMode(txMode)));
        runAction(action, [&] {
            return lab::ReorgInjector::inject(*m_loop->anvil, depth, lab::ReorgTxMode(txMode))
                .describe();
        });
    });
}

void LabController::rollbackBlocks(int blocks)
{
    m_thread.post([this, blocks] {
        const QString n = text::count(blocks, QStringLiteral("block"), QStringLiteral("blocks"));
        runAction(QStringLiteral("roll back %1").arg(n), [&] {
            const quint64 head = lab::ReorgInjector::rollback(*m_loop->anvil, blocks);
            return QStringLiteral("rolled back %1; head is now %2 (the next blocks mined "
                                  "replace them)")
                .arg(n)
                .arg(head);
        });
    });
}

void LabController::setProxyKnobs(int node, const QJsonObject& changes)
{
    m_thread.post([this, node, changes] {
        lab::FaultProxy* proxy = m_loop->proxies.value(node);
        if (!proxy) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("fault proxy: there is no lab node %1").arg(node + 1));
            return;
        }
        QString error;
        QJsonObject before;
        // The proxies serve on their own thread; the change is applied there.
        QMetaObject::invokeMethod(
            proxy,
            [&] {
                before = proxy->knobs();
                error = proxy->applyKnobs(changes);
            },
            Qt::BlockingQueuedConnection);
        if (!error.isEmpty()) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("fault proxy node %1: %2").arg(node + 1).arg(error));
            return;
        }
        // What changed, not every knob the dialog sent: "node 2 now comes back online" of a
        // node that was never offline is news that did not happen.
        const QJsonObject changed = lab::changedKnobs(before, changes);
        if (changed.isEmpty())
            emit logMessage(
                QStringLiteral("info"),
                QStringLiteral("lab: node %1 unchanged (its knobs were already so)").arg(node + 1));
        else
            emit logMessage(QStringLiteral("warning"), QStringLiteral("lab: node %1 now %2")
                                                           .arg(node + 1)
                                                           .arg(lab::describeKnobChanges(changed)));
        publishKnobs();
        const QString action = QStringLiteral("fault proxy change on node %1").arg(node + 1);
        dueVerdict(action);
        publish();
    });
}

void LabController::sprayOne()
{
    m_thread.post([this] {
        Loop& l = *m_loop;
        if (!l.demo || l.snap.demoTraffic)
            return;
        try {
            l.demo->sprayAmounts(1, l.demoOffset++, 50);
        } catch (const std::exception& e) {
            emit logMessage(QStringLiteral("warning"),
                            QStringLiteral("demo transfer: %1").arg(QString::fromUtf8(e.what())));
        }
    });
}

void LabController::tearDown()
{
    Loop& l = *m_loop;
    l.writer.reset();
    l.writerEth.reset();
    l.writerRpc.reset();
    l.writerStore.reset();
    l.proxyThread.stop();
    l.proxies.clear();
    l.demo.reset();
    l.factory.reset();
    l.anvil.reset();
    if (l.replica)
        l.replica->stop();
    l.replica.reset();
    if (l.devnet) {
        archiveLiveEnvironment();
        l.devnet->stop();
        l.devnet.reset();
    }
    l.book.reset();
    l.truth.reset();
    l.snap.devnetRunning = false;
    l.snap.labReady = false;
    publish();
    emit stopped();
}

} // namespace forkscope::engine
