#include "EngineSession.h"
#include "lab/Devnet.h"
#include "rpc/EthClient.h"
#include "store/Database.h"

#include <QDir>
#include <QFileInfo>
#include <QTimer>

namespace forkscope::engine {

EngineSession::EngineSession(EngineConfig config, QObject* parent)
    : QObject(parent), m_config(std::move(config))
{
    m_status.managedDevnet = m_config.managedDevnet;
    m_status.dbPath = m_config.dbPath;
    m_status.endpoint = m_config.managedDevnet ? QString() : m_config.rpcUrl.toString();
}

EngineSession::~EngineSession()
{
    stop();
}

void EngineSession::publish()
{
    m_status.updatedAt = QDateTime::currentDateTimeUtc();
    emit statusAvailable(m_status);
}

void EngineSession::start()
{
    m_status.connection = EngineStatus::Connection::Starting;
    publish();
    try {
        if (!m_config.dbPath.isEmpty()) {
            QDir().mkpath(QFileInfo(m_config.dbPath).absolutePath());
            m_db = store::Database::open(m_config.dbPath);
            m_status.schemaVersion = m_db->schemaVersion();
            emit logMessage(QStringLiteral("info"),
                            QStringLiteral("database %1 (schema v%2)")
                                .arg(m_config.dbPath)
                                .arg(m_db->schemaVersion()));
        }
        QUrl url = m_config.rpcUrl;
        if (m_config.managedDevnet) {
            m_devnet = std::make_unique<lab::Devnet>();
            connect(m_devnet.get(), &lab::Devnet::exitedUnexpectedly, this,
                    [this](int code, const QString& tail) {
                        m_status.connection = EngineStatus::Connection::Failed;
                        m_status.message =
                            QStringLiteral("managed anvil exited (code %1): %2").arg(code).arg(tail);
                        emit logMessage(QStringLiteral("error"), m_status.message);
                        publish();
                    });
            m_devnet->start();
            url = m_devnet->url();
            emit logMessage(QStringLiteral("info"),
                            QStringLiteral("managed anvil started at %1 (log %2)")
                                .arg(url.toString(), m_devnet->logPath()));
        }
        m_status.endpoint = url.toString();
        m_rpc = new rpc::JsonRpcClient(url, this);
        m_rpc->setTimeout(m_config.rpcTimeout);
    } catch (const std::exception& e) {
        m_status.connection = EngineStatus::Connection::Failed;
        m_status.message = QString::fromUtf8(e.what());
        emit logMessage(QStringLiteral("error"), m_status.message);
        publish();
        return;
    }
    m_pollTimer = new QTimer(this);
    m_pollTimer->setInterval(m_config.pollInterval);
    connect(m_pollTimer, &QTimer::timeout, this, &EngineSession::poll);
    m_pollTimer->start();
    poll();
}

void EngineSession::poll()
{
    if (!m_rpc || m_pollInFlight)
        return;
    m_pollInFlight = true;
    rpc::RpcCall* call = m_rpc->batch({{QStringLiteral("eth_chainId"), {}},
                                       {QStringLiteral("eth_blockNumber"), {}}});
    connect(call, &rpc::RpcCall::finished, this, [this, call] {
        call->deleteLater();
        m_pollInFlight = false;
        const auto before = m_status.connection;
        try {
            const auto& r = call->responses();
            m_status.chainId = rpc::EthClient::parseQuantity(r.at(0), QStringLiteral("eth_chainId"));
            m_status.headBlock =
                rpc::EthClient::parseQuantity(r.at(1), QStringLiteral("eth_blockNumber"));
            m_status.connection = EngineStatus::Connection::Connected;
            m_status.message.clear();
            if (before != m_status.connection)
                emit logMessage(QStringLiteral("info"),
                                QStringLiteral("connected to %1, chain id %2")
                                    .arg(m_status.endpoint)
                                    .arg(*m_status.chainId));
        } catch (const rpc::RpcException& e) {
            // An unreachable node says nothing about the chain: keep the last known values
            // and mark them stale rather than clearing them.
            m_status.connection = EngineStatus::Connection::Unreachable;
            m_status.message = e.error().toString();
            if (before != m_status.connection)
                emit logMessage(QStringLiteral("warning"), m_status.message);
        }
        publish();
    });
}

void EngineSession::stop()
{
    if (m_pollTimer)
        m_pollTimer->stop();
    delete m_rpc;
    m_rpc = nullptr;
    if (m_devnet) {
        m_devnet->stop();
        m_devnet.reset();
    }
    m_db.reset();
    if (m_status.connection != EngineStatus::Connection::Stopped) {
        m_status.connection = EngineStatus::Connection::Stopped;
        publish();
    }
}

} // namespace forkscope::engine
