#pragma once

// The JSON-RPC replies the fault proxy writes in the node's place (FaultProxy.cpp rewrites
// replies, FaultRefusals.cpp refuses requests).
#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>

namespace forkscope::lab::jsonrpc {

// A JSON-RPC response object for request `req` with `result`.
inline QJsonObject resultFor(const QJsonObject& req, const QJsonValue& result)
{
    return QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                       {QStringLiteral("id"), req.value(QLatin1String("id"))},
                       {QStringLiteral("result"), result}};
}

// A JSON-RPC error response for request `req`, as a node words it.
inline QJsonObject errorFor(const QJsonObject& req, int code, const QString& message)
{
    return QJsonObject{
        {QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
        {QStringLiteral("id"), req.value(QLatin1String("id"))},
        {QStringLiteral("error"),
         QJsonObject{{QStringLiteral("code"), code}, {QStringLiteral("message"), message}}}};
}

inline QByteArray compact(const QJsonObject& o)
{
    return QJsonDocument(o).toJson(QJsonDocument::Compact);
}

} // namespace forkscope::lab::jsonrpc
