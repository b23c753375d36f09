#include "Receipt.h"
#include "ReceiptJson.h"
#include "Rlp.h"
#include "chain/ChainJson.h"
#include "chain/ChainParseError.h"

namespace forkscope::proof {

using chain::ChainParseError;

namespace json {

using chain::FieldPath;
using chain::json::Value;
using simdjson::dom::element_type;

namespace {
bool present(const Value& v)
{
    return v.present && !v.isNull();
}
} // namespace

Receipt readReceipt(const Value& v, const FieldPath& context)
{
    namespace cj = chain::json;
    const simdjson::dom::object o = cj::requireObject(v, context, "expected a receipt object");
    enum { Type, Status, Root, GasUsed, Bloom, TxHash, TxIndex, BlockHash, BlockNumber, Logs };
    static constexpr std::array<std::string_view, 10> kNames{"type",
                                                             "status",
                                                             "root",
                                                             "cumulativeGasUsed",
                                                             "logsBloom",
                                                             "transactionHash",
                                                             "transactionIndex",
                                                             "blockHash",
                                                             "blockNumber",
                                                             "logs"};
    const auto m = cj::members(o, kNames);
    const auto f = [&](const char* name) { return FieldPath(context, name); };

    Receipt r;
    // Every client of the typed-transaction era sends "type"; guessing legacy when it is
    // missing would turn a broken reply into a root mismatch blamed on the wrong thing.
    const std::uint64_t t = cj::quantityU63(m[Type], f("type"));
    if (t > Receipt::kHighestType)
        throw UnsupportedReceiptType(
            f("type").toString(), cj::describe(m[Type]),
            QStringLiteral("unknown receipt type (Forkscope can prove types "
                           "0x0 to 0x%1: legacy, EIP-2930, EIP-1559, "
                           "EIP-4844 and EIP-7702)")
                .arg(Receipt::kHighestType, 0, 16));
    r.type = std::uint8_t(t);

    const Value& status = m[Status];
    const Value& root = m[Root];
    if (present(status)) {
        // Some clients send an empty "root" next to the status; a real one as well is
        // contradictory.
        if (present(root) &&
            !(root.is(element_type::STRING) && root.e.get_string().value_unsafe() == "0x"))
            throw ChainParseError(f("root").toString(), cj::describe(root),
                                  QStringLiteral("a receipt has a status or a pre-Byzantium "
                                                 "state root, not both"));
        const std::uint64_t s = cj::quantityU63(status, f("status"));
        if (s > 1)
            throw ChainParseError(f("status").toString(), cj::describe(status),
                                  QStringLiteral("expected 0x0 (failed) or 0x1 (succeeded)"));
        r.outcome = s == 1;
    } else if (present(root)) {
        r.outcome = cj::fixedBytes<32>(root, f("root"));
    } else {
        throw ChainParseError(f("status").toString(), cj::describe(status),
                              QStringLiteral("expected a status (or, before Byzantium, a "
                                             "state root)"));
    }

    r.cumulativeGasUsed = cj::quantityU63(m[GasUsed], f("cumulativeGasUsed"));
    r.logsBloom = cj::fixedBytes<256>(m[Bloom], f("logsBloom"));
    r.transactionHash = cj::fixedBytes<32>(m[TxHash], f("transactionHash"));
    r.transactionIndex = cj::quantityU63(m[TxIndex], f("transactionIndex"));
    r.blockHash = cj::fixedBytes<32>(m[BlockHash], f("blockHash"));
    r.blockNumber = cj::quantityU63(m[BlockNumber], f("blockNumber"));

    const FieldPath logsField = f("logs");
    const simdjson::dom::array logs =
        cj::requireArray(m[Logs], logsField, "expected an array of logs");
    r.logs.reserve(qsizetype(logs.size()));
    qsizetype i = 0;
    for (const simdjson::dom::element x : logs) {
        const FieldPath lc(logsField, i++);
        chain::LogEntry log = cj::readLogEntry(Value::of(x), lc);
        if (log.removed)
            throw ChainParseError(lc.toString() + QStringLiteral(".removed"),
                                  QStringLiteral("true"),
                                  QStringLiteral("a log of a block's receipts cannot be removed"));
        r.logs.append(std::move(log));
    }
    return r;
}

} // namespace json

Receipt Receipt::fromJson(const QJsonValue& v, const QString& context)
{
    return chain::json::readQt(v, context, [&](const chain::json::Value& value) {
        return json::readReceipt(value, chain::FieldPath(context));
    });
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
