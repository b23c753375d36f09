#include "EthClient.h"
#include "chain/ChainParseError.h"
#include "chain/Hex.h"

#include <QJsonObject>
#include <memory>

namespace forkscope::rpc {

using chain::ChainParseError;
namespace hex = chain::hex;

namespace {
[[noreturn]] void throwMalformed(const RpcResponse& r, const QString& method,
                                 const ChainParseError& e)
{
    RpcError err;
    err.kind = RpcError::Kind::Malformed;
    err.method = method;
    err.endpoint = r.error ? r.error->endpoint : r.endpoint;
    err.message = e.message();
    throw RpcException(err);
}

void throwIfError(const RpcResponse& r)
{
    if (r.error)
        throw RpcException(*r.error);
}
} // namespace

QJsonObject LogFilter::toJson() const
{
    QJsonObject o;
    if (blockHash) {
        o.insert(QStringLiteral("blockHash"), blockHash->toHex());
    } else {
        o.insert(QStringLiteral("fromBlock"), hex::encodeQuantity(fromBlock));
        o.insert(QStringLiteral("toBlock"), hex::encodeQuantity(toBlock));
    }
    if (!addresses.isEmpty()) {
        QJsonArray a;
        for (const auto& addr : addresses)
            a.append(addr.toHex());
        o.insert(QStringLiteral("address"), a);
    }
    if (!topics.isEmpty()) {
        QJsonArray t;
        for (const auto& position : topics) {
            if (position.isEmpty()) {
                t.append(QJsonValue::Null);
                continue;
            }
            QJsonArray alts;
            for (const auto& h : position)
                alts.append(h.toHex());
            t.append(alts);
        }
        o.insert(QStringLiteral("topics"), t);
    }
    return o;
}

RpcResponse EthClient::call(const QString& method, const QJsonArray& params)
{
    RpcCall* c = m_rpc.call(method, params);
    JsonRpcClient::waitFor(c);
    RpcResponse r = c->response();
    if (r.error)
        r.error->endpoint = m_rpc.endpoint().toString(QUrl::RemoveUserInfo);
    delete c;
    return r;
}

std::uint64_t EthClient::parseQuantity(const RpcResponse& r, const QString& what)
{
    throwIfError(r);
    try {
        return hex::parseQuantityU63(r.result, what);
    } catch (const ChainParseError& e) {
        throwMalformed(r, what, e);
    }
}

std::optional<chain::BlockHeader> EthClient::parseBlock(const RpcResponse& r, const QString& what)
{
    throwIfError(r);
    if (r.result.isNull())
        return std::nullopt;
    try {
        return chain::BlockHeader::fromJson(r.result, what);
    } catch (const ChainParseError& e) {
        throwMalformed(r, what, e);
    }
}

QList<chain::LogEntry> EthClient::parseLogs(const RpcResponse& r)
{
    throwIfError(r);
    const QString what = QStringLiteral("eth_getLogs");
    try {
        if (!r.result.isArray())
            throw ChainParseError(what, hex::describe(r.result),
                                  QStringLiteral("expected an array of logs"));
        QList<chain::LogEntry> logs;
        const QJsonArray a = r.result.toArray();
        logs.reserve(a.size());
        for (qsizetype i = 0; i < a.size(); ++i)
            logs.append(chain::LogEntry::fromJson(a.at(i), what + QStringLiteral("[%1]").arg(i)));
        return logs;
    } catch (const ChainParseError& e) {
        throwMalformed(r, what, e);
    }
}

std::uint64_t EthClient::chainId()
{
    return parseQuantity(call(QStringLiteral("eth_chainId"), {}), QStringLiteral("eth_chainId"));
}

std::uint64_t EthClient::blockNumber()
{
    return parseQuantity(call(QStringLiteral("eth_blockNumber"), {}),
                         QStringLiteral("eth_blockNumber"));
}

std::optional<chain::BlockHeader> EthClient::blockByNumber(std::uint64_t number)
{
    const QString q = hex::encodeQuantity(number);
    return parseBlock(call(QStringLiteral("eth_getBlockByNumber"), {q, false}),
                      QStringLiteral("eth_getBlockByNumber(%1)").arg(q));
}

std::optional<chain::BlockHeader> EthClient::latestBlock()
{
    return parseBlock(
        call(QStringLiteral("eth_getBlockByNumber"), {QStringLiteral("latest"), false}),
        QStringLiteral("eth_getBlockByNumber(latest)"));
}

std::optional<chain::BlockHeader> EthClient::blockByHash(const chain::Hash32& hash)
{
    const QString h = hash.toHex();
    return parseBlock(call(QStringLiteral("eth_getBlockByHash"), {h, false}),
                      QStringLiteral("eth_getBlockByHash(%1)").arg(h));
}

RpcCall* EthClient::requestBlocks(std::uint64_t from, std::uint64_t to)
{
    QList<RpcRequest> reqs;
    for (std::uint64_t n = from; n <= to; ++n)
        reqs.append({QStringLiteral("eth_getBlockByNumber"), {hex::encodeQuantity(n), false}});
    return m_rpc.batch(reqs);
}

QList<std::optional<chain::BlockHeader>> EthClient::takeBlocks(RpcCall* call, std::uint64_t from)
{
    std::unique_ptr<RpcCall> owner(call);
    JsonRpcClient::waitFor(call);
    QList<RpcResponse> replies = call->responses();
    QList<std::optional<chain::BlockHeader>> out;
    out.reserve(replies.size());
    for (qsizetype i = 0; i < replies.size(); ++i) {
        if (replies[i].error)
            replies[i].error->endpoint = m_rpc.endpoint().toString(QUrl::RemoveUserInfo);
        out.append(parseBlock(replies[i], QStringLiteral("eth_getBlockByNumber(%1)")
                                              .arg(hex::encodeQuantity(from + std::uint64_t(i)))));
    }
    return out;
}

QList<std::optional<chain::BlockHeader>> EthClient::blocksByNumber(std::uint64_t from,
                                                                   std::uint64_t to)
{
    return takeBlocks(requestBlocks(from, to), from);
}

RpcCall* EthClient::requestLogs(const LogFilter& filter)
{
    return m_rpc.call(QStringLiteral("eth_getLogs"), {filter.toJson()});
}

QList<chain::LogEntry> EthClient::takeLogs(RpcCall* call)
{
    std::unique_ptr<RpcCall> owner(call);
    JsonRpcClient::waitFor(call);
    RpcResponse r = call->response();
    if (r.error)
        r.error->endpoint = m_rpc.endpoint().toString(QUrl::RemoveUserInfo);
    return parseLogs(r);
}

std::pair<std::uint64_t, std::optional<chain::BlockHeader>>
EthClient::headAndBlock(std::uint64_t number)
{
    const QString q = hex::encodeQuantity(number);
    QList<RpcResponse> r =
        m_rpc.batchBlocking({{QStringLiteral("eth_blockNumber"), {}},
                             {QStringLiteral("eth_getBlockByNumber"), {q, false}}});
    for (auto& reply : r)
        if (reply.error)
            reply.error->endpoint = m_rpc.endpoint().toString(QUrl::RemoveUserInfo);
    return {parseQuantity(r.at(0), QStringLiteral("eth_blockNumber")),
            parseBlock(r.at(1), QStringLiteral("eth_getBlockByNumber(%1)").arg(q))};
}

QList<chain::LogEntry> EthClient::getLogs(const LogFilter& filter)
{
    return takeLogs(requestLogs(filter));
}

std::optional<QJsonArray> EthClient::parseBlockReceipts(const RpcResponse& r, const QString& what)
{
    throwIfError(r);
    if (r.result.isNull())
        return std::nullopt;
    if (!r.result.isArray())
        throwMalformed(r, what,
                       ChainParseError(what, hex::describe(r.result),
                                       QStringLiteral("expected an array of receipts or null")));
    return r.result.toArray();
}

RpcCall* EthClient::requestBlockReceipts(const chain::Hash32& blockHash)
{
    return m_rpc.call(QStringLiteral("eth_getBlockReceipts"), {blockHash.toHex()});
}

std::optional<QJsonArray> EthClient::takeBlockReceipts(RpcCall* call,
                                                       const chain::Hash32& blockHash)
{
    std::unique_ptr<RpcCall> owner(call);
    JsonRpcClient::waitFor(call);
    RpcResponse r = call->response();
    if (r.error)
        r.error->endpoint = m_rpc.endpoint().toString(QUrl::RemoveUserInfo);
    return parseBlockReceipts(r, QStringLiteral("eth_getBlockReceipts(%1)").arg(blockHash.toHex()));
}

std::optional<QJsonArray> EthClient::blockReceipts(const chain::Hash32& blockHash)
{
    return takeBlockReceipts(requestBlockReceipts(blockHash), blockHash);
}

std::optional<QJsonObject> EthClient::blockJsonByHash(const chain::Hash32& hash)
{
    const QString h = hash.toHex();
    const QString what = QStringLiteral("eth_getBlockByHash(%1)").arg(h);
    const RpcResponse r = call(QStringLiteral("eth_getBlockByHash"), {h, false});
    throwIfError(r);
    if (r.result.isNull())
        return std::nullopt;
    if (!r.result.isObject())
        throwMalformed(r, what,
                       ChainParseError(what, hex::describe(r.result),
                                       QStringLiteral("expected a block object or null")));
    return r.result.toObject();
}

} // namespace forkscope::rpc
