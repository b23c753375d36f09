#include "EthClient.h"
#include "chain/ChainJson.h"
#include "chain/ChainParseError.h"
#include "chain/Hex.h"

#include <QJsonDocument>
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

// The result as simdjson parsed it; a response built by hand with only a QJsonValue is
// written out and parsed, so it meets the same readers.
template <typename Read> auto readResult(const RpcResponse& r, const QString& what, Read&& read)
{
    if (r.json.isValid())
        return read(chain::json::valueOf(r.json));
    return chain::json::readQt(r.result, what, read);
}

bool isNullResult(const RpcResponse& r)
{
    return r.json.isValid() ? chain::json::valueOf(r.json).isNull() : r.result.isNull();
}

[[noreturn]] void throwMismatch(const RpcResponse& r, const QString& what, const QString& answer)
{
    RpcError err;
    err.kind = RpcError::Kind::Mismatch;
    err.method = what;
    err.endpoint = r.endpoint;
    err.message =
        QStringLiteral("asked %1, the node answered %2; nothing from it is used").arg(what, answer);
    throw RpcException(err);
}

QString numberWhat(std::uint64_t number)
{
    return QStringLiteral("eth_getBlockByNumber(%1)").arg(hex::encodeQuantity(number));
}

QString hashWhat(const chain::Hash32& hash)
{
    return QStringLiteral("eth_getBlockByHash(%1)").arg(hash.toHex());
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

RpcResponse EthClient::call(const QString& method, const QJsonArray& params, bool typed)
{
    return takeResponse(m_rpc.call(RpcRequest{method, params, typed}));
}

std::uint64_t EthClient::parseQuantity(const RpcResponse& r, const QString& what)
{
    throwIfError(r);
    try {
        return readResult(r, what, [&](const chain::json::Value& v) {
            return chain::json::quantityU63(v, chain::FieldPath(what));
        });
    } catch (const ChainParseError& e) {
        throwMalformed(r, what, e);
    }
}

std::optional<chain::BlockHeader> EthClient::parseBlock(const RpcResponse& r, const QString& what)
{
    throwIfError(r);
    if (isNullResult(r))
        return std::nullopt;
    try {
        return readResult(r, what, [&](const chain::json::Value& v) {
            return chain::json::readBlockHeader(v, chain::FieldPath(what));
        });
    } catch (const ChainParseError& e) {
        throwMalformed(r, what, e);
    }
}

std::optional<chain::BlockHeader> EthClient::parseBlockNumbered(const RpcResponse& r,
                                                                std::uint64_t number)
{
    const QString what = numberWhat(number);
    auto header = parseBlock(r, what);
    if (header && header->number != number)
        throwMismatch(r, what, QStringLiteral("block %1").arg(header->number));
    return header;
}

std::optional<chain::BlockHeader> EthClient::parseBlockHashed(const RpcResponse& r,
                                                              const chain::Hash32& hash)
{
    const QString what = hashWhat(hash);
    auto header = parseBlock(r, what);
    if (header && header->hash != hash)
        throwMismatch(
            r, what,
            QStringLiteral("block %1 with hash %2").arg(header->number).arg(header->hash.toHex()));
    return header;
}

QList<chain::LogEntry> EthClient::parseLogs(const RpcResponse& r)
{
    throwIfError(r);
    const QString what = QStringLiteral("eth_getLogs");
    try {
        return readResult(r, what, [&](const chain::json::Value& v) {
            return chain::json::readLogs(v, chain::FieldPath(what));
        });
    } catch (const ChainParseError& e) {
        throwMalformed(r, what, e);
    }
}

std::uint64_t EthClient::chainId()
{
    return parseQuantity(call(QStringLiteral("eth_chainId"), {}, true),
                         QStringLiteral("eth_chainId"));
}

std::uint64_t EthClient::blockNumber()
{
    return parseQuantity(call(QStringLiteral("eth_blockNumber"), {}, true),
                         QStringLiteral("eth_blockNumber"));
}

std::optional<chain::BlockHeader> EthClient::blockByNumber(std::uint64_t number)
{
    return parseBlockNumbered(
        call(QStringLiteral("eth_getBlockByNumber"), {hex::encodeQuantity(number), false}, true),
        number);
}

std::optional<chain::BlockHeader> EthClient::latestBlock()
{
    return parseBlock(
        call(QStringLiteral("eth_getBlockByNumber"), {QStringLiteral("latest"), false}, true),
        QStringLiteral("eth_getBlockByNumber(latest)"));
}

std::optional<chain::BlockHeader> EthClient::blockByHash(const chain::Hash32& hash)
{
    return parseBlockHashed(call(QStringLiteral("eth_getBlockByHash"), {hash.toHex(), false}, true),
                            hash);
}

RpcCall* EthClient::requestBlocks(std::uint64_t from, std::uint64_t to)
{
    QList<RpcRequest> reqs;
    for (std::uint64_t n = from; n <= to; ++n)
        reqs.append(
            {QStringLiteral("eth_getBlockByNumber"), {hex::encodeQuantity(n), false}, true});
    return m_rpc.batch(reqs);
}

QList<std::optional<chain::BlockHeader>> EthClient::takeBlocks(RpcCall* call, std::uint64_t from)
{
    const QList<RpcResponse> replies = takeResponses(call);
    QList<std::optional<chain::BlockHeader>> out;
    out.reserve(replies.size());
    for (qsizetype i = 0; i < replies.size(); ++i)
        out.append(parseBlockNumbered(replies[i], from + std::uint64_t(i)));
    return out;
}

QList<std::optional<chain::BlockHeader>> EthClient::blocksByNumber(std::uint64_t from,
                                                                   std::uint64_t to)
{
    return takeBlocks(requestBlocks(from, to), from);
}

RpcCall* EthClient::requestLogs(const LogFilter& filter)
{
    return m_rpc.call(RpcRequest{QStringLiteral("eth_getLogs"), {filter.toJson()}, true});
}

QList<chain::LogEntry> EthClient::takeLogs(RpcCall* call)
{
    return parseLogs(takeResponse(call));
}

HeadCheck EthClient::headCheck(std::uint64_t number)
{
    return takeHeadCheck(requestHeadCheck(number), number);
}

RpcCall* EthClient::requestHeadCheck(std::uint64_t number)
{
    return m_rpc.batch(
        {{QStringLiteral("eth_blockNumber"), {}, true},
         {QStringLiteral("eth_getBlockByNumber"), {hex::encodeQuantity(number), false}, true},
         {QStringLiteral("eth_chainId"), {}, true},
         {QStringLiteral("eth_getBlockByNumber"), {hex::encodeQuantity(0), false}, true}});
}

HeadCheck EthClient::takeHeadCheck(RpcCall* call, std::uint64_t number)
{
    const QList<RpcResponse> r = takeResponses(call);
    HeadCheck c;
    c.head = parseQuantity(r.at(0), QStringLiteral("eth_blockNumber"));
    c.block = parseBlockNumbered(r.at(1), number);
    c.chainId = parseQuantity(r.at(2), QStringLiteral("eth_chainId"));
    if (const auto genesis = parseBlockNumbered(r.at(3), 0))
        c.genesis = genesis->hash;
    return c;
}

QList<chain::LogEntry> EthClient::getLogs(const LogFilter& filter)
{
    return takeLogs(requestLogs(filter));
}

std::optional<chain::ParsedJson> EthClient::parseBlockReceiptsJson(const RpcResponse& r,
                                                                   const QString& what)
{
    throwIfError(r);
    if (isNullResult(r))
        return std::nullopt;
    const chain::json::Value v = chain::json::valueOf(r.json);
    if (r.json.isValid() ? !v.is(simdjson::dom::element_type::ARRAY) : !r.result.isArray())
        throwMalformed(
            r, what,
            ChainParseError(what,
                            r.json.isValid() ? chain::json::describe(v) : hex::describe(r.result),
                            QStringLiteral("expected an array of receipts or null")));
    if (r.json.isValid())
        return r.json;
    return chain::ParsedJson::parse(
        QJsonDocument(r.result.toArray()).toJson(QJsonDocument::Compact));
}

std::optional<QJsonArray> EthClient::parseBlockReceipts(const RpcResponse& r, const QString& what)
{
    const std::optional<chain::ParsedJson> parsed = parseBlockReceiptsJson(r, what);
    if (!parsed)
        return std::nullopt;
    return r.json.isValid() ? parsed->toQt().toArray() : r.result.toArray();
}

RpcCall* EthClient::requestBlockReceipts(const chain::Hash32& blockHash, bool typed)
{
    return m_rpc.call(
        RpcRequest{QStringLiteral("eth_getBlockReceipts"), {blockHash.toHex()}, typed});
}

namespace {
QString receiptsWhat(const chain::Hash32& blockHash)
{
    return QStringLiteral("eth_getBlockReceipts(%1)").arg(blockHash.toHex());
}
} // namespace

RpcResponse EthClient::takeResponse(RpcCall* call)
{
    return takeResponses(call).front();
}

QList<RpcResponse> EthClient::takeResponses(RpcCall* call)
{
    // Owns the call from here: it is deleted however the wait ends. Each error names the
    // endpoint that gave it (without credentials), for the one-line message.
    std::unique_ptr<RpcCall> owner(call);
    JsonRpcClient::waitFor(call);
    QList<RpcResponse> replies = call->responses();
    for (RpcResponse& r : replies)
        if (r.error)
            r.error->endpoint = m_rpc.endpoint().toString(QUrl::RemoveUserInfo);
    return replies;
}

std::optional<QJsonArray> EthClient::takeBlockReceipts(RpcCall* call,
                                                       const chain::Hash32& blockHash)
{
    return parseBlockReceipts(takeResponse(call), receiptsWhat(blockHash));
}

std::optional<QJsonArray> EthClient::blockReceipts(const chain::Hash32& blockHash)
{
    return takeBlockReceipts(requestBlockReceipts(blockHash), blockHash);
}

std::optional<chain::ParsedJson> EthClient::blockReceiptsJson(const chain::Hash32& blockHash)
{
    return parseBlockReceiptsJson(takeResponse(requestBlockReceipts(blockHash, true)),
                                  receiptsWhat(blockHash));
}

std::optional<QJsonObject> EthClient::blockJsonByHash(const chain::Hash32& hash)
{
    const QString h = hash.toHex();
    const QString what = hashWhat(hash);
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

QByteArray EthClient::codeAt(const chain::Address& address, std::uint64_t block)
{
    const QString what = QStringLiteral("eth_getCode(%1, %2)").arg(address.toHex()).arg(block);
    const RpcResponse r =
        call(QStringLiteral("eth_getCode"), {address.toHex(), hex::encodeQuantity(block)});
    throwIfError(r);
    try {
        return hex::parseData(r.result, what);
    } catch (const ChainParseError& e) {
        throwMalformed(r, what, e);
    }
}

QByteArray EthClient::callContract(const chain::Address& to, const QByteArray& data)
{
    const QString what = QStringLiteral("eth_call(%1)").arg(to.toHex());
    const RpcResponse r = call(QStringLiteral("eth_call"),
                               {QJsonObject{{QStringLiteral("to"), to.toHex()},
                                            {QStringLiteral("data"), hex::encodeData(data)}},
                                QStringLiteral("latest")});
    throwIfError(r);
    try {
        return hex::parseData(r.result, what);
    } catch (const ChainParseError& e) {
        throwMalformed(r, what, e);
    }
}

QList<QByteArray>
EthClient::callContractsAt(const QList<std::pair<chain::Address, QByteArray>>& calls,
                           const chain::Hash32& blockHash)
{
    if (calls.isEmpty())
        return {};
    const QJsonObject block{{QStringLiteral("blockHash"), blockHash.toHex()},
                            {QStringLiteral("requireCanonical"), true}};
    QList<RpcRequest> reqs;
    reqs.reserve(calls.size());
    for (const auto& [to, data] : calls)
        reqs.append({QStringLiteral("eth_call"),
                     {QJsonObject{{QStringLiteral("to"), to.toHex()},
                                  {QStringLiteral("data"), hex::encodeData(data)}},
                      block}});
    const QList<RpcResponse> replies = takeResponses(m_rpc.batch(reqs));
    if (replies.size() != calls.size()) {
        RpcError err;
        err.kind = RpcError::Kind::Malformed;
        err.method = QStringLiteral("eth_call");
        err.endpoint = endpointText();
        err.message = QStringLiteral("%1 replies to a batch of %2 calls")
                          .arg(replies.size())
                          .arg(calls.size());
        throw RpcException(err);
    }
    QList<QByteArray> out;
    out.reserve(replies.size());
    for (qsizetype i = 0; i < replies.size(); ++i) {
        const QString what = QStringLiteral("eth_call(%1)").arg(calls[i].first.toHex());
        throwIfError(replies[i]);
        try {
            out.append(hex::parseData(replies[i].result, what));
        } catch (const ChainParseError& e) {
            throwMalformed(replies[i], what, e);
        }
    }
    return out;
}

} // namespace forkscope::rpc
