#pragma once

#include "AbiType.h"
#include "chain/Hash32.h"
#include "chain/LogEntry.h"

#include <QHash>
#include <QJsonDocument>
#include <QString>

namespace forkscope::abi {

struct AbiEvent
{
    QString name;
    QList<AbiParam> inputs;
    bool anonymous = false;
    QString signature; // "Transfer(address,address,uint256)"
    chain::Hash32 topic0;

    // As declared: "Transfer(address indexed from, address indexed to, uint256 value)".
    QString declaration() const;
};

// What decoding one log gave.
struct EventDecoding
{
    enum class Status { NotConfigured, Decoded, Unmatched, Failed };
    Status status = Status::NotConfigured;
    QString eventName;
    QByteArray argsJson; // compact JSON object, when Decoded
    QString error;       // when Failed
};

// The events of a source's ABI, matched by topic0. A source IS its contracts and their ABI
// (docs/design.md, "The wire: the receiver owns the cursor"), so decoding happens on the
// fetch side. Anonymous events cannot be matched by topic and are reported as Unmatched
// (kept raw), like logs no ABI entry describes.
class EventRegistry
{
public:
    EventRegistry() = default;
    // A standard Solidity ABI JSON: an array, or an artefact object with an "abi" array.
    static EventRegistry fromJson(const QJsonDocument& doc, const QString& origin);
    // The bytes of an ABI file; `origin` names it in errors. Throws AbiError.
    static EventRegistry fromBytes(const QByteArray& bytes, const QString& origin);
    static EventRegistry fromFile(const QString& path); // throws AbiError naming the file

    bool isEmpty() const { return m_byTopic.isEmpty() && m_anonymous == 0; }
    int eventCount() const { return int(m_byTopic.size()) + m_anonymous; }
    const AbiEvent* find(const chain::Hash32& topic0) const;
    // The events of that name (overloads are several).
    QList<AbiEvent> findByName(const QString& name) const;
    EventDecoding decode(const chain::LogEntry& log) const;
    // A short digest of the ABI (part of the wire context: the config the logs were decoded with).
    QString digest() const { return m_digest; }

private:
    QHash<chain::Hash32, AbiEvent> m_byTopic;
    int m_anonymous = 0;
    QString m_digest;
};

} // namespace forkscope::abi
