#include "RpcError.h"
#include "chain/ChainParseError.h"

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
    // The node's own words, kept whole in `message` for the callers that read them (a
    // provider's limit), are shown on one bounded line: a node could otherwise forge the next
    // log line or print megabytes. A provider's advice runs to a few hundred characters.
    const QString shown = chain::shownText(message, kind == Kind::Remote ? 1000 : -1);
    if (kind == Kind::Remote)
        s += QStringLiteral(": code %1: %2").arg(code).arg(shown);
    else if (kind == Kind::Http)
        s += QStringLiteral(": HTTP %1: %2").arg(httpStatus).arg(shown);
    else
        s += QStringLiteral(": ") + shown;
    return s;
}

RpcException::RpcException(RpcError e)
    : std::runtime_error(e.toString().toStdString()), m_error(std::move(e))
{
}

} // namespace forkscope::rpc
