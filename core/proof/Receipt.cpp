#include "Receipt.h"
#include "Rlp.h"
#include "chain/ChainParseError.h"
#include "chain/Hex.h"

#include <QJsonArray>
#include <QJsonObject>

namespace forkscope::proof {

using chain::ChainParseError;
namespace hex = chain::hex;

namespace {
bool present(const QJsonValue& v)
{
    return !v.isUndefined() && !v.isNull();
}
} // namespace

Receipt Receipt::fromJson(const QJsonValue& v, const QString& context)
{
    if (!v.isObject())
        throw ChainParseError(context, hex::describe(v),
                              QStringLiteral("expected a receipt object"));
    const QJsonObject o = v.toObject();
    // -> QString: with QT_USE_QSTRINGBUILDER, auto would return a builder that refers to
    // temporaries of this call.
    const auto f = [&](const char* name) -> QString {
        return context + QLatin1Char('.') + QLatin1String(name);
    };

    Receipt r;
    // Every client of the typed-transaction era sends "type"; guessing legacy when it is
    // missing would turn a broken reply into a root mismatch blamed on the wrong thing.
    const QJsonValue type = o.value(QLatin1String("type"));
    const std::uint64_t t = hex::parseQuantityU63(type, f("type"));
    if (t > kHighestType)
        throw UnsupportedReceiptType(
            f("type"), hex::describe(type),
            QStringLiteral("unknown receipt type (Forkscope can prove types "
                           "0x0 to 0x%1: legacy, EIP-2930, EIP-1559, "
                           "EIP-4844 and EIP-7702)")
                .arg(kHighestType, 0, 16));
    r.type = std::uint8_t(t);

    const QJsonValue status = o.value(QLatin1String("status"));
    const QJsonValue root = o.value(QLatin1String("root"));
    if (present(status)) {
        // Some clients send an empty "root" next to the status; a real one as well is
        // contradictory.
        if (present(root) && root != QJsonValue(QStringLiteral("0x")))
            throw ChainParseError(f("root"), hex::describe(root),
                                  QStringLiteral("a receipt has a status or a pre-Byzantium "
                                                 "state root, not both"));
        const std::uint64_t s = hex::parseQuantityU63(status, f("status"));
        if (s > 1)
            throw ChainParseError(f("status"), hex::describe(status),
                                  QStringLiteral("expected 0x0 (failed) or 0x1 (succeeded)"));
        r.outcome = s == 1;
    } else if (present(root)) {
        r.outcome = chain::Hash32::fromJson(root, f("root"));
    } else {
        throw ChainParseError(f("status"), hex::describe(status),
                              QStringLiteral("expected a status (or, before Byzantium, a "
                                             "state root)"));
    }

    r.cumulativeGasUsed =
        hex::parseQuantityU63(o.value(QLatin1String("cumulativeGasUsed")), f("cumulativeGasUsed"));
    r.logsBloom = chain::LogsBloom::fromJson(o.value(QLatin1String("logsBloom")), f("logsBloom"));
    r.transactionHash =
        chain::Hash32::fromJson(o.value(QLatin1String("transactionHash")), f("transactionHash"));
    r.transactionIndex =
        hex::parseQuantityU63(o.value(QLatin1String("transactionIndex")), f("transactionIndex"));
    r.blockHash = chain::Hash32::fromJson(o.value(QLatin1String("blockHash")), f("blockHash"));
    r.blockNumber = hex::parseQuantityU63(o.value(QLatin1String("blockNumber")), f("blockNumber"));

    const QJsonValue logs = o.value(QLatin1String("logs"));
    if (!logs.isArray())
        throw ChainParseError(f("logs"), hex::describe(logs),
                              QStringLiteral("expected an array of logs"));
    const QJsonArray la = logs.toArray();
    r.logs.reserve(la.size());
    for (qsizetype i = 0; i < la.size(); ++i) {
        const QString lc = f("logs") + QStringLiteral("[%1]").arg(i);
        chain::LogEntry log = chain::LogEntry::fromJson(la.at(i), lc);
        if (log.removed)
            throw ChainParseError(lc + QStringLiteral(".removed"), QStringLiteral("true"),
                                  QStringLiteral("a log of a block's receipts cannot be removed"));
        r.logs.append(std::move(log));
    }
    return r;
}

QByteArray encodeLog(const chain::LogEntry& log)
{
    QList<QByteArray> topics;
    topics.reserve(log.topics.size());
    for (const chain::Hash32& t : log.topics)
        topics.append(rlp::encodeBytes(t.toByteArray()));
    return rlp::encodeList({rlp::encodeBytes(log.address.toByteArray()), rlp::encodeList(topics),
                            rlp::encodeBytes(log.data)});
}

QByteArray Receipt::consensusEncoding() const
{
    QList<QByteArray> logItems;
    logItems.reserve(logs.size());
    for (const chain::LogEntry& log : logs)
        logItems.append(encodeLog(log));
    const QByteArray first = std::holds_alternative<bool>(outcome)
                                 ? rlp::encodeUint(std::uint64_t(std::get<bool>(outcome) ? 1 : 0))
                                 : rlp::encodeBytes(std::get<chain::Hash32>(outcome).toByteArray());
    QByteArray body =
        rlp::encodeList({first, rlp::encodeUint(cumulativeGasUsed),
                         rlp::encodeBytes(logsBloom.toByteArray()), rlp::encodeList(logItems)});
    if (type != kLegacy)
        body.prepend(char(type));
    return body;
}

} // namespace forkscope::proof
