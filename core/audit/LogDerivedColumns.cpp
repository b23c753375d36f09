#include "LogDerivedColumns.h"
#include "abi/EventRegistry.h"
#include "chain/ChainParseError.h"
#include "chain/Hex.h"
#include "chain/U256.h"
#include "indexer/TransferDecoder.h"

#include <variant>

namespace forkscope::audit {

QStringList differingLogFields(const StoredLog& stored, const chain::LogEntry& log)
{
    QStringList fields;
    if (!log.address.isHexOf(stored.address))
        fields << QStringLiteral("address");
    bool sameTopics = stored.topics.size() == log.topics.size();
    for (qsizetype i = 0; sameTopics && i < log.topics.size(); ++i)
        sameTopics = log.topics[i].isHexOf(stored.topics[i]);
    if (!sameTopics)
        fields << QStringLiteral("topics");
    if (!chain::hex::isEncodingOf(stored.data, log.data))
        fields << QStringLiteral("data");
    if (!log.transactionHash.isHexOf(stored.txHash))
        fields << QStringLiteral("tx_hash");
    return fields;
}

QStringList differingTransferFields(const StoredTransfer& stored, const chain::LogEntry& log,
                                    QString* detail)
{
    const indexer::TransferDecodeResult decoded = indexer::decodeTransfer(log);
    const auto* t = std::get_if<indexer::Transfer>(&decoded);
    return t ? differingTransferFields(stored, *t, detail) : QStringList{};
}

QStringList differingTransferFields(const StoredTransfer& stored, const indexer::Transfer& t,
                                    QString* detail)
{
    QStringList fields;
    if (!t.contract.isHexOf(stored.contract))
        fields << QStringLiteral("contract");
    if (!t.from.isHexOf(stored.from))
        fields << QStringLiteral("from");
    if (!t.to.isHexOf(stored.to))
        fields << QStringLiteral("to");
    // Parsed rather than printed: a decimal rendering per Transfer is most of the check's
    // cost. A stored text that does not parse back to the value, or not in its canonical
    // form (a leading zero), differs.
    bool same = false;
    try {
        const QByteArray digits = stored.value.toLatin1();
        same = chain::u256::fromDecimal(std::string_view(digits.constData(), digits.size()),
                                        QStringLiteral("value")) == t.value;
    } catch (const chain::ChainParseError&) {
    }
    if (!same) {
        fields << QStringLiteral("value");
        if (detail)
            *detail = QStringLiteral("stored value %1, the log's %2")
                          .arg(stored.value, chain::u256::toDecimal(t.value));
    }
    return fields;
}

QStringList differingDecodedFields(const StoredLog& stored, const chain::LogEntry& log,
                                   const abi::EventRegistry& registry)
{
    const abi::EventDecoding d = registry.decode(log);
    const QString storedName = stored.eventName.isNull() ? QString() : stored.eventName.toString();
    QStringList fields;
    if (storedName != d.eventName)
        fields << QStringLiteral("event_name");
    const bool keptRaw =
        stored.argsJson.isNull() && stored.decodeError.toString().contains(QLatin1String("ABI: "));
    if (d.status == abi::EventDecoding::Status::Decoded) {
        if (!keptRaw &&
            (stored.argsJson.isNull() || stored.argsJson.toString().toUtf8() != d.argsJson))
            fields << QStringLiteral("args_json");
    } else if (!stored.argsJson.isNull()) {
        fields << QStringLiteral("args_json");
    }
    return fields;
}

} // namespace forkscope::audit
