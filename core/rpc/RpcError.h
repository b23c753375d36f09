#pragma once

#include <QJsonValue>
#include <QMetaType>
#include <QString>
#include <stdexcept>

namespace forkscope::rpc {

// Everything that can go wrong with one JSON-RPC request, as a value. The kinds matter to
// callers: a Transport/Timeout/Http failure means "the node did not answer" (never a
// reorg), Remote means the node answered with a JSON-RPC error object, Malformed means
// it answered something that is not a valid reply (never silently defaulted).
struct RpcError
{
    // TooLarge: the reply outgrew the client's cap (JsonRpcClient::setMaxReplyBytes) and was
    // cut off unread; callers fetch less at a time, as for a provider's announced limit.
    // Cancelled: the caller's stop token was set while the call waited (the engine is
    // stopping); it says nothing about the node.
    // Mismatch: a well-formed reply that answers another request (a header of another
    // number or hash than asked): the node is inconsistent or lying, never a reorg.
    enum class Kind { Transport, Timeout, Http, Malformed, Remote, TooLarge, Cancelled, Mismatch };

    Kind kind = Kind::Transport;
    QString method;     // the JSON-RPC method, for messages
    QString endpoint;   // the URL, for messages
    int httpStatus = 0; // when known
    qint64 code = 0;    // JSON-RPC error code (Remote)
    QString message;    // node's message, or our description
    QJsonValue data;    // JSON-RPC error data, if any

    // True for failures that say nothing about the chain: the node was unreachable,
    // slow or broken. The indexer keeps its checkpoint on these.
    bool isUnavailability() const
    {
        return kind == Kind::Transport || kind == Kind::Timeout || kind == Kind::Http;
    }
    QString kindName() const;
    QString toString() const;
};

// Thrown by the blocking helpers (used on worker threads only).
class RpcException : public std::runtime_error
{
public:
    explicit RpcException(RpcError e);
    const RpcError& error() const { return m_error; }

private:
    RpcError m_error;
};

} // namespace forkscope::rpc

Q_DECLARE_METATYPE(forkscope::rpc::RpcError)
