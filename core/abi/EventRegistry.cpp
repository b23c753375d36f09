#include "EventRegistry.h"
#include "AbiDecoder.h"
#include "chain/Keccak.h"

#include <QCryptographicHash>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <algorithm>

namespace forkscope::abi {

namespace {

// A field of an ABI entry that must be of one JSON type when present.
QJsonValue optionalField(const QJsonObject& o, const char* field, QJsonValue::Type type,
                         const char* expected, const QString& where)
{
    const QJsonValue v = o.value(QLatin1String(field));
    if (!v.isUndefined() && v.type() != type)
        throw AbiError(QStringLiteral("%1.%2 %3")
                           .arg(where, QLatin1String(field), jsonTypeMismatch(v, expected)));
    return v;
}

AbiEvent eventFromJson(const QJsonObject& e, const QString& where)
{
    AbiEvent ev;
    ev.name = optionalField(e, "name", QJsonValue::String, "a string", where).toString();
    if (ev.name.isEmpty())
        throw AbiError(QStringLiteral("%1: event without a name").arg(where));
    ev.anonymous = optionalField(e, "anonymous", QJsonValue::Bool, "a boolean", where).toBool();
    const QJsonArray inputs =
        optionalField(e, "inputs", QJsonValue::Array, "an array", where).toArray();
    QStringList types;
    for (qsizetype j = 0; j < inputs.size(); ++j) {
        const AbiParam p =
            AbiParam::fromJson(inputs.at(j), where + QStringLiteral(".inputs[%1]").arg(j));
        types << p.type.canonical();
        ev.inputs.append(p);
    }
    ev.signature = ev.name + QLatin1Char('(') + types.join(QLatin1Char(',')) + QLatin1Char(')');
    ev.topic0 = chain::eventTopic(ev.signature);
    return ev;
}

// Why a log's topics do not fit its event, naming the topics that are missing or extra.
QString topicCountMismatch(const AbiEvent& ev, qsizetype topics)
{
    QStringList indexedNames;
    for (qsizetype i = 0; i < ev.inputs.size(); ++i)
        if (ev.inputs[i].indexed)
            indexedNames << (ev.inputs[i].name.isEmpty() ? QStringLiteral("input %1").arg(i)
                                                         : ev.inputs[i].name);
    const qsizetype indexed = indexedNames.size();
    const qsizetype needed = 1 + indexed;
    QString s = QStringLiteral("event %1 has ").arg(ev.declaration());
    if (indexed == 0)
        s += QStringLiteral("no indexed inputs, so the log needs 1 topic (the signature)");
    else
        s += QStringLiteral("%1 indexed input%2, so the log needs %3 topics (signature + %1)")
                 .arg(indexed)
                 .arg(indexed == 1 ? QString() : QStringLiteral("s"))
                 .arg(needed);
    s += QStringLiteral("; it has %1: ").arg(topics);
    QStringList named;
    for (qsizetype t = std::min(topics, needed); t < std::max(topics, needed); ++t)
        named << (t < needed ? QStringLiteral("%1 (%2)").arg(t).arg(indexedNames[t - 1])
                             : QString::number(t));
    const bool one = named.size() == 1;
    s += (one ? QStringLiteral("topic ") : QStringLiteral("topics ")) +
         named.join(QStringLiteral(", "));
    if (topics < needed)
        return s + (one ? QStringLiteral(" is missing") : QStringLiteral(" are missing"));
    return s + (one ? QStringLiteral(" is extra") : QStringLiteral(" are extra")) +
           QStringLiteral(" (does the contract index inputs this ABI does not?)");
}

} // namespace

QString AbiEvent::declaration() const
{
    QStringList params;
    for (const auto& p : inputs) {
        QString d = p.type.canonical();
        if (p.indexed)
            d += QStringLiteral(" indexed");
        if (!p.name.isEmpty())
            d += QLatin1Char(' ') + p.name;
        params << d;
    }
    return name + QLatin1Char('(') + params.join(QStringLiteral(", ")) + QLatin1Char(')') +
           (anonymous ? QStringLiteral(" anonymous") : QString());
}

EventRegistry EventRegistry::fromJson(const QJsonDocument& doc, const QString& origin)
{
    QJsonArray entries;
    if (doc.isArray())
        entries = doc.array();
    else if (doc.isObject() && doc.object().contains(QLatin1String("abi")) &&
             !doc.object().value(QLatin1String("abi")).isArray())
        throw AbiError(QStringLiteral("%1: abi %2")
                           .arg(origin, jsonTypeMismatch(doc.object().value(QLatin1String("abi")),
                                                         "an array")));
    else if (doc.isObject() && doc.object().value(QLatin1String("abi")).isArray())
        entries = doc.object().value(QLatin1String("abi")).toArray();
    else
        throw AbiError(QStringLiteral("%1: not an ABI (expected a JSON array, or an object with an "
                                      "\"abi\" array)")
                           .arg(origin));
    EventRegistry r;
    QStringList signatures;
    for (qsizetype i = 0; i < entries.size(); ++i) {
        const QString where = QStringLiteral("%1: abi[%2]").arg(origin).arg(i);
        if (!entries.at(i).isObject())
            throw AbiError(where + QLatin1Char(' ') + jsonTypeMismatch(entries.at(i), "an object"));
        const QJsonObject e = entries.at(i).toObject();
        // An entry without a type is a function (the ABI specification's default).
        if (optionalField(e, "type", QJsonValue::String, "a string", where).toString() !=
            QLatin1String("event"))
            continue;
        const AbiEvent ev = eventFromJson(e, where);
        // The declaration, names included: they are the keys of the decoded arguments.
        signatures << ev.declaration() + (ev.anonymous ? QStringLiteral(" anonymous") : QString());
        if (ev.anonymous)
            ++r.m_anonymous;
        else
            r.m_byTopic.insert(ev.topic0, ev);
    }
    signatures.sort();
    r.m_digest =
        QString::fromLatin1(QCryptographicHash::hash(signatures.join(QLatin1Char('\n')).toUtf8(),
                                                     QCryptographicHash::Sha256)
                                .toHex()
                                .left(16));
    return r;
}

EventRegistry EventRegistry::fromFile(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        throw AbiError(QStringLiteral("cannot read ABI file %1: %2").arg(path, f.errorString()));
    return fromBytes(f.readAll(), path);
}

EventRegistry EventRegistry::fromBytes(const QByteArray& bytes, const QString& origin)
{
    QJsonParseError pe{};
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &pe);
    if (pe.error != QJsonParseError::NoError)
        throw AbiError(QStringLiteral("ABI file %1 is not JSON: %2 at offset %3")
                           .arg(origin, pe.errorString())
                           .arg(pe.offset));
    return fromJson(doc, origin);
}

const AbiEvent* EventRegistry::find(const chain::Hash32& topic0) const
{
    const auto it = m_byTopic.constFind(topic0);
    return it == m_byTopic.cend() ? nullptr : &*it;
}

QList<AbiEvent> EventRegistry::findByName(const QString& name) const
{
    QList<AbiEvent> out;
    for (const AbiEvent& e : m_byTopic)
        if (e.name == name)
            out.append(e);
    return out;
}

EventDecoding EventRegistry::decode(const chain::LogEntry& log) const
{
    EventDecoding d;
    if (isEmpty())
        return d;
    const AbiEvent* ev = log.topics.isEmpty() ? nullptr : find(log.topics.front());
    if (!ev) {
        d.status = EventDecoding::Status::Unmatched;
        return d;
    }
    d.eventName = ev->name;
    try {
        int indexed = 0;
        for (const auto& p : ev->inputs)
            indexed += p.indexed ? 1 : 0;
        if (log.topics.size() != 1 + indexed)
            throw AbiError(topicCountMismatch(*ev, log.topics.size()));
        QList<AbiParam> dataParams;
        for (const auto& p : ev->inputs)
            if (!p.indexed)
                dataParams.append(p);
        const QJsonObject fromData = AbiDecoder::decodeParams(dataParams, log.data, ev->name);
        QJsonObject args;
        int topic = 1;
        for (int i = 0; i < ev->inputs.size(); ++i) {
            const AbiParam& p = ev->inputs[i];
            const QString key = p.name.isEmpty() ? QString::number(i) : p.name;
            if (!p.indexed) {
                args.insert(key, fromData.value(key));
                continue;
            }
            const chain::Hash32& t = log.topics[topic++];
            // An indexed dynamic value is stored as the keccak hash of its encoding: that
            // hash is all the log holds, so that is what we report.
            args.insert(key, p.type.isDynamic() || p.type.kind == AbiType::Kind::Tuple ||
                                     p.type.kind == AbiType::Kind::FixedArray
                                 ? QJsonValue(t.toHex())
                                 : AbiDecoder::decodeWord(p.type, t.toByteArray(),
                                                          ev->name + QLatin1Char('.') + key));
        }
        d.argsJson = QJsonDocument(args).toJson(QJsonDocument::Compact);
        d.status = EventDecoding::Status::Decoded;
    } catch (const AbiError& e) {
        d.status = EventDecoding::Status::Failed;
        d.error = e.message();
    } catch (const std::exception& e) {
        d.status = EventDecoding::Status::Failed;
        d.error = QString::fromUtf8(e.what());
    }
    return d;
}

} // namespace forkscope::abi
