#include "RpcError.h"

namespace forkscope::rpc {

QString RpcError::kindName() const
{
    switch (kind) {
    case Kind::Transport:
        return QStringLiteral("connection error");
    case Kind::Timeout:
        return QStringLiteral("timeout");
    case Kind::Http:
        return QStringLiteral("HTTP error");
    case Kind::Malformed:
        return QStringLiteral("malformed reply");
    case Kind::Remote:
        return QStringLiteral("JSON-RPC error");
    case Kind::TooLarge:
        return QStringLiteral("reply too large");
    case Kind::Cancelled:
        return QStringLiteral("cancelled");
    case Kind::Mismatch:
        return QStringLiteral("reply to another request");
    }
    return QStringLiteral("error");
}

QString RpcError::toString() const
{
    QString s = QStringLiteral("%1 from %2 (%3)").arg(kindName(), endpoint, method);
    if (kind == Kind::Remote)
        s += QStringLiteral(": code %1: %2").arg(code).arg(message);
    else if (kind == Kind::Http)
        s += QStringLiteral(": HTTP %1: %2").arg(httpStatus).arg(message);
    else
        s += QStringLiteral(": ") + message;
    return s;
}

RpcException::RpcException(RpcError e)
    : std::runtime_error(e.toString().toStdString()), m_error(std::move(e))
{
}

} // namespace forkscope::rpc
