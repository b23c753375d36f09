#include "BlockHeader.h"
#include "ChainParseError.h"
#include "Hex.h"

#include <QJsonObject>

namespace forkscope::chain {

BlockHeader BlockHeader::fromJson(const QJsonValue& v, const QString& context)
{
    if (!v.isObject())
        throw ChainParseError(context, hex::describe(v), QStringLiteral("expected a block object"));
    const QJsonObject o = v.toObject();
    // -> QString: with QT_USE_QSTRINGBUILDER, auto would return a builder that refers to
    // temporaries of this call.
    const auto f = [&](const char* name) -> QString {
        return context + QLatin1Char('.') + QLatin1String(name);
    };
    BlockHeader h;
    h.number = hex::parseQuantityU63(o.value(QLatin1String("number")), f("number"));
    h.hash = Hash32::fromJson(o.value(QLatin1String("hash")), f("hash"));
    h.parentHash = Hash32::fromJson(o.value(QLatin1String("parentHash")), f("parentHash"));
    h.timestamp = hex::parseQuantityU63(o.value(QLatin1String("timestamp")), f("timestamp"));
    h.logsBloom = LogsBloom::fromJson(o.value(QLatin1String("logsBloom")), f("logsBloom"));
    h.receiptsRoot = Hash32::fromJson(o.value(QLatin1String("receiptsRoot")), f("receiptsRoot"));
    return h;
}

} // namespace forkscope::chain
