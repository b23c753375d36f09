#include "NodeHealthMonitor.h"
#include "chain/Hex.h"
#include "rpc/EthClient.h"
#include "store/ReadOnlyStore.h"
#include "store/StoreError.h"

#include <QDateTime>
#include <QElapsedTimer>
#include <QTimer>

namespace forkscope::health {

NodeHealthMonitor::NodeHealthMonitor(Config config, QObject* parent)
    : QObject(parent), m_config(std::move(config))
{
    qRegisterMetaType<HealthSnapshot>();
    for (const QUrl& u : m_config.nodes) {
        NodeHealth h;
        h.url = u.toString();
        m_snapshot.nodes.append(h);
    }
}

NodeHealthMonitor::~NodeHealthMonitor() = default;

void NodeHealthMonitor::start()
{
    // Network and SQL objects are created here, on the monitor's own thread.
    for (const QUrl& u : m_config.nodes) {
        auto* c = new rpc::JsonRpcClient(u, this);
        c->setTimeout(m_config.timeout);
        m_clients.append(c);
    }
    if (!m_config.dbPath.isEmpty()) {
        try {
            m_db = store::ReadOnlyStore::open(m_config.dbPath);
        } catch (const store::StoreError&) {
            m_db.reset(); // no canonical chain to compare with: "forked" is not judged
        }
    }
    m_timer = new QTimer(this);
    m_timer->setInterval(std::max(std::chrono::milliseconds(20), m_config.interval));
    connect(m_timer, &QTimer::timeout, this, &NodeHealthMonitor::poll);
    m_timer->start();
    poll();
}

void NodeHealthMonitor::stop()
{
    if (m_timer)
        m_timer->stop();
    qDeleteAll(m_clients);
    m_clients.clear();
    m_outstanding = 0;
    m_db.reset();
}

std::optional<chain::Hash32> NodeHealthMonitor::canonicalHash(std::uint64_t height)
{
    if (!m_db)
        return std::nullopt;
    try {
        QString env;
        {
            // Its own lock: finishPoll calls this holding m_mutex.
            QMutexLocker lock(&m_envMutex);
            env = m_config.environmentId;
        }
        // An environment is one chain: its id alone selects its blocks.
        // The `blocks` view: on a shared index only blocks at or below the checkpoint.
        const auto q = m_db->reader().query(QStringLiteral("SELECT block_hash FROM blocks WHERE "
                                                           "environment_id = ? AND block_number "
                                                           "= ?"),
                                            {env, qint64(height)});
        if (q->next())
            return chain::Hash32::fromHex(q->value(0).toString(),
                                          QStringLiteral("blocks.block_hash"));
    } catch (const std::exception&) {
    }
    return std::nullopt;
}

void NodeHealthMonitor::poll()
{
    if (m_outstanding > 0 || m_clients.isEmpty())
        return; // the previous poll is still waiting for a slow node
    m_observations = QList<NodeObservation>(m_clients.size());
    m_started = QList<qint64>(m_clients.size(), QDateTime::currentMSecsSinceEpoch());
    m_outstanding = int(m_clients.size());
    for (qsizetype i = 0; i < m_clients.size(); ++i) {
        rpc::JsonRpcClient* client = m_clients[i];
        rpc::RpcCall* call = client->call(QStringLiteral("eth_blockNumber"));
        connect(call, &rpc::RpcCall::finished, this, [this, i, call, client] {
            call->deleteLater();
            QString error;
            bool timedOut = false;
            try {
                const auto head = rpc::EthClient::parseQuantity(call->response(),
                                                                QStringLiteral("eth_blockNumber"));
                m_observations[i].head = head;
                // Then that block's hash, to tell "same height, other branch".
                rpc::RpcCall* blockCall = client->call(QStringLiteral("eth_getBlockByNumber"),
                                                       {chain::hex::encodeQuantity(head), false});
                connect(blockCall, &rpc::RpcCall::finished, this, [this, i, blockCall, head] {
                    blockCall->deleteLater();
                    try {
                        const auto b =
                            rpc::EthClient::parseBlockNumbered(blockCall->response(), head);
                        m_observations[i].answered = true;
                        if (b)
                            m_observations[i].headHash = b->hash;
                    } catch (const rpc::RpcException& e) {
                        QMutexLocker lock(&m_mutex);
                        m_snapshot.nodes[i].lastError = e.error().toString();
                        if (e.error().kind == rpc::RpcError::Kind::Timeout)
                            ++m_snapshot.nodes[i].timeouts;
                    }
                    m_started[i] = QDateTime::currentMSecsSinceEpoch() - m_started[i];
                    if (--m_outstanding == 0)
                        finishPoll();
                });
                return;
            } catch (const rpc::RpcException& e) {
                error = e.error().toString();
                timedOut = e.error().kind == rpc::RpcError::Kind::Timeout;
            }
            {
                QMutexLocker lock(&m_mutex);
                m_snapshot.nodes[i].lastError = error;
                if (timedOut)
                    ++m_snapshot.nodes[i].timeouts;
            }
            m_started[i] = QDateTime::currentMSecsSinceEpoch() - m_started[i];
            if (--m_outstanding == 0)
                finishPoll();
        });
    }
}

void NodeHealthMonitor::searchFork(qsizetype i, std::uint64_t height, std::uint64_t steps)
{
    if (i >= m_clients.size())
        return; // stopped meanwhile
    const QString url = m_snapshot.nodes.value(i).url;
    const auto canonical = canonicalHash(height);
    if (!canonical || steps > kMaxForkSearch) {
        m_forks[url].searching = false; // the indexer has no block there: agreement unknown
        return;
    }
    rpc::RpcCall* call = m_clients[i]->call(QStringLiteral("eth_getBlockByNumber"),
                                            {chain::hex::encodeQuantity(height), false});
    connect(call, &rpc::RpcCall::finished, this, [this, i, call, url, height, steps, canonical] {
        call->deleteLater();
        ForkPoint& f = m_forks[url];
        try {
            const auto b = rpc::EthClient::parseBlockNumbered(call->response(), height);
            if (b && b->hash == *canonical) {
                f.agreedTo = height;
                f.searching = false;
                return;
            }
        } catch (const rpc::RpcException&) {
            f.searching = false; // asked again at a later poll
            return;
        }
        if (height == 0) {
            f.searching = false;
            return;
        }
        searchFork(i, height - 1, steps + 1);
    });
}

void NodeHealthMonitor::finishPoll()
{
    std::optional<std::uint64_t> best;
    for (const auto& o : m_observations)
        if (o.answered)
            best = std::max(best.value_or(0), o.head);
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    QList<std::tuple<QString, int, int>> changes;
    HealthSnapshot copy;
    {
        QMutexLocker lock(&m_mutex);
        for (qsizetype i = 0; i < m_observations.size(); ++i) {
            const auto& o = m_observations[i];
            NodeHealth& n = m_snapshot.nodes[i];
            const NodeState before = n.state;
            const auto drops = m_drops.constFind(n.url);
            const auto alerted = m_alerted.constFind(n.url);
            n.droppedLogs = 0;
            n.lastDropBlock.reset();
            if (drops != m_drops.cend()) {
                n.droppedLogs = drops->first;
                n.lastDropBlock = drops->second;
            } else if (alerted != m_alerted.cend()) {
                n.droppedLogs = alerted->first;
                n.lastDropBlock = alerted->second;
            }
            n.state =
                classify(o, best.value_or(0), m_config.lagThreshold,
                         o.answered ? canonicalHash(o.head) : std::nullopt, n.droppedLogs > 0);
            ++n.polls;
            if (!o.answered)
                ++n.failures;
            else
                n.lastError.clear();
            n.head =
                o.answered ? std::optional<std::uint64_t>(o.head) : n.head; // keep the last known
            if (o.answered)
                n.headHash = o.headHash;
            n.latencyMs = o.answered ? int(m_started[i]) : -1;
            // The first poll reports the initial state as from == to (not a transition).
            if (n.polls == 1)
                changes.append({n.url, int(n.state), int(n.state)});
            else if (before != n.state)
                changes.append({n.url, int(before), int(n.state)});
            auto& h = m_history[n.url];
            h.push_back({now, n.head.value_or(0), n.state});
            while (qsizetype(h.size()) > kHistoryLimit) // bounded: 24 h at one sample a second
                h.pop_front();
        }
        m_snapshot.bestHead = best;
        m_snapshot.at = QDateTime::currentDateTimeUtc();
        copy = m_snapshot;
    }
    // What each node agrees on, for the ready-ratio gate: its head, but a forked node only
    // its fork (unknown until found: nothing).
    QList<std::optional<std::uint64_t>> heads;
    for (qsizetype i = 0; i < m_observations.size(); ++i) {
        const auto& o = m_observations[i];
        const NodeHealth& n = copy.nodes[i];
        if (!o.answered) {
            heads.append(std::nullopt);
            continue;
        }
        if (n.state != NodeState::Forked || !o.headHash) {
            m_forks.remove(n.url);
            heads.append(o.head);
            continue;
        }
        ForkPoint& f = m_forks[n.url];
        if (f.headHash != *o.headHash) {
            f = ForkPoint{*o.headHash, std::nullopt, false};
        }
        if (!f.agreedTo && !f.searching && o.head > 0) {
            f.searching = true;
            searchFork(i, o.head - 1, 1);
        }
        heads.append(f.agreedTo ? std::optional<std::uint64_t>(std::min(*f.agreedTo, o.head))
                                : std::nullopt);
    }
    const auto ready = health::readyHeight(heads, m_config.readyRatio);
    {
        QMutexLocker lock(&m_mutex);
        m_snapshot.readyHeight = ready;
    }
    copy.readyHeight = ready;
    m_ready = ready ? qint64(*ready) : -1;
    for (const auto& [url, from, to] : changes)
        emit nodeStateChanged(url, from, to);
    emit healthAvailable(copy);
}

void NodeHealthMonitor::setEnvironment(const QString& environmentId)
{
    {
        QMutexLocker lock(&m_envMutex);
        if (m_config.environmentId == environmentId)
            return;
        m_config.environmentId = environmentId;
    }
    QMutexLocker lock(&m_mutex);
    m_drops.clear();
    m_alerted.clear();
}

void NodeHealthMonitor::clearDroppedLogs(const QString& url)
{
    QMutexLocker lock(&m_mutex);
    m_drops.remove(QUrl(url).toString());
}

void NodeHealthMonitor::setAlertedNodes(const QHash<QString, QPair<qint64, quint64>>& nodes)
{
    QHash<QString, QPair<qint64, std::uint64_t>> normalized;
    for (auto it = nodes.cbegin(); it != nodes.cend(); ++it)
        normalized.insert(QUrl(it.key()).toString(),
                          {it.value().first, std::uint64_t(it.value().second)});
    QMutexLocker lock(&m_mutex);
    m_alerted = normalized;
}

void NodeHealthMonitor::reportDroppedLogs(const QString& url, qint64 count, std::uint64_t block)
{
    QMutexLocker lock(&m_mutex);
    auto& d = m_drops[QUrl(url).toString()];
    if (count > d.first) {
        d.first = count;
        d.second = block;
    }
}

HealthSnapshot NodeHealthMonitor::snapshot() const
{
    QMutexLocker lock(&m_mutex);
    return m_snapshot;
}

std::optional<std::uint64_t> NodeHealthMonitor::readyHeight() const
{
    const qint64 r = m_ready;
    return r < 0 ? std::nullopt : std::optional<std::uint64_t>(std::uint64_t(r));
}

QList<HealthSample> NodeHealthMonitor::history(const QString& url) const
{
    QMutexLocker lock(&m_mutex);
    const auto it = m_history.constFind(url);
    if (it == m_history.cend())
        return {};
    return QList<HealthSample>(it->begin(), it->end());
}

} // namespace forkscope::health
