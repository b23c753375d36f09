#pragma once

#include "ProxyLie.h"

#include <QHash>
#include <QJsonObject>
#include <QMap>
#include <QMutex>
#include <QObject>
#include <QPointer>
#include <QRandomGenerator>
#include <QTcpServer>
#include <QUrl>
#include <atomic>
#include <optional>

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
//   errorRate    that share of requests fails: alternately HTTP 503 and a JSON-RPC error
//   dropLogs     eth_getLogs answers [] (a misconfigured provider: logs absent, blocks intact)
//   logCap       eth_getLogs results above N logs are either cut to N without a word
//                (Silent, like providers that truncate) or refused with an error in one of
//                the wordings real providers use (Announced)
//   lie          rewrites replies the way a lying provider does (ProxyLie.h): a foreign or
//                out-of-range log, logs with another block hash, headers that do not link
//   trickleBps   sends each reply at N bytes a second (a node that never quite answers)
//   padReplyBytes  appends N bytes of whitespace to each reply (a huge but valid reply)
//   upstream     another node to forward to (a provider switched to another chain)
//   balanceWith  a second node: requests go to it and to upstream in turn, one each, as a
//                round-robin load balancer sends them ("" for upstream alone)
//   noReceipts   eth_getBlockReceipts is refused as a method the node does not serve
//   dropLogRate, dropBlockRate  drops random logs, or every log of random blocks, from
//                eth_getLogs and (unless dropInReceipts is false) eth_getBlockReceipts, the
//                same ones each time (ProxyLie.h)
// The knobs are also readable and settable over HTTP, even while offline:
//   GET  <proxy>/_forkscope/proxy          -> {"offline":false,"lagBlocks":0,...}
//   POST <proxy>/_forkscope/proxy {knobs}  -> the knobs after the change
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
    void setErrorRate(double rate) { m_errorRate = rate; }
    double errorRate() const { return m_errorRate; }
    enum class CapMode { Silent, Announced };
    void setLogCap(quint64 cap, CapMode mode)
    {
        m_logCap = cap;
        m_capMode = mode;
    }
    quint64 logCap() const { return m_logCap; }
    void setDropLogs(bool drop) { m_dropLogs = drop; }
    bool dropLogs() const { return m_dropLogs; }
    CapMode capMode() const { return m_capMode; }
    void setLie(ProxyLie lie) { m_lie = lie; }
    ProxyLie lie() const { return m_lie; }
    void setTrickleBytesPerSecond(int bps) { m_trickleBps = bps; }
    void setPadReplyBytes(qint64 bytes) { m_padReplyBytes = bytes; }
    void setUpstream(const QUrl& upstream) { m_upstream = upstream; }
    void setNoReceipts(bool refuse) { m_noReceipts = refuse; }
    void setLogDrops(double logRate, double blockRate, bool inReceipts = true)
    {
        m_dropLogRate = logRate;
        m_dropBlockRate = blockRate;
        m_dropInReceipts = inReceipts;
    }
    // Deterministic fault injection for tests.
    void setSeed(quint32 seed);
    // For tests: every eth_getLogs call whose fromBlock is `block` is refused with a
    // JSON-RPC rate-limit error (not a provider limit), the rest pass; -1 = none.
    void setRefuseLogsFrom(qint64 block) { m_refuseLogsFrom = block; }
    qint64 refusedLogCalls() const { return m_refusedLogCalls; }
    // For tests: a node that keeps only recent state, as a pruned (non-archive) node does:
    // eth_getCode, eth_getBalance, eth_getStorageAt, eth_getTransactionCount and eth_call at
    // a block number below `block` are answered with geth's "missing trie node" error; -1 =
    // every block's state is served.
    void setStateFrom(qint64 block) { m_stateFrom = block; }
    qint64 refusedStateCalls() const { return m_refusedStateCalls; }
    // For tests: the next `n` requests of `method` (each one alone, not in a batch) are
    // answered HTTP 503, as an overloaded node answers.
    void failNext(const QString& method, int n);
    // For tests: an eth_getLogs filter of more than `n` addresses is refused as geth refuses
    // one past its --rpc.getlogmaxaddrs ("exceed max addresses"); 0 = no limit.
    void setMaxAddresses(int n) { m_maxAddresses = n; }
    qint64 refusedAddressLists() const { return m_refusedAddressLists; }

    // What the proxy was asked: requests per JSON-RPC method (each one of a batch), and the
    // blocks its eth_getLogs calls spanned. Counted only once switched on (each request is
    // parsed for it); read from any thread.
    struct CallCounts
    {
        QMap<QString, qint64> calls;
        qint64 logsBlocks = 0;
    };
    void setCountCalls(bool count) { m_countCalls = count; }
    CallCounts callCounts() const;

    QJsonObject knobs() const;
    // Applies the keys present in `changes`; returns an error text for a bad value.
    QString applyKnobs(const QJsonObject& changes);
    qint64 injectedErrors() const { return m_injectedErrors; }
    qint64 cappedReplies() const { return m_cappedReplies; }

private:
    struct Pending;
    void onConnection();
    void onReadyRead(QTcpSocket* socket);
    void handle(QTcpSocket* socket, const QByteArray& header, const QByteArray& body);
    void forward(QTcpSocket* socket, const QByteArray& body, qint64 lagHead);
    // Applies lag, caps and dropLogs to a reply; counts capped replies (hence not const).
    QByteArray rewrite(const QByteArray& requestBody, const QByteArray& replyBody, qint64 lagHead);
    void reply(QTcpSocket* socket, int status, const QByteArray& body);
    // Writes `data` a few bytes at a time, at m_trickleBps.
    void trickle(QTcpSocket* socket, const QByteArray& data);
    bool handleAdmin(QTcpSocket* socket, const QByteArray& header, const QByteArray& body);
    void count(const QByteArray& requestBody);
    QByteArray injectedError(const QByteArray& requestBody);
    // The refusal for a single eth_getLogs request from m_refuseLogsFrom, if this is one.
    std::optional<QByteArray> refusedLogs(const QByteArray& requestBody);
    // The refusal for a single request of state below m_stateFrom, if this is one.
    std::optional<QByteArray> refusedState(const QByteArray& requestBody);
    // Whether this single request is one of the next ones failNext() fails (counted down).
    bool failsNow(const QByteArray& requestBody);
    // The refusal for a single eth_getLogs request of more than m_maxAddresses, if this is one.
    std::optional<QByteArray> refusedAddresses(const QByteArray& requestBody);

    QUrl m_upstream;
    QUrl m_balanceWith;        // empty: every request to m_upstream
    bool m_toBalanced = false; // where the next request goes, with m_balanceWith
    QTcpServer m_server;
    QNetworkAccessManager* m_nam;
    QHash<QTcpSocket*, QByteArray> m_buffers;
    std::atomic<bool> m_offline{false};
    std::atomic<quint64> m_lagBlocks{0};
    std::atomic<int> m_latencyMs{0};
    std::atomic<double> m_errorRate{0.0};
    std::atomic<quint64> m_logCap{0};
    std::atomic<bool> m_dropLogs{false};
    std::atomic<CapMode> m_capMode{CapMode::Silent};
    std::atomic<ProxyLie> m_lie{ProxyLie::None};
    std::atomic<int> m_trickleBps{0};
    std::atomic<qint64> m_padReplyBytes{0};
    std::atomic<double> m_dropLogRate{0.0};
    std::atomic<double> m_dropBlockRate{0.0};
    std::atomic<bool> m_dropInReceipts{true};
    std::atomic<bool> m_noReceipts{false};
    std::atomic<qint64> m_refuseLogsFrom{-1};
    std::atomic<int> m_maxAddresses{0};
    std::atomic<qint64> m_refusedAddressLists{0};
    qint64 m_refusedLogCalls = 0;
    std::atomic<qint64> m_stateFrom{-1};
    std::atomic<qint64> m_refusedStateCalls{0};
    QMutex m_failMutex;
    QHash<QString, int> m_failNext; // method -> requests still to fail
    quint32 m_seed = 0;
    QRandomGenerator m_random;
    qint64 m_served = 0;
    qint64 m_injectedErrors = 0;
    qint64 m_cappedReplies = 0;
    int m_wording = 0;
    std::atomic<bool> m_countCalls{false};
    mutable QMutex m_countsMutex;
    CallCounts m_counts;
};

} // namespace forkscope::lab
