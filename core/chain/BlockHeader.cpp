#include "BlockHeader.h"
#include "ChainJson.h"

namespace forkscope::chain {

namespace json {

BlockHeader readBlockHeader(const Value& v, const FieldPath& context)
{
    const simdjson::dom::object o = requireObject(v, context, "expected a block object");
    enum { Number, Hash, ParentHash, Timestamp, Bloom, ReceiptsRoot };
    static constexpr std::array<std::string_view, 6> kNames{
        "number", "hash", "parentHash", "timestamp", "logsBloom", "receiptsRoot"};
    const auto m = members(o, kNames);
    const auto f = [&](const char* name) { return FieldPath(context, name); };

    BlockHeader h;
    h.number = quantityU63(m[Number], f("number"));
    h.hash = fixedBytes<32>(m[Hash], f("hash"));
    h.parentHash = fixedBytes<32>(m[ParentHash], f("parentHash"));
    h.timestamp = quantityU63(m[Timestamp], f("timestamp"));
    h.logsBloom = fixedBytes<256>(m[Bloom], f("logsBloom"));
    h.receiptsRoot = fixedBytes<32>(m[ReceiptsRoot], f("receiptsRoot"));
    return h;
}

} // namespace json

BlockHeader BlockHeader::fromJson(const QJsonValue& v, const QString& context)
{
    return json::readQt(v, context, [&](const json::Value& value) {
        return json::readBlockHeader(value, FieldPath(context));
    });
}

} // namespace forkscope::chain
