#include "LogEntry.h"
#include "ChainJson.h"
#include "ChainParseError.h"

namespace forkscope::chain {

namespace json {

LogEntry readLogEntry(const Value& v, const FieldPath& context)
{
    const simdjson::dom::object o = requireObject(v, context, "expected a log object");
    enum { Address, Topics, Data, BlockNumber, BlockHash, TxHash, TxIndex, LogIndex, Removed };
    static constexpr std::array<std::string_view, 9> kNames{
        "address",         "topics",           "data",     "blockNumber", "blockHash",
        "transactionHash", "transactionIndex", "logIndex", "removed"};
    const auto m = members(o, kNames);
    const auto f = [&](const char* name) { return FieldPath(context, name); };

    LogEntry e;
    e.address = fixedBytes<20>(m[Address], f("address"));
    const FieldPath topicsField = f("topics");
    const simdjson::dom::array topics =
        requireArray(m[Topics], topicsField, "expected an array of 32-byte hashes");
    const std::size_t count = topics.size();
    if (count > 4)
        throw ChainParseError(topicsField.toString(), QStringLiteral("%1 topics").arg(count),
                              QStringLiteral("a log has at most 4 topics"));
    e.topics.reserve(qsizetype(count));
    qsizetype i = 0;
    for (const simdjson::dom::element t : topics) {
        e.topics.append(fixedBytes<32>(Value::of(t), FieldPath(topicsField, i)));
        ++i;
    }
    e.data = data(m[Data], f("data"));
    e.blockNumber = quantityU63(m[BlockNumber], f("blockNumber"));
    e.blockHash = fixedBytes<32>(m[BlockHash], f("blockHash"));
    e.transactionHash = fixedBytes<32>(m[TxHash], f("transactionHash"));
    e.transactionIndex = quantityU63(m[TxIndex], f("transactionIndex"));
    e.logIndex = quantityU63(m[LogIndex], f("logIndex"));
    if (m[Removed].present) {
        if (!m[Removed].is(simdjson::dom::element_type::BOOL))
            throw ChainParseError(f("removed").toString(), describe(m[Removed]),
                                  QStringLiteral("expected true or false"));
        e.removed = m[Removed].e.get_bool().value_unsafe();
    }
    return e;
}

QList<LogEntry> readLogs(const Value& v, const FieldPath& context)
{
    const simdjson::dom::array a = requireArray(v, context, "expected an array of logs");
    QList<LogEntry> logs;
    logs.reserve(qsizetype(a.size()));
    qsizetype i = 0;
    for (const simdjson::dom::element x : a) {
        logs.append(readLogEntry(Value::of(x), FieldPath(context, i)));
        ++i;
    }
    return logs;
}

} // namespace json

LogEntry LogEntry::fromJson(const QJsonValue& v, const QString& context)
{
    return json::readQt(v, context, [&](const json::Value& value) {
        return json::readLogEntry(value, FieldPath(context));
    });
}

} // namespace forkscope::chain
