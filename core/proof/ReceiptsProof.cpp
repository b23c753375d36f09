#include "ReceiptsProof.h"
#include "OrderedTrie.h"
#include "Receipt.h"
#include "ReceiptJson.h"
#include "chain/ChainParseError.h"
#include "chain/LogsBloom.h"

namespace forkscope::proof {

namespace {
using Failure = ReceiptsVerdict::Failure;

ReceiptsVerdict failed(const chain::BlockHeader& header, Failure failure, const QString& what)
{
    ReceiptsVerdict v;
    v.failure = failure;
    v.problem = QStringLiteral("receipts of block %1 (%2): %3")
                    .arg(header.number)
                    .arg(header.hash.toHex(), what);
    return v;
}

chain::LogsBloom orOf(const chain::LogsBloom& a, const chain::LogsBloom& b)
{
    QByteArray raw = a.toByteArray();
    for (std::size_t i = 0; i < chain::LogsBloom::size; ++i)
        raw[qsizetype(i)] = char(a.bytes()[i] | b.bytes()[i]);
    return chain::LogsBloom::fromBytes(raw, QStringLiteral("logsBloom"));
}

// The first way a receipt or one of its logs is out of place in `header`'s block, or an
// empty string.
QString placement(const chain::BlockHeader& header, const Receipt& r, std::uint64_t index,
                  std::uint64_t firstLogIndex, Failure& failure)
{
    const auto where = [&](const chain::Hash32& hash, std::uint64_t number) {
        return QStringLiteral("block %1 (%2)").arg(number).arg(hash.toHex());
    };
    failure = Failure::WrongBlock;
    if (r.blockHash != header.hash || r.blockNumber != header.number)
        return QStringLiteral("receipt %1 belongs to %2")
            .arg(index)
            .arg(where(r.blockHash, r.blockNumber));
    for (qsizetype j = 0; j < r.logs.size(); ++j) {
        const chain::LogEntry& log = r.logs[j];
        if (log.blockHash != header.hash || log.blockNumber != header.number)
            return QStringLiteral("receipt %1 log %2 belongs to %3")
                .arg(index)
                .arg(j)
                .arg(where(log.blockHash, log.blockNumber));
    }
    failure = Failure::Misnumbered;
    if (r.transactionIndex != index)
        return QStringLiteral("receipt %1 says transactionIndex %2 (receipts must come in "
                              "transaction order, from 0)")
            .arg(index)
            .arg(r.transactionIndex);
    for (qsizetype j = 0; j < r.logs.size(); ++j) {
        const chain::LogEntry& log = r.logs[j];
        if (log.transactionIndex != index || log.transactionHash != r.transactionHash)
            return QStringLiteral("receipt %1 log %2 names transaction %3 at index %4, the "
                                  "receipt is transaction %5 at index %1")
                .arg(index)
                .arg(j)
                .arg(log.transactionHash.toHex())
                .arg(log.transactionIndex)
                .arg(r.transactionHash.toHex());
        if (log.logIndex != firstLogIndex + std::uint64_t(j))
            return QStringLiteral("receipt %1 log %2 says logIndex %3, its place in the block is "
                                  "%4")
                .arg(index)
                .arg(j)
                .arg(log.logIndex)
                .arg(firstLogIndex + std::uint64_t(j));
    }
    failure = Failure::None;
    return {};
}
} // namespace

namespace {
ReceiptsVerdict verifyRead(const chain::BlockHeader& header, const chain::json::Value& receipts)
{
    if (!receipts.is(simdjson::dom::element_type::ARRAY))
        return failed(header, Failure::Malformed,
                      QStringLiteral("expected an array of receipts, got %1")
                          .arg(chain::shownText(chain::json::describe(receipts))));
    const simdjson::dom::array array = receipts.e.get_array().value_unsafe();

    QList<Receipt> parsed;
    parsed.reserve(qsizetype(array.size()));
    try {
        const QString context = QStringLiteral("eth_getBlockReceipts");
        const chain::FieldPath root(context);
        qsizetype i = 0;
        for (const simdjson::dom::element r : array) {
            parsed.append(json::readReceipt(chain::json::Value::of(r), chain::FieldPath(root, i)));
            ++i;
        }
    } catch (const UnsupportedReceiptType& e) {
        return failed(header, Failure::Unsupported, e.message());
    } catch (const chain::ChainParseError& e) {
        return failed(header, Failure::Malformed, e.message());
    }

    QList<chain::LogEntry> logs;
    QList<QByteArray> encoded;
    encoded.reserve(parsed.size());
    chain::LogsBloom blockBloom;
    for (qsizetype i = 0; i < parsed.size(); ++i) {
        const Receipt& r = parsed[i];
        Failure failure = Failure::None;
        const QString misplaced =
            placement(header, r, std::uint64_t(i), std::uint64_t(logs.size()), failure);
        if (!misplaced.isEmpty())
            return failed(header, failure, misplaced);
        if (chain::bloom::of(r.logs) != r.logsBloom)
            return failed(header, Failure::ReceiptBloom,
                          QStringLiteral("receipt %1 (transaction %2): its logsBloom is not the "
                                         "bloom of its %3 logs")
                              .arg(i)
                              .arg(r.transactionHash.toHex())
                              .arg(r.logs.size()));
        blockBloom = orOf(blockBloom, r.logsBloom);
        encoded.append(r.consensusEncoding());
        logs.append(r.logs);
    }
    if (blockBloom != header.logsBloom)
        return failed(header, Failure::BlockBloom,
                      QStringLiteral("the blooms of its %1 receipts (%2 logs) do not make the "
                                     "header's logsBloom: logs are missing or added")
                          .arg(parsed.size())
                          .arg(logs.size()));
    const chain::Hash32 root = trie::orderedRoot(encoded);
    if (root != header.receiptsRoot)
        return failed(header, Failure::ReceiptsRoot,
                      QStringLiteral("the trie of its %1 receipts (%2 logs) has root %3, the "
                                     "header's receiptsRoot is %4: a receipt or a log was "
                                     "omitted, added or altered")
                          .arg(parsed.size())
                          .arg(logs.size())
                          .arg(root.toHex(), header.receiptsRoot.toHex()));

    ReceiptsVerdict v;
    v.ok = true;
    v.logs = std::move(logs);
    v.receipts = parsed.size();
    return v;
}
} // namespace

ReceiptsVerdict verifyReceipts(const chain::BlockHeader& header, const chain::ParsedJson& receipts)
{
    return verifyRead(header, chain::json::valueOf(receipts));
}

ReceiptsVerdict verifyReceipts(const chain::BlockHeader& header, const QJsonValue& receipts)
{
    try {
        return chain::json::readQt(
            receipts, QStringLiteral("eth_getBlockReceipts"),
            [&](const chain::json::Value& v) { return verifyRead(header, v); });
    } catch (const chain::ChainParseError& e) {
        return failed(header, Failure::Malformed, e.message());
    }
}

} // namespace forkscope::proof
