#include "SharedIndexWatcher.h"
#include "ReorgDiffReader.h"
#include "SummaryReader.h"
#include "TableQuery.h"
#include "concurrency/WorkerThread.h"
#include "health/NodeHealthMonitor.h"
#include "report/ReportBuilder.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContract.h"
#include "store/pg/PgContractReader.h"
#include "store/pg/PgEnvironmentRegistry.h"

#include <QElapsedTimer>

namespace forkscope::engine {

namespace {
constexpr int kReconnectMs = 2000;
constexpr int kListenWaitMs = 250;    // the longest a command waits behind the listen step
constexpr qint64 kMinRefreshMs = 100; // ~10 summaries a second at most
constexpr qint64 kSettleMs = 1500;    // one more read after the last change: rates fall back
} // namespace

// Everything below lives on the watcher's thread only.
struct SharedIndexWatcher::Loop
{
    std::unique_ptr<store::pg::PgConnection> db;
    QString environmentId;
    quint64 chainId = 0;
    QUrl node;
    QString lastLoss;
    bool dirty = true;
    QElapsedTimer sinceRefresh;
    qint64 settleAt = -1; // sinceRefresh time of the settling read, -1: none due
    QElapsedTimer rateClock;
    qint64 rateBase = -1;
    double rate = 0;
    concurrency::WorkerThread healthThread{QStringLiteral("forkscope-shared-health")};
};

SharedIndexWatcher::SharedIndexWatcher(Options options, QObject* parent)
    : QObject(parent), m_options(std::move(options)), m_thread(QStringLiteral("forkscope-shared"))
{
    qRegisterMetaType<DbSummary>();
    qRegisterMetaType<TablePage>();
    qRegisterMetaType<health::HealthSnapshot>();
    qRegisterMetaType<report::CheckpointReport>();
}

SharedIndexWatcher::~SharedIndexWatcher()
{
    requestStop();
    wait();
}

void SharedIndexWatcher::start()
{
    m_loop = std::make_unique<Loop>();
    m_thread.start([] {}, [this] { return step(); },
                   [this] {
                       m_loop->healthThread.stop(
                           [](QObject* m) { static_cast<health::NodeHealthMonitor*>(m)->stop(); });
                       m_loop->db.reset();
                       emit stopped();
                   });
}

void SharedIndexWatcher::requestStop()
{
    m_thread.requestStop();
}

bool SharedIndexWatcher::wait(std::chrono::milliseconds timeout)
{
    return m_thread.wait(timeout);
}

void SharedIndexWatcher::lose(const QString& why)
{
    Loop& l = *m_loop;
    l.db.reset();
    l.dirty = true;
    if (why != l.lastLoss)
        emit logMessage(QStringLiteral("error"), why);
    l.lastLoss = why;
    emit databaseLost(why);
}

bool SharedIndexWatcher::attach()
{
    Loop& l = *m_loop;
    store::pg::PgConnection::Options o;
    o.applicationName = QStringLiteral("forkscope app (watching)");
    l.db = store::pg::PgConnection::open(m_options.url, o);
    // A watcher never migrates: a database an older Forkscope wrote is refused until an
    // indexer process (which migrates) has run on it.
    store::pg::requireCurrentPgContract(*l.db);
    l.db->listen(store::pg::kCheckpointChannel);
    l.db->listen(store::pg::kOutboxChannel);
    store::pg::PgContractReader reader(*l.db);
    const QString env = m_options.environmentId.isEmpty()
                            ? report::ReportBuilder::liveEnvironment(reader)
                            : m_options.environmentId;
    const report::EnvironmentInfo info = report::ReportBuilder::findEnvironment(reader, env);
    const bool first = l.environmentId.isEmpty();
    l.environmentId = info.id;
    l.chainId = info.chainId;
    l.node = m_options.healthNodes.isEmpty() ? QUrl(info.rpcUrl) : m_options.healthNodes.first();
    if (!l.lastLoss.isEmpty())
        emit logMessage(QStringLiteral("ok"),
                        QStringLiteral("shared database %1 is back").arg(l.db->displayUrl()));
    l.lastLoss.clear();
    emit attached(l.environmentId, l.chainId, l.node);
    if (first) {
        // Node health as for a file: every watched node polled on its own thread.
        health::NodeHealthMonitor::Config hc;
        hc.nodes = m_options.healthNodes.isEmpty() ? QList<QUrl>{l.node} : m_options.healthNodes;
        hc.interval = m_options.healthInterval;
        hc.timeout = m_options.healthTimeout;
        hc.environmentId = l.environmentId;
        hc.chainId = l.chainId;
        // "Forked" is judged against the shared index's blocks (its own connection).
        hc.dbPath = m_options.url;
        auto* monitor = new health::NodeHealthMonitor(hc);
        connect(monitor, &health::NodeHealthMonitor::healthAvailable, monitor,
                [this](const health::HealthSnapshot& h) { emit healthAvailable(h); });
        l.healthThread.start(monitor, &health::NodeHealthMonitor::start);
    }
    return true;
}

void SharedIndexWatcher::refresh()
{
    Loop& l = *m_loop;
    store::pg::PgContractReader reader(*l.db);
    DbSummary s = readSummary(reader, l.environmentId, l.chainId);
    s.schemaVersion = store::pg::kPgContractVersion;
    if (l.rateBase < 0 || !l.rateClock.isValid()) {
        l.rateClock.start();
        l.rateBase = s.outboxDelivered;
    } else if (l.rateClock.elapsed() >= 1000) {
        l.rate = std::max(0.0, double(s.outboxDelivered - l.rateBase) * 1000.0 /
                                   double(l.rateClock.restart()));
        l.rateBase = s.outboxDelivered;
    }
    s.outboxDeliveredPerSecond = l.rate;
    l.sinceRefresh.start();
    l.dirty = false;
    emit summaryAvailable(s);
}

int SharedIndexWatcher::step()
{
    Loop& l = *m_loop;
    try {
        if (!l.db)
            attach();
        const qint64 since = l.sinceRefresh.isValid() ? l.sinceRefresh.elapsed() : kMinRefreshMs;
        if (l.dirty && since >= kMinRefreshMs) {
            refresh();
            return 0;
        }
        if (l.settleAt >= 0 && since >= l.settleAt) {
            l.settleAt = -1;
            refresh();
            return 0;
        }
        // Wait on the connection's socket: the announcements are the only trigger.
        const int wait = l.dirty ? int(kMinRefreshMs - since) : kListenWaitMs;
        const auto arrived = l.db->notifications(std::max(0, wait));
        // Any announcement: our checkpoint or outbox moved, or another environment's
        // (whose first checkpoint changes the environments list). One read covers them all.
        if (!arrived.isEmpty()) {
            l.dirty = true;
            l.settleAt = kSettleMs;
        }
        return 0;
    } catch (const std::exception& e) {
        lose(QStringLiteral("shared database %1: %2; trying again every %3 s")
                 .arg(QUrl(m_options.url).toString(QUrl::RemovePassword),
                      QString::fromUtf8(e.what()))
                 .arg(kReconnectMs / 1000));
        return kReconnectMs;
    }
}

void SharedIndexWatcher::requestTablePage(const TableRequest& request)
{
    m_thread.post([this, request] {
        Loop& l = *m_loop;
        TablePage page;
        page.request = request;
        if (!l.db) {
            page.error = QStringLiteral("the shared database is not reachable");
        } else {
            try {
                store::pg::PgContractReader reader(*l.db);
                page = TableQuery::fetch(reader,
                                         request.environmentId.isEmpty() ? l.environmentId
                                                                         : request.environmentId,
                                         request);
            } catch (const std::exception& e) {
                page.error = QString::fromUtf8(e.what());
            }
        }
        emit tablePageAvailable(page);
    });
    m_thread.wake();
}

void SharedIndexWatcher::requestReorgDiff(qint64 id)
{
    m_thread.post([this, id] {
        Loop& l = *m_loop;
        if (!l.db || l.environmentId.isEmpty())
            return;
        try {
            store::pg::PgContractReader reader(*l.db);
            if (const auto diff = readReorgDiff(reader, l.environmentId, id))
                emit reorgDiffAvailable(*diff);
        } catch (const std::exception& e) {
            emit logMessage(QStringLiteral("error"),
                            QStringLiteral("reorg diff: %1").arg(QString::fromUtf8(e.what())));
        }
    });
    m_thread.wake();
}

void SharedIndexWatcher::requestReport(quint64 ticket, const QString& environmentId, bool verify,
                                       std::chrono::milliseconds rpcTimeout)
{
    m_thread.post([this, ticket, environmentId, verify, rpcTimeout] {
        Loop& l = *m_loop;
        if (!l.db) {
            emit reportFailed(ticket, QStringLiteral("the shared database is not reachable"));
            return;
        }
        try {
            const QString env = environmentId.isEmpty() ? l.environmentId : environmentId;
            std::unique_ptr<rpc::JsonRpcClient> client;
            std::unique_ptr<rpc::EthClient> eth;
            if (verify && l.node.isValid()) {
                // Its own client, stopped with this thread: a report never holds up a stop.
                client = std::make_unique<rpc::JsonRpcClient>(l.node);
                client->setTimeout(rpcTimeout);
                client->setStopToken(m_thread.stopToken());
                eth = std::make_unique<rpc::EthClient>(*client);
            }
            store::pg::PgContractReader reader(*l.db);
            emit reportAvailable(ticket, report::ReportBuilder::build(reader, env, eth.get()));
        } catch (const std::exception& e) {
            emit reportFailed(ticket, QString::fromUtf8(e.what()));
        }
    });
    m_thread.wake();
}

} // namespace forkscope::engine
