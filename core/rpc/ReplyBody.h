#pragma once

#include "JsonRpcClient.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace forkscope::rpc {

// What one HTTP reply body says to the requests it answers. The body is parsed once, by
// simdjson; each response's `json` points into that parse (and, unless its request is
// typed, `result` holds the same value as a QJsonValue). A batch reply is matched to the
// requests by id; a single reply's id must be the request's.
struct ReplyRequests
{
    QList<RpcRequest> requests;
    QList<qint64> ids;
    bool batch = false;
    QString endpoint; // as errors name it (no user info)
};

// One entry per request, in request order, each with its result or its own error; a body
// that fails as a whole gives every entry the same error. `httpStatus` is the reply's.
QList<RpcResponse> parseReplyBody(const QByteArray& body, int httpStatus, const ReplyRequests& to);

} // namespace forkscope::rpc
