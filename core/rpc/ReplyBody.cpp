#include "ReplyBody.h"
#include "chain/ChainParseError.h"
#include "chain/JsonDom.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>

namespace forkscope::rpc {

namespace json = chain::json;
using json::Value;
using simdjson::dom::element_type;

namespace {

QString snippet(const QByteArray& body)
{
    constexpr int kMax = 120;
    QString s = chain::shownText(QString::fromUtf8(body.left(kMax)).simplified(), -1);
    if (body.size() > kMax)
        s += QStringLiteral("... (%1 bytes)").arg(body.size());
    return s.isEmpty() ? QStringLiteral("(empty body)") : QLatin1Char('"') + s + QLatin1Char('"');
}

// QJsonValue::toInteger(-1) of the same value: the id as Qt read it.
qint64 idOf(const Value& v)
{
    if (v.is(element_type::INT64))
        return v.e.get_int64().value_unsafe();
    if (v.is(element_type::DOUBLE)) {
        const double d = v.e.get_double().value_unsafe();
        if (d == std::trunc(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0)
            return qint64(d);
    }
    return -1;
}

bool isNumber(const Value& v)
{
    return v.is(element_type::INT64) || v.is(element_type::UINT64) || v.is(element_type::DOUBLE);
}

class Reader
{
public:
    Reader(const ReplyRequests& to, int status, std::shared_ptr<const json::Document> doc)
        : m_to(to), m_status(status), m_doc(std::move(doc))
    {
    }

    RpcError error(RpcError::Kind kind, const QString& method, const QString& message) const
    {
        RpcError e;
        e.kind = kind;
        e.method = method;
        e.endpoint = m_to.endpoint;
        e.message = message;
        e.httpStatus = m_status;
        return e;
    }

    // One JSON-RPC response object into `out` (its error, or its result).
    void response(simdjson::dom::object o, RpcResponse& out, const RpcError& proto,
                  bool typed) const
    {
        const auto m = json::members<std::size_t(2)>(o, {"error", "result"});
        const Value& err = m[0];
        if (err.present && !err.isNull()) {
            RpcError e = proto;
            const Value code = err.is(element_type::OBJECT)
                                   ? json::member(err.e.get_object().value_unsafe(), "code")
                                   : Value{};
            if (!isNumber(code)) {
                e.kind = RpcError::Kind::Malformed;
                e.message = QStringLiteral("the \"error\" member is not a {code, message} object");
            } else {
                const auto eo = json::members<std::size_t(2)>(err.e.get_object().value_unsafe(),
                                                              {"message", "data"});
                e.kind = RpcError::Kind::Remote;
                e.code = qint64(json::toQt(code).toDouble());
                e.message = json::toQt(eo[0]).toString();
                e.data = json::toQt(eo[1]);
            }
            out.error = e;
            return;
        }
        const Value& result = m[1];
        if (!result.present) {
            RpcError e = proto;
            e.kind = RpcError::Kind::Malformed;
            e.message = QStringLiteral("reply has neither \"result\" nor \"error\"");
            out.error = e;
            return;
        }
        out.json = chain::ParsedJson(std::make_shared<const chain::ParsedJson::Node>(
            chain::ParsedJson::Node{m_doc, result.e}));
        out.result = typed ? QJsonValue(QJsonValue::Undefined) : json::toQt(result);
    }

private:
    const ReplyRequests& m_to;
    int m_status;
    std::shared_ptr<const json::Document> m_doc;
};

} // namespace

namespace {
QList<RpcResponse> parse(const QByteArray& body, int httpStatus, const ReplyRequests& to)
{
    const QString methodLabel =
        to.batch ? QStringLiteral("batch of %1").arg(to.requests.size())
                 : (to.requests.isEmpty() ? QString() : to.requests.first().method);
    QList<RpcResponse> out(to.requests.size());
    const auto failAll = [&](const RpcError& e) {
        for (qsizetype i = 0; i < out.size(); ++i) {
            RpcError ei = e;
            ei.method = to.requests.at(i).method;
            out[i].error = ei;
        }
        return out;
    };
    const bool httpOk = httpStatus >= 200 && httpStatus < 300;

    auto doc = std::make_shared<json::Document>();
    const Reader reader(to, httpStatus, doc);
    if (const simdjson::error_code e = doc->parse(body); e != simdjson::SUCCESS) {
        // simdjson is the stricter reader (it refuses integers beyond 64 bits, for one):
        // what Qt reads is JSON, and Qt's error names the offset of what it does not.
        QJsonParseError pe{};
        const QJsonDocument qt = QJsonDocument::fromJson(body, &pe);
        if (pe.error != QJsonParseError::NoError) {
            if (!httpOk)
                return failAll(reader.error(RpcError::Kind::Http, methodLabel, snippet(body)));
            return failAll(reader.error(RpcError::Kind::Malformed, methodLabel,
                                        QStringLiteral("body is not JSON (%1 at offset %2): %3")
                                            .arg(pe.errorString())
                                            .arg(pe.offset)
                                            .arg(snippet(body))));
        }
        // Read as Qt read it: its numbers written out as doubles simdjson reads.
        if (const simdjson::error_code again = doc->parse(
                json::toJsonText(qt.isArray() ? QJsonValue(qt.array()) : QJsonValue(qt.object())));
            again != simdjson::SUCCESS)
            return failAll(reader.error(
                httpOk ? RpcError::Kind::Malformed : RpcError::Kind::Http, methodLabel,
                QStringLiteral("body is not JSON (%1): %2")
                    .arg(QString::fromLatin1(simdjson::error_message(again)), snippet(body))));
    }
    const RpcError proto = reader.error(RpcError::Kind::Malformed, methodLabel, {});
    const simdjson::dom::element root = doc->root();

    if (root.is_object() &&
        (!to.batch || json::member(root.get_object().value_unsafe(), "error").present)) {
        // A single reply, or a batch rejected as a whole with one error object.
        const simdjson::dom::object o = root.get_object().value_unsafe();
        RpcResponse r;
        reader.response(o, r, proto,
                        !to.batch && !to.requests.isEmpty() && to.requests.first().typed);
        const Value id = json::member(o, "id");
        if (!to.batch && r.ok() && idOf(id) != to.ids.first()) {
            r.error = proto;
            r.error->message =
                QStringLiteral("reply id %1 does not match request id %2")
                    .arg(chain::shownText(QString::fromUtf8(
                        QJsonDocument(QJsonArray{json::toQt(id)}).toJson(QJsonDocument::Compact))))
                    .arg(to.ids.first());
            r.json = {};
        }
        if (!httpOk && r.ok())
            r.error = reader.error(RpcError::Kind::Http, methodLabel, snippet(body));
        if (to.batch && r.ok())
            r.error = reader.error(RpcError::Kind::Malformed, methodLabel,
                                   QStringLiteral("expected an array reply to a batch"));
        if (!r.ok())
            return failAll(*r.error);
        out[0] = r;
        return out;
    }
    if (root.is_array() && to.batch) {
        QHash<qint64, simdjson::dom::object> byId;
        const simdjson::dom::array entries = root.get_array().value_unsafe();
        for (const simdjson::dom::element v : entries)
            if (v.is_object())
                byId.insert(idOf(json::member(v.get_object().value_unsafe(), "id")),
                            v.get_object().value_unsafe());
        for (qsizetype i = 0; i < out.size(); ++i) {
            RpcError pi = proto;
            pi.method = to.requests.at(i).method;
            const auto it = byId.constFind(to.ids.at(i));
            if (it == byId.cend()) {
                pi.message = QStringLiteral("the batch reply has no entry for request id %1")
                                 .arg(to.ids.at(i));
                out[i].error = pi;
            } else {
                reader.response(*it, out[i], pi, to.requests.at(i).typed);
            }
        }
        return out;
    }
    return failAll(reader.error(httpOk ? RpcError::Kind::Malformed : RpcError::Kind::Http,
                                methodLabel,
                                QStringLiteral("unexpected JSON shape: %1").arg(snippet(body))));
}

} // namespace

QList<RpcResponse> parseReplyBody(const QByteArray& body, int httpStatus, const ReplyRequests& to)
{
    QList<RpcResponse> out = parse(body, httpStatus, to);
    for (RpcResponse& r : out)
        r.endpoint = to.endpoint;
    return out;
}

} // namespace forkscope::rpc
