#pragma once

#include <QHash>
#include <QObject>
#include <QPointer>
#include <QTcpServer>
#include <QUrl>
#include <atomic>

class QNetworkAccessManager;
class QTcpSocket;

namespace forkscope::lab {

// A loopback HTTP JSON-RPC proxy in front of one upstream node, with knobs to make it
// misbehave the way real providers do. Each knob can be changed while it runs:
//   offline      connections are closed without a reply (a dead node)
//   lagBlocks    serves the chain as if its head were N blocks back: eth_blockNumber is
//                lowered, eth_getBlockByNumber above that height (and "latest") answers
//                like a node that has not reached it
//   latencyMs    every reply is delayed
// The wire issue extends it with error rates and eth_getLogs result caps.
class FaultProxy : public QObject
{
    Q_OBJECT
public:
    explicit FaultProxy(const QUrl& upstream, QObject* parent = nullptr);
    ~FaultProxy() override;

    // Listens on 127.0.0.1:port (0 = a free port). Throws DevnetError on failure.
    void listen(quint16 port = 0);
    QUrl url() const;
    QUrl upstream() const { return m_upstream; }

    void setOffline(bool offline) { m_offline = offline; }
    bool offline() const { return m_offline; }
    void setLagBlocks(quint64 n) { m_lagBlocks = n; }
    quint64 lagBlocks() const { return m_lagBlocks; }
    void setLatencyMs(int ms) { m_latencyMs = ms; }
    int latencyMs() const { return m_latencyMs; }

    qint64 requestsServed() const { return m_served; }

private:
    struct Pending;
    void onConnection();
    void onReadyRead(QTcpSocket* socket);
    void handle(QTcpSocket* socket, const QByteArray& body);
    void forward(QTcpSocket* socket, const QByteArray& body, qint64 lagHead);
    QByteArray rewrite(const QByteArray& requestBody, const QByteArray& replyBody, qint64 lagHead) const;
    void reply(QTcpSocket* socket, int status, const QByteArray& body);

    QUrl m_upstream;
    QTcpServer m_server;
    QNetworkAccessManager* m_nam;
    QHash<QTcpSocket*, QByteArray> m_buffers;
    std::atomic<bool> m_offline{false};
    std::atomic<quint64> m_lagBlocks{0};
    std::atomic<int> m_latencyMs{0};
    qint64 m_served = 0;
};

} // namespace forkscope::lab
