// The fault knobs that answer a request in the node's place, before it is forwarded: an
// injected error, a refused log range, state a pruned node no longer has, an address list
// too long, a method failing the next n times.
#include "FaultJsonRpc.h"
#include "FaultProxy.h"
#include "chain/Hex.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutexLocker>

namespace forkscope::lab {

using jsonrpc::compact;
using jsonrpc::errorFor;

namespace {

// The filter of an eth_getLogs request; none for another method (or a batch, which passes).
std::optional<QJsonObject> logFilterOf(const QJsonObject& req)
{
    if (req.value(QLatin1String("method")).toString() != QLatin1String("eth_getLogs"))
        return std::nullopt;
    return req.value(QLatin1String("params")).toArray().at(0).toObject();
}

} // namespace

QByteArray FaultProxy::injectedError(const QByteArray& requestBody)
{
    const QJsonDocument doc = QJsonDocument::fromJson(requestBody);
    const QString message = QStringLiteral("injected fault: internal error");
    if (doc.isArray()) {
        QJsonArray out;
        for (const QJsonValue& v : doc.array())
            out.append(errorFor(v.toObject(), -32603, message));
        return QJsonDocument(out).toJson(QJsonDocument::Compact);
    }
    return compact(errorFor(doc.object(), -32603, message));
}

std::optional<QByteArray> FaultProxy::refusedLogs(const QByteArray& requestBody)
{
    const QJsonObject req = QJsonDocument::fromJson(requestBody).object();
    const std::optional<QJsonObject> filter = logFilterOf(req);
    if (!filter)
        return std::nullopt;
    const QJsonValue from = filter->value(QLatin1String("fromBlock"));
    try {
        if (qint64(chain::hex::parseQuantityU63(from, QStringLiteral("fromBlock"))) !=
            m_refuseLogsFrom)
            return std::nullopt;
    } catch (const std::exception&) {
        return std::nullopt; // a tag such as "latest": not the block refused
    }
    ++m_refusedLogCalls;
    return compact(errorFor(req, 429, QStringLiteral("rate limited, slow down")));
}

void FaultProxy::failNext(const QString& method, int n)
{
    QMutexLocker lock(&m_failMutex);
    m_failNext.insert(method, n);
}

bool FaultProxy::failsNow(const QByteArray& requestBody)
{
    QMutexLocker lock(&m_failMutex);
    if (m_failNext.isEmpty())
        return false;
    const QString method = QJsonDocument::fromJson(requestBody)
                               .object() // batches pass
                               .value(QLatin1String("method"))
                               .toString();
    const auto it = m_failNext.find(method);
    if (it == m_failNext.end() || *it <= 0)
        return false;
    --*it;
    return true;
}

std::optional<QByteArray> FaultProxy::refusedState(const QByteArray& requestBody)
{
    const QJsonObject req = QJsonDocument::fromJson(requestBody).object(); // batches pass
    const QString method = req.value(QLatin1String("method")).toString();
    // Where each method takes its block: the last parameter.
    static const QSet<QString> stateMethods{
        QStringLiteral("eth_getCode"), QStringLiteral("eth_getBalance"),
        QStringLiteral("eth_getStorageAt"), QStringLiteral("eth_getTransactionCount"),
        QStringLiteral("eth_call")};
    if (!stateMethods.contains(method))
        return std::nullopt;
    const QJsonArray params = req.value(QLatin1String("params")).toArray();
    if (params.isEmpty())
        return std::nullopt;
    try {
        if (qint64(chain::hex::parseQuantityU63(params.last(), QStringLiteral("block"))) >=
            m_stateFrom)
            return std::nullopt;
    } catch (const std::exception&) {
        return std::nullopt; // a tag such as "latest": recent state
    }
    ++m_refusedStateCalls;
    return compact(errorFor(req, -32000,
                            QStringLiteral("missing trie node "
                                           "0000000000000000000000000000000000000000000000000"
                                           "000000000000000 (path ) state is not available")));
}

std::optional<QByteArray> FaultProxy::refusedAddresses(const QByteArray& requestBody)
{
    const QJsonObject req = QJsonDocument::fromJson(requestBody).object();
    const std::optional<QJsonObject> filter = logFilterOf(req);
    if (!filter)
        return std::nullopt;
    const QJsonValue addresses = filter->value(QLatin1String("address"));
    if (!addresses.isArray() || addresses.toArray().size() <= m_maxAddresses)
        return std::nullopt;
    ++m_refusedAddressLists;
    return compact(errorFor(req, -32602, QStringLiteral("exceed max addresses")));
}

} // namespace forkscope::lab
