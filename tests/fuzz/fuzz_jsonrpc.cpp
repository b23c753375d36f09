// The local API's JSON-RPC 2.0 layer: answerJsonRpc (the envelope: batches, notifications,
// ids, error codes) and JsonRpcParams with the readers of each method's params, bound as
// LocalApi binds them (the database reads behind them are tst_api's). The input is a
// request body. The reply must be JSON that says what the specification says (one response
// per call that is not a notification, in order, each with a result or an error of a known
// code), and a batch must answer each call exactly as that call alone is answered (an array
// in a batch is not a batch of its own: an invalid request).

#include "FuzzSupport.h"
#include "api/JsonRpcEnvelope.h"
#include "api/JsonRpcParams.h"
#include "chain/Address.h"
#include "chain/ChainParseError.h"
#include "chain/Hash32.h"
#include "chain/Hex.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace api = forkscope::api;
namespace chain = forkscope::chain;

namespace {

template <typename Read> auto param(Read&& read)
{
    try {
        return read();
    } catch (const chain::ChainParseError& e) {
        throw api::JsonRpcError{api::jsonrpc::kInvalidParams, e.message()};
    }
}

// LocalApi::call's methods and params, answering with what the params were read as.
QJsonValue call(const QString& method, const QJsonValue& params)
{
    const auto bind = [&](const QStringList& names, qsizetype required) {
        return api::JsonRpcParams(method, params, names, required);
    };
    if (method == QLatin1String("getLatestBlock") || method == QLatin1String("getCheckpoint")) {
        bind({}, 0);
        return QJsonValue::Null;
    }
    if (method == QLatin1String("getBlockByHeight")) {
        const QJsonValue h = bind({QStringLiteral("height")}, 1).at(0);
        if (h.isDouble())
            return h;
        return QString::number(
            param([&] { return chain::hex::parseQuantityU63(h, QStringLiteral("height")); }));
    }
    if (method == QLatin1String("getBlockById") || method == QLatin1String("blockIsValid"))
        return param([&] {
            return chain::Hash32::fromJson(bind({QStringLiteral("hash")}, 1).at(0),
                                           QStringLiteral("hash"))
                .toHex();
        });
    if (method == QLatin1String("getBalances")) {
        const api::JsonRpcParams p =
            bind({QStringLiteral("contract"), QStringLiteral("holder")}, 1);
        QJsonArray out{param(
            [&] { return chain::Address::fromJson(p.at(0), QStringLiteral("contract")).toHex(); })};
        if (!p.at(1).isUndefined() && !p.at(1).isNull())
            out.append(param([&] {
                return chain::Address::fromJson(p.at(1), QStringLiteral("holder")).toHex();
            }));
        return out;
    }
    if (method == QLatin1String("throws"))
        throw std::runtime_error("a method's own failure");
    throw api::JsonRpcError{api::jsonrpc::kMethodNotFound,
                            QStringLiteral("method \"%1\" does not exist").arg(method.left(60))};
}

QString text(const QByteArray& b)
{
    return QString::fromUtf8(b.left(400));
}

// One response object as the specification shapes it.
void checkResponse(const QJsonValue& v, const QByteArray& reply)
{
    FUZZ_CHECK(v.isObject(), text(reply));
    const QJsonObject o = v.toObject();
    FUZZ_CHECK(o.value(QLatin1String("jsonrpc")) == QLatin1String("2.0"), text(reply));
    const QJsonValue id = o.value(QLatin1String("id"));
    FUZZ_CHECK(id.isString() || id.isDouble() || id.isNull(), text(reply));
    const bool result = o.contains(QLatin1String("result"));
    const bool error = o.contains(QLatin1String("error"));
    FUZZ_CHECK(result != error && o.size() == 3, text(reply));
    if (error) {
        const QJsonObject e = o.value(QLatin1String("error")).toObject();
        const int code = e.value(QLatin1String("code")).toInt();
        FUZZ_CHECK(code == api::jsonrpc::kParseError || code == api::jsonrpc::kInvalidRequest ||
                       code == api::jsonrpc::kMethodNotFound ||
                       code == api::jsonrpc::kInvalidParams || code == api::jsonrpc::kInternalError,
                   text(reply));
        FUZZ_CHECK(e.value(QLatin1String("message")).isString(), text(reply));
    }
}

QJsonValue parsed(const QByteArray& reply)
{
    QJsonParseError pe{};
    const QJsonDocument doc = QJsonDocument::fromJson(reply, &pe);
    FUZZ_CHECK(pe.error == QJsonParseError::NoError, text(reply));
    return doc.isArray() ? QJsonValue(doc.array()) : QJsonValue(doc.object());
}

} // namespace

FUZZ_INIT

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray body = forkscope::fuzz::bytes(data, size);
    const std::optional<QByteArray> reply = api::answerJsonRpc(body, call);
    if (!reply) {
        // Nothing is answered only to notifications: the body was JSON.
        QJsonParseError pe{};
        QJsonDocument::fromJson('[' + body + ']', &pe);
        FUZZ_CHECK(pe.error == QJsonParseError::NoError, text(body));
        return 0;
    }
    const QJsonValue answer = parsed(*reply);
    if (answer.isObject()) {
        checkResponse(answer, *reply);
        return 0;
    }
    // A batch: one response per call that is not a notification, each as the call alone
    // gets it.
    const QJsonArray responses = answer.toArray();
    FUZZ_CHECK(!responses.isEmpty() && responses.size() <= api::jsonrpc::kMaxBatch, text(*reply));
    QJsonParseError pe{};
    const QJsonArray calls = QJsonDocument::fromJson(body, &pe).array();
    FUZZ_CHECK(pe.error == QJsonParseError::NoError && !calls.isEmpty(), text(body));
    qsizetype next = 0;
    for (const QJsonValue& c : calls) {
        // A batch inside a batch is not one: it is a request that is not an object.
        if (c.isArray()) {
            FUZZ_CHECK(next < responses.size(), text(*reply));
            const QJsonObject e = responses.at(next++).toObject();
            FUZZ_CHECK(e.value(QLatin1String("error")).toObject().value(QLatin1String("code")) ==
                           api::jsonrpc::kInvalidRequest,
                       text(*reply));
            continue;
        }
        const QByteArray one = QJsonDocument(QJsonArray{c}).toJson(QJsonDocument::Compact);
        const std::optional<QByteArray> alone =
            api::answerJsonRpc(QByteArrayView(one).sliced(1, one.size() - 2), call);
        if (!alone)
            continue;
        FUZZ_CHECK(next < responses.size(), text(*reply));
        checkResponse(responses.at(next), *reply);
        FUZZ_CHECK(
            responses.at(next) == parsed(*alone),
            text(one) + QStringLiteral(" alone: ") + text(*alone) +
                QStringLiteral(" in the batch: ") +
                text(QJsonDocument(QJsonArray{responses.at(next)}).toJson(QJsonDocument::Compact)));
        ++next;
    }
    FUZZ_CHECK(next == responses.size(), text(*reply));
    return 0;
}
