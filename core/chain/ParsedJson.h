#pragma once

#include <QByteArray>
#include <QJsonValue>
#include <QString>
#include <memory>

namespace forkscope::chain {

// A value inside a JSON text parsed once by simdjson (a JSON-RPC reply's `result`), shared
// cheaply: the readers of the chain types (EthClient::parse*, proof::verifyReceipts) read it
// straight into their types, with no QJsonDocument tree in between. simdjson itself stays
// behind this handle (chain/JsonDom.h, private to forkscope_core).
class ParsedJson
{
public:
    // Bytes a buffer keeps allocated past its end (QByteArray::capacity()) so that simdjson
    // reads it in place; without them each parse copies the whole text first.
    static constexpr qsizetype kPaddingBytes = 64;

    struct Node; // chain/JsonDom.h

    ParsedJson() = default;
    explicit ParsedJson(std::shared_ptr<const Node> node) : m_node(std::move(node)) {}

    // The whole of `text`; an invalid handle, and the reason in `*error`, when it is not
    // JSON that simdjson reads.
    static ParsedJson parse(const QByteArray& text, QString* error = nullptr);

    bool isValid() const { return bool(m_node); }
    const Node* node() const { return m_node.get(); }
    // For callers that keep Qt JSON (cold paths): the same value as a QJsonValue;
    // Undefined for an invalid handle.
    QJsonValue toQt() const;

private:
    std::shared_ptr<const Node> m_node;
};

} // namespace forkscope::chain
