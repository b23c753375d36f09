#include "JsonRpcParams.h"
#include "JsonRpcEnvelope.h"

#include <QJsonArray>
#include <QJsonObject>

namespace forkscope::api {

namespace {
QString signature(const QStringList& names)
{
    if (names.isEmpty())
        return QStringLiteral("no params");
    return QStringLiteral("%1 param%2 (%3)")
        .arg(names.size())
        .arg(names.size() == 1 ? QString() : QStringLiteral("s"))
        .arg(names.join(QStringLiteral(", ")));
}
} // namespace

JsonRpcParams::JsonRpcParams(const QString& method, const QJsonValue& params,
                             const QStringList& names, qsizetype required)
    : m_values(names.size(), QJsonValue(QJsonValue::Undefined))
{
    if (params.isArray()) {
        const QJsonArray a = params.toArray();
        if (a.size() > names.size())
            throw JsonRpcError{
                jsonrpc::kInvalidParams,
                QStringLiteral("%1 takes %2, got %3").arg(method, signature(names)).arg(a.size())};
        for (qsizetype i = 0; i < a.size(); ++i)
            m_values[i] = a.at(i);
    } else if (params.isObject()) {
        const QJsonObject o = params.toObject();
        for (auto it = o.begin(); it != o.end(); ++it) {
            const qsizetype i = names.indexOf(it.key());
            if (i < 0)
                throw JsonRpcError{jsonrpc::kInvalidParams,
                                   QStringLiteral("%1 has no param \"%2\" (it takes %3)")
                                       .arg(method, it.key().left(40), signature(names))};
            m_values[i] = it.value();
        }
    }
    for (qsizetype i = 0; i < required; ++i)
        if (m_values.at(i).isUndefined())
            throw JsonRpcError{jsonrpc::kInvalidParams,
                               QStringLiteral("%1 needs param %2").arg(method, names.at(i))};
}

} // namespace forkscope::api
