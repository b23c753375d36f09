// A node's reply body to the indexer's hot calls: parseReplyBody (the JSON-RPC envelope,
// batches matched by id) and the typed readers EthClient applies to each result
// (parseQuantity, parseBlock, parseLogs, parseBlockReceipts and parseBlockReceiptsJson, over
// chain/JsonDom and chain/ChainJson). The input is one line naming the requests, then the
// body exactly as the node sent it:
//
//     [HTTP status] method [method...]
//     {"jsonrpc":"2.0","id":1,"result":...}
//
// Request ids run from 1; more than one method (or the word "batch" first) makes a batch.
// Every response must carry a result or an error, the readers must accept or throw
// RpcException (never anything else), and a result must read the same from simdjson's parse
// as from the QJsonValue a caller may hold (readQt), value for value and error for error.

#include "FuzzSupport.h"
#include "chain/ParsedJson.h"
#include "rpc/EthClient.h"
#include "rpc/ReplyBody.h"

#include <QJsonDocument>

namespace rpc = forkscope::rpc;
namespace chain = forkscope::chain;

namespace {

const QStringList kHotCalls{
    QStringLiteral("eth_chainId"),          QStringLiteral("eth_blockNumber"),
    QStringLiteral("eth_getBlockByNumber"), QStringLiteral("eth_getBlockByHash"),
    QStringLiteral("eth_getLogs"),          QStringLiteral("eth_getBlockReceipts"),
};

// The first line: status, methods, batch or not.
struct Spec
{
    int status = 200;
    rpc::ReplyRequests to;
};

Spec specOf(QByteArrayView line)
{
    Spec s;
    s.to.endpoint = QStringLiteral("http://node.test:8545");
    QList<QByteArray> words = line.toByteArray().simplified().split(' ');
    if (!words.isEmpty()) {
        bool ok = false;
        const int status = words.front().toInt(&ok);
        if (ok) {
            s.status = status;
            words.removeFirst();
        }
    }
    if (!words.isEmpty() && words.front() == "batch") {
        s.to.batch = true;
        words.removeFirst();
    }
    for (const QByteArray& w : std::as_const(words)) {
        if (s.to.requests.size() == 100)
            break;
        const QString method = QString::fromLatin1(w);
        if (!kHotCalls.contains(method))
            continue;
        // EthClient reads the receipts both ways: typed for the proof, untyped for a QJsonArray.
        const bool typed =
            method != QLatin1String("eth_getBlockReceipts") || s.to.requests.size() % 2 == 0;
        s.to.requests.append({method, {}, typed});
        s.to.ids.append(s.to.requests.size());
    }
    if (s.to.requests.isEmpty()) {
        s.to.requests.append({QStringLiteral("eth_blockNumber"), {}, true});
        s.to.ids.append(1);
    }
    s.to.batch = s.to.batch || s.to.requests.size() > 1;
    return s;
}

// What a typed reader gave: its value as text, or its error.
QString outcome(const std::function<QString()>& read)
{
    try {
        return QStringLiteral("ok: ") + read();
    } catch (const rpc::RpcException& e) {
        FUZZ_CHECK(e.error().kind == rpc::RpcError::Kind::Malformed ||
                       e.error().kind == rpc::RpcError::Kind::Remote ||
                       e.error().kind == rpc::RpcError::Kind::Http,
                   e.error().toString());
        FUZZ_CHECK(!e.error().message.isEmpty() || e.error().kind == rpc::RpcError::Kind::Remote,
                   e.error().toString());
        FUZZ_CHECK(forkscope::fuzz::isOneLine(e.error().toString()), e.error().toString());
        return QStringLiteral("error: ") + e.error().toString();
    }
}

QString show(const chain::BlockHeader& h)
{
    return QStringLiteral("%1 %2 %3 %4 %5 %6")
        .arg(h.number)
        .arg(h.hash.toHex(), h.parentHash.toHex())
        .arg(h.timestamp)
        .arg(h.logsBloom.toHex(), h.receiptsRoot.toHex());
}

QString show(const std::optional<chain::BlockHeader>& h)
{
    return h ? show(*h) : QStringLiteral("null");
}

QString show(const QList<chain::LogEntry>& logs)
{
    QString s;
    for (const chain::LogEntry& l : logs) {
        s += l.address.toHex() + QLatin1Char(' ') + QString::number(l.topics.size()) +
             QLatin1Char(' ') + QString::fromLatin1(l.data.toHex()) + QLatin1Char(' ') +
             QString::number(l.blockNumber) + l.blockHash.toHex() + l.transactionHash.toHex() +
             QString::number(l.transactionIndex) + QLatin1Char('/') + QString::number(l.logIndex) +
             (l.removed ? QStringLiteral(" removed") : QString());
        for (const chain::Hash32& t : l.topics)
            s += QLatin1Char(' ') + t.toHex();
        s += QLatin1Char(';');
    }
    return s;
}

// The reader EthClient applies to `method`'s reply, as its outcome.
QString readAs(const QString& method, const rpc::RpcResponse& r)
{
    using rpc::EthClient;
    if (method == QLatin1String("eth_chainId") || method == QLatin1String("eth_blockNumber"))
        return outcome([&] { return QString::number(EthClient::parseQuantity(r, method)); });
    if (method == QLatin1String("eth_getBlockByNumber") ||
        method == QLatin1String("eth_getBlockByHash"))
        return outcome([&] { return show(EthClient::parseBlock(r, method)); });
    if (method == QLatin1String("eth_getLogs"))
        return outcome([&] { return show(EthClient::parseLogs(r)); });
    // eth_getBlockReceipts: the proof reads the parse, a QJsonArray caller the array.
    const QString asJson = outcome([&] {
        const auto json = EthClient::parseBlockReceiptsJson(r, method);
        return json ? QString::fromUtf8(
                          QJsonDocument(json->toQt().toArray()).toJson(QJsonDocument::Compact))
                    : QStringLiteral("null");
    });
    const QString asArray = outcome([&] {
        const auto array = EthClient::parseBlockReceipts(r, method);
        return array ? QString::fromUtf8(QJsonDocument(*array).toJson(QJsonDocument::Compact))
                     : QStringLiteral("null");
    });
    FUZZ_CHECK(asJson == asArray, asJson + QStringLiteral(" vs ") + asArray);
    return asJson;
}

} // namespace

FUZZ_INIT

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    auto [specLine, body, split] =
        forkscope::fuzz::splitFirstLine(forkscope::fuzz::bytes(data, size));
    const Spec spec = specOf(specLine);
    // JsonRpcClient leaves room past the body so simdjson parses it in place; a body without
    // that room is copied first. Both, by the input's parity.
    if (size % 2 == 0)
        body.reserve(body.size() + chain::ParsedJson::kPaddingBytes);
    else
        body.squeeze();

    const QList<rpc::RpcResponse> responses = rpc::parseReplyBody(body, spec.status, spec.to);
    FUZZ_CHECK(responses.size() == spec.to.requests.size(), QString::number(responses.size()));
    for (qsizetype i = 0; i < responses.size(); ++i) {
        const rpc::RpcResponse& r = responses[i];
        const QString& method = spec.to.requests[i].method;
        FUZZ_CHECK(r.ok() == r.json.isValid(), method);
        FUZZ_CHECK(r.endpoint == spec.to.endpoint, r.endpoint);
        if (r.error) {
            FUZZ_CHECK(!r.error->message.isEmpty() || r.error->kind == rpc::RpcError::Kind::Remote,
                       r.error->toString());
            FUZZ_CHECK(forkscope::fuzz::isOneLine(r.error->toString()), r.error->toString());
        }
        if (r.ok() && !spec.to.requests[i].typed)
            FUZZ_CHECK(r.result == r.json.toQt(), method);
        const QString hot = readAs(method, r);
        if (!r.ok())
            continue;
        // The same result as a hand-built response holds it: only a QJsonValue.
        rpc::RpcResponse byHand;
        byHand.result = r.json.toQt();
        byHand.endpoint = r.endpoint;
        const QString cold = readAs(method, byHand);
        FUZZ_CHECK(hot == cold, hot + QStringLiteral("\n  vs ") + cold);
    }
    return 0;
}
