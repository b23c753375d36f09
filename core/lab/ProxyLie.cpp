#include "ProxyLie.h"
#include "chain/Hex.h"

#include <QJsonArray>

namespace forkscope::lab {

namespace {

struct Named
{
    ProxyLie lie;
    const char* name;
};
constexpr Named kNames[] = {
    {ProxyLie::None, "none"},
    {ProxyLie::ForeignLog, "foreign-log"},
    {ProxyLie::OutOfRangeLog, "out-of-range-log"},
    {ProxyLie::WrongLogHash, "wrong-log-hash"},
    {ProxyLie::UnlinkedHeaders, "unlinked-headers"},
    {ProxyLie::ShiftedHeader, "shifted-header"},
    {ProxyLie::OtherChainId, "other-chain-id"},
    {ProxyLie::OtherGenesis, "other-genesis"},
};

// A 32-byte hex value that is not `hex` (its last nibble changed), same length and case.
QString otherHash(const QString& hex)
{
    if (hex.size() < 3)
        return hex;
    QString out = hex;
    const QChar last = out.back();
    out.back() = last == QLatin1Char('0') ? QLatin1Char('1') : QLatin1Char('0');
    return out;
}

QJsonObject withResult(QJsonObject rep, const QJsonValue& result)
{
    rep.insert(QStringLiteral("result"), result);
    return rep;
}

} // namespace

QString proxyLieName(ProxyLie lie)
{
    for (const Named& n : kNames)
        if (n.lie == lie)
            return QString::fromLatin1(n.name);
    return QStringLiteral("none");
}

std::optional<ProxyLie> proxyLieFromName(const QString& name)
{
    for (const Named& n : kNames)
        if (name == QLatin1String(n.name))
            return n.lie;
    return std::nullopt;
}

QStringList proxyLieNames()
{
    QStringList out;
    for (const Named& n : kNames)
        out << QString::fromLatin1(n.name);
    return out;
}

QJsonObject applyProxyLie(ProxyLie lie, const QJsonObject& req, const QJsonObject& rep)
{
    const QString method = req.value(QLatin1String("method")).toString();
    const QJsonValue result = rep.value(QLatin1String("result"));
    if (lie == ProxyLie::None || rep.contains(QLatin1String("error")))
        return rep;
    if (method == QLatin1String("eth_getLogs") && result.isArray()) {
        QJsonArray logs = result.toArray();
        if (logs.isEmpty())
            return rep; // nothing to copy a believable log from
        switch (lie) {
        case ProxyLie::ForeignLog: {
            QJsonObject extra = logs.last().toObject();
            extra.insert(QStringLiteral("address"),
                         QStringLiteral("0x00000000000000000000000000000000000f0e16"));
            extra.insert(QStringLiteral("logIndex"),
                         chain::hex::encodeQuantity(
                             chain::hex::parseQuantityU63(extra.value(QLatin1String("logIndex")),
                                                          QStringLiteral("logIndex")) +
                             1000));
            logs.append(extra);
            return withResult(rep, logs);
        }
        case ProxyLie::OutOfRangeLog: {
            const QJsonObject filter =
                req.value(QLatin1String("params")).toArray().at(0).toObject();
            if (!filter.contains(QLatin1String("toBlock")))
                return rep;
            const auto to = chain::hex::parseQuantityU63(filter.value(QLatin1String("toBlock")),
                                                         QStringLiteral("toBlock"));
            QJsonObject extra = logs.last().toObject();
            extra.insert(QStringLiteral("blockNumber"), chain::hex::encodeQuantity(to + 1));
            logs.append(extra);
            return withResult(rep, logs);
        }
        case ProxyLie::WrongLogHash: {
            for (qsizetype i = 0; i < logs.size(); ++i) {
                QJsonObject l = logs.at(i).toObject();
                l.insert(QStringLiteral("blockHash"),
                         otherHash(l.value(QLatin1String("blockHash")).toString()));
                logs.replace(i, l);
            }
            return withResult(rep, logs);
        }
        default:
            return rep;
        }
    }
    if (lie == ProxyLie::UnlinkedHeaders && method == QLatin1String("eth_getBlockByNumber") &&
        result.isObject()) {
        QJsonObject header = result.toObject();
        header.insert(QStringLiteral("parentHash"),
                      otherHash(header.value(QLatin1String("parentHash")).toString()));
        return withResult(rep, header);
    }
    if (lie == ProxyLie::ShiftedHeader && method == QLatin1String("eth_getBlockByNumber") &&
        result.isObject()) {
        QJsonObject header = result.toObject();
        const auto n = chain::hex::parseQuantityU63(header.value(QLatin1String("number")),
                                                    QStringLiteral("number"));
        header.insert(QStringLiteral("number"), chain::hex::encodeQuantity(n + 1000));
        return withResult(rep, header);
    }
    if (lie == ProxyLie::OtherChainId && method == QLatin1String("eth_chainId") &&
        result.isString()) {
        const auto id = chain::hex::parseQuantityU63(result, QStringLiteral("eth_chainId"));
        return withResult(rep, chain::hex::encodeQuantity(id + 1));
    }
    if (lie == ProxyLie::OtherGenesis && method == QLatin1String("eth_getBlockByNumber") &&
        result.isObject() &&
        req.value(QLatin1String("params")).toArray().at(0).toString() == QLatin1String("0x0")) {
        QJsonObject header = result.toObject();
        header.insert(QStringLiteral("hash"),
                      otherHash(header.value(QLatin1String("hash")).toString()));
        return withResult(rep, header);
    }
    return rep;
}

namespace {
// A deterministic draw in [0, 1) for (seed, block hash, index).
double draw(quint32 seed, const QString& blockHash, qint64 index)
{
    const QByteArray key =
        QByteArray::number(seed) + blockHash.toLatin1() + QByteArray::number(index);
    const size_t h = qHash(key, size_t(0x5eed));
    return double(h % 1000003) / 1000003.0;
}

bool dropped(const LogDrops& d, const QJsonObject& log)
{
    const QString block = log.value(QLatin1String("blockHash")).toString();
    if (d.blockRate > 0 && draw(d.seed, block, -1) < d.blockRate)
        return true;
    const QString index = log.value(QLatin1String("logIndex")).toString();
    return d.logRate > 0 && draw(d.seed, block, qint64(qHash(index))) < d.logRate;
}

QJsonArray keep(const LogDrops& d, const QJsonArray& logs)
{
    QJsonArray out;
    for (const QJsonValue& l : logs)
        if (!dropped(d, l.toObject()))
            out.append(l);
    return out;
}
} // namespace

QJsonObject applyLogDrops(const LogDrops& drops, const QJsonObject& req, const QJsonObject& rep)
{
    if (!drops.active() || rep.contains(QLatin1String("error")))
        return rep;
    const QString method = req.value(QLatin1String("method")).toString();
    const QJsonValue result = rep.value(QLatin1String("result"));
    if (method == QLatin1String("eth_getLogs") && result.isArray())
        return withResult(rep, keep(drops, result.toArray()));
    if (method == QLatin1String("eth_getBlockReceipts") && result.isArray() && drops.inReceipts) {
        QJsonArray receipts = result.toArray();
        for (qsizetype i = 0; i < receipts.size(); ++i) {
            QJsonObject r = receipts.at(i).toObject();
            r.insert(QStringLiteral("logs"), keep(drops, r.value(QLatin1String("logs")).toArray()));
            receipts.replace(i, r);
        }
        return withResult(rep, receipts);
    }
    return rep;
}

} // namespace forkscope::lab
