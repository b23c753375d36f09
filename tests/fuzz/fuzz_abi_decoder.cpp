// The ABI decoder on a log's data: AbiDecoder::decodeParams and decodeWord, and
// EventRegistry::decode, which splits a log between its topics and its data. The input is
// an event's inputs as ABI JSON on the first line, then the log's data, raw:
//
//     [{"name":"from","type":"address","indexed":true},{"name":"v","type":"uint256"}]
//     <data bytes>
//
// A decoding either succeeds or throws AbiError, never charges past its budget, and when it
// succeeds its stats name the exact size of the compact JSON it rendered.

#include "FuzzSupport.h"
#include "abi/AbiDecoder.h"
#include "abi/EventRegistry.h"
#include "chain/Keccak.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

namespace abi = forkscope::abi;
namespace chain = forkscope::chain;

namespace {

// Whether every tuple in `params` names its members apart (the size promise holds only
// then: a duplicate key renders once).
bool distinctKeys(const QList<abi::AbiParam>& params)
{
    QSet<QString> keys;
    for (qsizetype i = 0; i < params.size(); ++i) {
        const QString key = params[i].name.isEmpty() ? QString::number(i) : params[i].name;
        if (keys.contains(key))
            return false;
        keys.insert(key);
        const abi::AbiType* t = &params[i].type;
        while (t->element)
            t = t->element.get();
        if (t->kind == abi::AbiType::Kind::Tuple && !distinctKeys(t->components))
            return false;
    }
    return true;
}

QList<abi::AbiParam> paramsOf(const QJsonArray& inputs)
{
    QList<abi::AbiParam> params;
    for (qsizetype i = 0; i < inputs.size(); ++i)
        params.append(abi::AbiParam::fromJson(inputs.at(i), QStringLiteral("inputs[%1]").arg(i)));
    return params;
}

void decodeData(const QList<abi::AbiParam>& params, const QByteArray& data)
{
    abi::DecodeStats stats;
    try {
        const QJsonObject o =
            abi::AbiDecoder::decodeParams(params, data, QStringLiteral("E"), &stats);
        if (distinctKeys(params)) {
            const qsizetype rendered = QJsonDocument(o).toJson(QJsonDocument::Compact).size();
            FUZZ_CHECK(stats.renderedBytes == rendered,
                       QStringLiteral("charged %1 bytes, rendered %2")
                           .arg(stats.renderedBytes)
                           .arg(rendered));
        }
    } catch (const abi::AbiError& e) {
        FUZZ_CHECK(forkscope::fuzz::isOneLine(e.message(), forkscope::fuzz::kUnbounded),
                   e.message());
    }
    FUZZ_CHECK(stats.renderedBytes <= stats.limit.bytes,
               QStringLiteral("charged %1 of %2").arg(stats.renderedBytes).arg(stats.limit.bytes));
    FUZZ_CHECK(stats.limit.bytes >= abi::DecodeLimit::kFloorBytes &&
                   stats.limit.bytes <= abi::DecodeLimit::kMaxBytesPerLog,
               QString::number(stats.limit.bytes));
}

void decodeWords(const QList<abi::AbiParam>& params, const QByteArray& data)
{
    const QByteArray word = data.left(32).leftJustified(32, '\0');
    for (const abi::AbiParam& p : params) {
        if (p.type.isDynamic() || p.type.kind == abi::AbiType::Kind::Tuple ||
            p.type.kind == abi::AbiType::Kind::FixedArray)
            continue;
        try {
            const QJsonValue v = abi::AbiDecoder::decodeWord(p.type, word, QStringLiteral("t"));
            FUZZ_CHECK(v.isString() || v.isBool(), p.type.canonical());
        } catch (const abi::AbiError&) {
        }
    }
}

// The event of these inputs, and a log of it whose indexed topics come from the data's
// first words (one topic short or extra when the data's length says so).
void decodeLog(const QJsonArray& inputs, const QByteArray& data)
{
    const QJsonArray abiJson{QJsonObject{{QStringLiteral("type"), QStringLiteral("event")},
                                         {QStringLiteral("name"), QStringLiteral("E")},
                                         {QStringLiteral("inputs"), inputs}}};
    const abi::EventRegistry registry =
        abi::EventRegistry::fromJson(QJsonDocument(abiJson), QStringLiteral("fuzz"));
    FUZZ_CHECK(registry.eventCount() == 1, QString::number(registry.eventCount()));
    qsizetype indexed = 0;
    for (const QJsonValue& in : inputs)
        indexed += in.toObject().value(QLatin1String("indexed")).toBool() ? 1 : 0;
    indexed += data.size() % 7 == 1 ? 1 : (data.size() % 7 == 2 ? -1 : 0);
    chain::LogEntry log;
    QList<abi::AbiParam> params = paramsOf(inputs);
    QStringList types;
    for (const abi::AbiParam& p : params)
        types << p.type.canonical();
    log.topics.append(chain::eventTopic(QStringLiteral("E(%1)").arg(types.join(QLatin1Char(',')))));
    qsizetype pos = 0;
    for (qsizetype i = 0; i < indexed; ++i, pos += 32)
        log.topics.append(chain::Hash32::fromBytes(data.mid(pos, 32).leftJustified(32, '\0'),
                                                   QStringLiteral("topic")));
    log.data = data.mid(pos);
    const abi::EventDecoding d = registry.decode(log);
    FUZZ_CHECK(d.status == abi::EventDecoding::Status::Decoded ||
                   d.status == abi::EventDecoding::Status::Failed,
               d.error);
    if (d.status == abi::EventDecoding::Status::Failed) {
        FUZZ_CHECK(forkscope::fuzz::isOneLine(d.error, forkscope::fuzz::kUnbounded), d.error);
        return;
    }
    QJsonParseError pe{};
    const QJsonDocument args = QJsonDocument::fromJson(d.argsJson, &pe);
    FUZZ_CHECK(pe.error == QJsonParseError::NoError && args.isObject(),
               QString::fromUtf8(d.argsJson.left(200)));
}

} // namespace

FUZZ_INIT

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto [abiLine, logData, split] =
        forkscope::fuzz::splitFirstLine(forkscope::fuzz::bytes(data, size));
    if (!split)
        return 0;
    const QJsonDocument doc = QJsonDocument::fromJson(abiLine);
    if (!doc.isArray())
        return 0;
    QList<abi::AbiParam> params;
    try {
        params = paramsOf(doc.array());
    } catch (const abi::AbiError&) {
        return 0; // the ABI reader's own target covers malformed ABI
    }
    QList<abi::AbiParam> dataParams;
    for (const abi::AbiParam& p : params)
        if (!p.indexed)
            dataParams.append(p);
    decodeData(dataParams, logData);
    decodeWords(params, logData);
    decodeLog(doc.array(), logData);
    return 0;
}
