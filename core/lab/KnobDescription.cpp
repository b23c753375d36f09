#include "KnobDescription.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QStringList>

namespace forkscope::lab {

namespace {
QString percent(double rate)
{
    return QStringLiteral("%1%").arg(rate * 100, 0, 'g', 3);
}
} // namespace

QString describeKnobChanges(const QJsonObject& c)
{
    QStringList words;
    const auto has = [&](const char* key) { return c.contains(QLatin1String(key)); };
    const auto num = [&](const char* key) { return c.value(QLatin1String(key)).toDouble(); };
    const auto on = [&](const char* key) { return c.value(QLatin1String(key)).toBool(); };
    const auto count = [&](const char* key) { return qint64(num(key)); };
    if (has("offline"))
        words << (on("offline") ? QStringLiteral("goes offline")
                                : QStringLiteral("comes back online"));
    if (has("lagBlocks"))
        words << (count("lagBlocks")
                      ? QStringLiteral("lags %1 blocks behind the chain").arg(count("lagBlocks"))
                      : QStringLiteral("no longer lags"));
    if (has("latencyMs"))
        words << (count("latencyMs")
                      ? QStringLiteral("delays each reply by %1 ms").arg(count("latencyMs"))
                      : QStringLiteral("answers without delay"));
    if (has("errorRate"))
        words << (num("errorRate") > 0
                      ? QStringLiteral("fails %1 of requests").arg(percent(num("errorRate")))
                      : QStringLiteral("no longer fails requests"));
    if (has("logCap")) {
        const bool silent =
            c.value(QLatin1String("logCapMode")).toString() == QLatin1String("silent");
        words << (count("logCap") ? QStringLiteral("caps eth_getLogs at %1 logs (%2)")
                                        .arg(count("logCap"))
                                        .arg(silent ? QStringLiteral("silently truncated")
                                                    : QStringLiteral("with an error"))
                                  : QStringLiteral("no longer caps eth_getLogs"));
    } else if (has("logCapMode")) {
        words << QStringLiteral("a log cap is %1")
                     .arg(c.value(QLatin1String("logCapMode")).toString() == QLatin1String("silent")
                              ? QStringLiteral("silently truncated")
                              : QStringLiteral("announced with an error"));
    }
    if (has("dropLogs"))
        words << (on("dropLogs") ? QStringLiteral("drops every log from eth_getLogs")
                                 : QStringLiteral("returns logs again"));
    if (has("dropLogRate"))
        words << (num("dropLogRate") > 0
                      ? QStringLiteral("drops %1 of logs").arg(percent(num("dropLogRate")))
                      : QStringLiteral("no longer drops single logs"));
    if (has("dropBlockRate"))
        words << (num("dropBlockRate") > 0 ? QStringLiteral("drops the logs of %1 of blocks")
                                                 .arg(percent(num("dropBlockRate")))
                                           : QStringLiteral("no longer drops whole blocks' logs"));
    if (has("dropInReceipts"))
        words << (on("dropInReceipts") ? QStringLiteral("drops them from receipts too")
                                       : QStringLiteral("keeps receipts whole"));
    if (has("noReceipts"))
        words << (on("noReceipts") ? QStringLiteral("refuses eth_getBlockReceipts")
                                   : QStringLiteral("serves eth_getBlockReceipts again"));
    if (has("lie")) {
        const QString lie = c.value(QLatin1String("lie")).toString();
        words << (lie.isEmpty() || lie == QLatin1String("none")
                      ? QStringLiteral("tells the truth")
                      : QStringLiteral("lies: %1").arg(lie));
    }
    if (has("trickleBps"))
        words << (count("trickleBps")
                      ? QStringLiteral("trickles replies at %1 bytes/s").arg(count("trickleBps"))
                      : QStringLiteral("sends replies at full speed"));
    if (has("padReplyBytes"))
        words << (count("padReplyBytes")
                      ? QStringLiteral("pads each reply with %1 bytes").arg(count("padReplyBytes"))
                      : QStringLiteral("no longer pads replies"));
    if (has("upstream"))
        words
            << QStringLiteral("forwards to %1").arg(c.value(QLatin1String("upstream")).toString());
    static const QStringList known{
        QStringLiteral("offline"),       QStringLiteral("lagBlocks"),
        QStringLiteral("latencyMs"),     QStringLiteral("errorRate"),
        QStringLiteral("logCap"),        QStringLiteral("logCapMode"),
        QStringLiteral("dropLogs"),      QStringLiteral("dropLogRate"),
        QStringLiteral("dropBlockRate"), QStringLiteral("dropInReceipts"),
        QStringLiteral("lie"),           QStringLiteral("trickleBps"),
        QStringLiteral("padReplyBytes"), QStringLiteral("upstream"),
        QStringLiteral("noReceipts")};
    for (auto it = c.constBegin(); it != c.constEnd(); ++it)
        if (!known.contains(it.key()))
            words << QStringLiteral("%1 = %2").arg(
                it.key(),
                it.value().isString()
                    ? it.value().toString()
                    : QString::fromUtf8(
                          QJsonDocument(QJsonArray{it.value()}).toJson(QJsonDocument::Compact))
                          .mid(1)
                          .chopped(1));
    return words.isEmpty() ? QStringLiteral("no change") : words.join(QStringLiteral("; "));
}

QJsonObject changedKnobs(const QJsonObject& before, const QJsonObject& requested)
{
    QJsonObject changed;
    for (auto it = requested.constBegin(); it != requested.constEnd(); ++it) {
        const QJsonValue was = before.value(it.key());
        // Numbers compare by value: 0 and 0.0, or 5 and 5.0, are no change.
        const bool same = it.value().isDouble() && was.isDouble()
                              ? it.value().toDouble() == was.toDouble()
                              : it.value() == was;
        if (!same)
            changed.insert(it.key(), it.value());
    }
    const qint64 capAfter = requested.contains(QLatin1String("logCap"))
                                ? qint64(requested.value(QLatin1String("logCap")).toDouble())
                                : qint64(before.value(QLatin1String("logCap")).toDouble());
    if (capAfter == 0 && !changed.contains(QLatin1String("logCap")))
        changed.remove(QLatin1String("logCapMode"));
    // A new cap is described with the mode it has, changed or not ("silently truncated").
    const QLatin1String mode("logCapMode");
    const QJsonValue modeAfter =
        requested.contains(mode) ? requested.value(mode) : before.value(mode);
    if (capAfter > 0 && changed.contains(QLatin1String("logCap")) && !modeAfter.isUndefined())
        changed.insert(mode, modeAfter);
    // Receipts are only dropped from when logs are: the box alone changes nothing seen.
    const auto rateAfter = [&](const char* key) {
        const QLatin1String k(key);
        return (requested.contains(k) ? requested.value(k) : before.value(k)).toDouble();
    };
    if (rateAfter("dropLogRate") == 0 && rateAfter("dropBlockRate") == 0 &&
        !(requested.contains(QLatin1String("dropLogs")) ? requested : before)
             .value(QLatin1String("dropLogs"))
             .toBool())
        changed.remove(QLatin1String("dropInReceipts"));
    return changed;
}

} // namespace forkscope::lab
