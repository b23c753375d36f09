#include "LogEntry.h"
#include "ChainParseError.h"
#include "Hex.h"

#include <QJsonArray>
#include <QJsonObject>

namespace forkscope::chain {

LogEntry LogEntry::fromJson(const QJsonValue& v, const QString& context)
{
    if (!v.isObject())
        throw ChainParseError(context, hex::describe(v), QStringLiteral("expected a log object"));
    const QJsonObject o = v.toObject();
    // -> QString: with QT_USE_QSTRINGBUILDER, auto would return a builder that refers to
    // temporaries of this call.
    const auto f = [&](const char* name) -> QString {
        return context + QLatin1Char('.') + QLatin1String(name);
    };

    LogEntry e;
    e.address = Address::fromJson(o.value(QLatin1String("address")), f("address"));
    const QJsonValue topics = o.value(QLatin1String("topics"));
    if (!topics.isArray())
        throw ChainParseError(f("topics"), hex::describe(topics),
                              QStringLiteral("expected an array of 32-byte hashes"));
    const QJsonArray ta = topics.toArray();
    if (ta.size() > 4)
        throw ChainParseError(f("topics"), QStringLiteral("%1 topics").arg(ta.size()),
                              QStringLiteral("a log has at most 4 topics"));
    for (qsizetype i = 0; i < ta.size(); ++i)
        e.topics.append(Hash32::fromJson(ta.at(i), f("topics") + QStringLiteral("[%1]").arg(i)));
    e.data = hex::parseData(o.value(QLatin1String("data")), f("data"));
    e.blockNumber = hex::parseQuantityU63(o.value(QLatin1String("blockNumber")), f("blockNumber"));
    e.blockHash = Hash32::fromJson(o.value(QLatin1String("blockHash")), f("blockHash"));
    e.transactionHash =
        Hash32::fromJson(o.value(QLatin1String("transactionHash")), f("transactionHash"));
    e.transactionIndex =
        hex::parseQuantityU63(o.value(QLatin1String("transactionIndex")), f("transactionIndex"));
    e.logIndex = hex::parseQuantityU63(o.value(QLatin1String("logIndex")), f("logIndex"));
    const QJsonValue removed = o.value(QLatin1String("removed"));
    if (!removed.isUndefined()) {
        if (!removed.isBool())
            throw ChainParseError(f("removed"), hex::describe(removed),
                                  QStringLiteral("expected true or false"));
        e.removed = removed.toBool();
    }
    return e;
}

} // namespace forkscope::chain
