#include "JsonRpcEnvelope.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace forkscope::api {

namespace {
QJsonObject errorObject(const QJsonValue& id, int code, const QString& message)
{
    return {{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
            {QStringLiteral("id"), id},
            {QStringLiteral("error"),
             QJsonObject{{QStringLiteral("code"), code}, {QStringLiteral("message"), message}}}};
}

QString typeName(const QJsonValue& v)
{
    switch (v.type()) {
    case QJsonValue::Null:
        return QStringLiteral("null");
    case QJsonValue::Bool:
        return QStringLiteral("a boolean");
    case QJsonValue::Double:
        return QStringLiteral("a number");
    case QJsonValue::String:
        return QStringLiteral("a string");
    case QJsonValue::Array:
        return QStringLiteral("an array");
    case QJsonValue::Object:
        return QStringLiteral("an object");
    case QJsonValue::Undefined:
        break;
    }
    return QStringLiteral("missing");
}

QJsonObject invalid(const QJsonValue& id, const QString& message)
{
    return errorObject(id, jsonrpc::kInvalidRequest, message);
}

// One element of a batch, or the whole body: the response, or nothing for a notification.
std::optional<QJsonObject> answerOne(const QJsonValue& v, const JsonRpcMethods& methods)
{
    if (!v.isObject())
        return invalid(QJsonValue::Null,
                       QStringLiteral("a request must be a JSON object, not %1").arg(typeName(v)));
    const QJsonObject req = v.toObject();
    const bool notification = !req.contains(QLatin1String("id"));
    const QJsonValue id = req.value(QLatin1String("id"));
    if (!notification && !id.isString() && !id.isDouble() && !id.isNull())
        return invalid(QJsonValue::Null, QStringLiteral("id must be a string, a number or null, "
                                                        "not %1")
                                             .arg(typeName(id)));
    // From here the id is known (null for a request without one, which is not a valid
    // notification either and is still answered).
    const QJsonValue replyId = notification ? QJsonValue(QJsonValue::Null) : id;
    const QJsonValue version = req.value(QLatin1String("jsonrpc"));
    if (!version.isString() || version.toString() != QLatin1String("2.0"))
        return invalid(replyId, QStringLiteral("jsonrpc must be \"2.0\", not %1")
                                    .arg(version.isString() ? QStringLiteral("\"%1\"").arg(
                                                                  version.toString().left(20))
                                                            : typeName(version)));
    const QJsonValue method = req.value(QLatin1String("method"));
    if (!method.isString())
        return invalid(replyId,
                       QStringLiteral("method must be a string, not %1").arg(typeName(method)));
    const QJsonValue params = req.value(QLatin1String("params"));
    QJsonObject response;
    try {
        // A well-formed call whose params are not structured: the method's params are
        // wrong (-32602), as for any other params it cannot take.
        if (!params.isUndefined() && !params.isArray() && !params.isObject())
            throw JsonRpcError{jsonrpc::kInvalidParams,
                               QStringLiteral("params must be an array or an object, not %1")
                                   .arg(typeName(params))};
        const QJsonValue result = methods(method.toString(), params);
        response = {{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                    {QStringLiteral("id"), id},
                    {QStringLiteral("result"), result}};
    } catch (const JsonRpcError& e) {
        response = errorObject(id, e.code, e.message);
    } catch (const std::exception& e) {
        response = errorObject(id, jsonrpc::kInternalError, QString::fromUtf8(e.what()));
    }
    // The spec: "The Server MUST NOT reply to a Notification", errors included.
    if (notification)
        return std::nullopt;
    return response;
}

QByteArray compact(const QJsonObject& o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}
} // namespace

std::optional<QByteArray> answerJsonRpc(QByteArrayView body, const JsonRpcMethods& methods)
{
    // QJsonDocument only parses an object or an array at the top; wrapped in [ ], any JSON
    // text parses, and a valid body is exactly one element. So `1` or `"x"` is a request
    // that is not an object (-32600), not unparseable JSON (-32700).
    QByteArray wrapped;
    wrapped.reserve(body.size() + 2);
    wrapped.append('[').append(body).append(']');
    QJsonParseError pe{};
    const QJsonDocument doc = QJsonDocument::fromJson(wrapped, &pe);
    if (pe.error != QJsonParseError::NoError)
        return compact(errorObject(QJsonValue::Null, jsonrpc::kParseError,
                                   QStringLiteral("parse error: %1 at offset %2")
                                       .arg(pe.errorString())
                                       .arg(std::clamp<qsizetype>(pe.offset - 1, 0, body.size()))));
    const QJsonArray top = doc.array();
    if (top.size() != 1)
        return compact(errorObject(QJsonValue::Null, jsonrpc::kParseError,
                                   top.isEmpty()
                                       ? QStringLiteral("parse error: the body is empty")
                                       : QStringLiteral("parse error: more than one JSON value")));
    const QJsonValue v = top.first();
    if (!v.isArray()) {
        const auto response = answerOne(v, methods);
        return response ? std::optional(compact(*response)) : std::nullopt;
    }
    const QJsonArray batch = v.toArray();
    if (batch.isEmpty())
        return compact(invalid(QJsonValue::Null, QStringLiteral("empty batch")));
    if (batch.size() > jsonrpc::kMaxBatch)
        return compact(
            invalid(QJsonValue::Null, QStringLiteral("batch of %1 calls is larger than %2")
                                          .arg(batch.size())
                                          .arg(jsonrpc::kMaxBatch)));
    QJsonArray responses;
    for (const QJsonValue& call : batch)
        if (const auto response = answerOne(call, methods))
            responses.append(*response);
    // "If there are no Response objects ... the server MUST NOT return an empty Array and
    // should return nothing at all."
    if (responses.isEmpty())
        return std::nullopt;
    return QJsonDocument(responses).toJson(QJsonDocument::Compact);
}

std::optional<QByteArray> refuseJsonRpc(QByteArrayView body, int code, const QString& message)
{
    return answerJsonRpc(body, [&](const QString&, const QJsonValue&) -> QJsonValue {
        throw JsonRpcError{code, message};
    });
}

QByteArray jsonRpcErrorReply(int code, const QString& message)
{
    return compact(errorObject(QJsonValue::Null, code, message));
}

} // namespace forkscope::api
