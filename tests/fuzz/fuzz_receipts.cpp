// A block's receipts against its header, as `verify --receipts` and the completeness proof
// read them: verifyHeaderHash on the block (BlockHeader and the header's RLP), then
// verifyReceipts (Receipt's reader, the blooms, the receipts trie) on the receipts. The input
// is the eth_getBlockByHash result on the first line, then the eth_getBlockReceipts result:
//
//     {"number":"0x3","hash":"0x..","logsBloom":"0x..","receiptsRoot":"0x..",...}
//     [{"type":"0x2","status":"0x1","logs":[...],...}]
//
// The verdict must not depend on the reader (simdjson's parse or a QJsonValue); a proven
// block's logs are its receipts' logs, numbered 0..n-1 in this block; and each receipt's
// consensus encoding must read back (strict RLP) as the fields it was built from.

#include "FuzzSupport.h"
#include "RlpReader.h"
#include "chain/ParsedJson.h"
#include "proof/HeaderHash.h"
#include "proof/Receipt.h"
#include "proof/ReceiptsProof.h"
#include "proof/Rlp.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace proof = forkscope::proof;
namespace chain = forkscope::chain;
using forkscope::fuzz::Item;

namespace {

QString hex(const QByteArray& b)
{
    return QString::fromLatin1(b.toHex());
}

// rlp([outcome, cumulativeGasUsed, logsBloom, logs]) behind the type byte, field by field.
void checkEncoding(const proof::Receipt& r)
{
    const QByteArray enc = r.consensusEncoding();
    QByteArrayView body(enc);
    if (r.type != proof::Receipt::kLegacy) {
        FUZZ_CHECK(!body.isEmpty() && std::uint8_t(body[0]) == r.type, hex(enc));
        body = body.sliced(1);
    }
    const std::optional<Item> item = forkscope::fuzz::readRlp(body);
    FUZZ_CHECK(item && item->list() && item->list()->size() == 4, hex(enc));
    const std::vector<Item>& f = *item->list();
    const QByteArray outcome = std::holds_alternative<bool>(r.outcome)
                                   ? QByteArray(std::get<bool>(r.outcome) ? "\x01" : "")
                                   : std::get<chain::Hash32>(r.outcome).toByteArray();
    FUZZ_CHECK(f[0].bytes() && *f[0].bytes() == outcome, hex(enc));
    FUZZ_CHECK(f[1] == Item{[&] {
                   QByteArray be;
                   for (auto n = r.cumulativeGasUsed; n != 0; n >>= 8)
                       be.prepend(char(n & 0xff));
                   return be;
               }()},
               hex(enc));
    FUZZ_CHECK(f[2].bytes() && *f[2].bytes() == r.logsBloom.toByteArray(), hex(enc));
    FUZZ_CHECK(f[3].list() && f[3].list()->size() == std::size_t(r.logs.size()), hex(enc));
    for (qsizetype i = 0; i < r.logs.size(); ++i) {
        const chain::LogEntry& log = r.logs[i];
        const std::vector<Item>* l = (*f[3].list())[std::size_t(i)].list();
        FUZZ_CHECK(l && l->size() == 3 && (*l)[0].bytes() &&
                       *(*l)[0].bytes() == log.address.toByteArray() && (*l)[1].list() &&
                       (*l)[1].list()->size() == std::size_t(log.topics.size()) &&
                       (*l)[2].bytes() && *(*l)[2].bytes() == log.data,
                   hex(enc));
        for (qsizetype t = 0; t < log.topics.size(); ++t)
            FUZZ_CHECK((*(*l)[1].list())[std::size_t(t)] == Item{log.topics[t].toByteArray()},
                       hex(enc));
    }
}

QString show(const proof::ReceiptsVerdict& v)
{
    return QStringLiteral("ok %1 failure %2 receipts %3 logs %4: %5")
        .arg(v.ok)
        .arg(int(v.failure))
        .arg(v.receipts)
        .arg(v.logs.size())
        .arg(v.problem);
}

} // namespace

FUZZ_INIT

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto [blockLine, receiptsText, split] =
        forkscope::fuzz::splitFirstLine(forkscope::fuzz::bytes(data, size));
    if (!split)
        return 0;
    const QJsonDocument blockDoc = QJsonDocument::fromJson(blockLine);
    const QJsonValue block =
        blockDoc.isObject() ? QJsonValue(blockDoc.object()) : QJsonValue(blockDoc.array());
    const proof::HeaderHashCheck hashCheck =
        proof::verifyHeaderHash(block, QStringLiteral("block"));
    FUZZ_CHECK(hashCheck.ok == hashCheck.problem.isEmpty(), hashCheck.problem);
    FUZZ_CHECK(hashCheck.ok || forkscope::fuzz::isOneLine(hashCheck.problem), hashCheck.problem);
    chain::BlockHeader header;
    try {
        header = chain::BlockHeader::fromJson(block, QStringLiteral("block"));
    } catch (const chain::ChainParseError&) {
        // Still prove the receipts: against a zero header they fail, but they are read.
    }

    QString error;
    const chain::ParsedJson parsed = chain::ParsedJson::parse(receiptsText, &error);
    FUZZ_CHECK(parsed.isValid() != !error.isEmpty(), error);
    if (!parsed.isValid())
        return 0;
    const proof::ReceiptsVerdict v = proof::verifyReceipts(header, parsed);
    FUZZ_CHECK(v.ok == (v.failure == proof::ReceiptsVerdict::Failure::None), show(v));
    FUZZ_CHECK(v.ok == v.problem.isEmpty(), show(v));
    FUZZ_CHECK(v.ok || forkscope::fuzz::isOneLine(v.problem), v.problem);
    const QJsonValue receipts = parsed.toQt();
    const proof::ReceiptsVerdict viaQt = proof::verifyReceipts(header, receipts);
    FUZZ_CHECK(show(v) == show(viaQt), show(v) + QStringLiteral("\n  vs ") + show(viaQt));

    qsizetype logCount = 0;
    const QJsonArray array = receipts.toArray();
    for (qsizetype i = 0; i < array.size(); ++i) {
        try {
            const proof::Receipt r =
                proof::Receipt::fromJson(array.at(i), QStringLiteral("receipts[%1]").arg(i));
            checkEncoding(r);
            logCount += r.logs.size();
        } catch (const chain::ChainParseError& e) {
            FUZZ_CHECK(!v.ok, e.message());
        }
    }
    if (!v.ok)
        return 0;
    FUZZ_CHECK(v.receipts == array.size() && v.logs.size() == logCount, show(v));
    for (qsizetype i = 0; i < v.logs.size(); ++i)
        FUZZ_CHECK(v.logs[i].logIndex == std::uint64_t(i) && v.logs[i].blockHash == header.hash &&
                       v.logs[i].blockNumber == header.number,
                   show(v));
    return 0;
}
