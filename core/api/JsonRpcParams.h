#pragma once

#include <QJsonValue>
#include <QList>
#include <QStringList>

namespace forkscope::api {

// A method's parameters, given by position (an array) or by name (an object) as JSON-RPC
// 2.0 §4.2 allows, bound to the method's declared names. Throws JsonRpcError -32602 for
// more positions than the method takes, a name it does not have, or a required one missing:
// an extra parameter is a caller's mistake worth naming, not something to ignore.
class JsonRpcParams
{
public:
    // `names`: the method's parameters in order; the first `required` of them must be given.
    // `params`: absent (Undefined), an array or an object (the envelope checked that).
    JsonRpcParams(const QString& method, const QJsonValue& params, const QStringList& names,
                  qsizetype required);

    // The i-th declared parameter; Undefined when not given.
    QJsonValue at(qsizetype i) const { return m_values.at(i); }

private:
    QList<QJsonValue> m_values;
};

} // namespace forkscope::api
