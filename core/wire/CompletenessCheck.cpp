#include "CompletenessCheck.h"
#include "LogReplyCheck.h"
#include "ReplyMismatchError.h"
#include "SuspectedTruncationError.h"
#include "chain/LogsBloom.h"
#include "proof/HeaderHash.h"
#include "proof/LogDiff.h"
#include "proof/ReceiptsProof.h"
#include "rpc/EthClient.h"

#include <QHash>
#include <QSet>

namespace forkscope::wire {

CompletenessStats& CompletenessStats::operator+=(const CompletenessStats& o)
{
    bloomChecks += o.bloomChecks;
    recounts += o.recounts;
    receiptProofs += o.receiptProofs;
    falsePositives += o.falsePositives;
    bloomTruncations += o.bloomTruncations;
    recountTruncations += o.recountTruncations;
    receiptTruncations += o.receiptTruncations;
    if (o.learnedCap)
        learnedCap = o.learnedCap;
    if (o.lastShortBlock)
        lastShortBlock = o.lastShortBlock;
    return *this;
}

QList<chain::LogEntry> CompletenessCheck::ours(const QList<chain::LogEntry>& logs) const
{
    QList<chain::LogEntry> out;
    for (const auto& l : logs)
        if (m_contracts.contains(l.address))
            out.append(l);
    return out;
}

bool CompletenessCheck::bloomAdmitsOurs(const chain::BlockHeader& header) const
{
    for (const auto& c : m_contracts)
        if (chain::bloom::mayContain(header.logsBloom, m_bloomBits.bitsOf(c)))
            return true;
    return false;
}

QList<chain::LogEntry> CompletenessCheck::wholeBlock(const chain::BlockHeader& header)
{
    rpc::LogFilter all; // no address filter: every log of the block
    all.blockHash = header.hash;
    const QList<chain::LogEntry> logs = m_eth.getLogs(all);
    checkLogsMatchFilter(logs, all, m_eth.endpointText());
    if (chain::bloom::of(logs) != header.logsBloom)
        throw SuspectedTruncationError(
            header.number,
            QStringLiteral("node %1 does not return every log of block %2: the %3 log(s) it "
                           "returns for the block's hash do not reproduce the header's "
                           "logsBloom, which the block hash commits to, so it is hiding logs "
                           "of that block. Nothing from this range was committed; index from "
                           "another node (forkscope repair --rpc OTHER) or ask the provider")
                .arg(m_eth.endpointText())
                .arg(header.number)
                .arg(logs.size()),
            m_eth.endpointText());
    return logs;
}

QList<chain::LogEntry> CompletenessCheck::provenByReceipts(const chain::BlockHeader& header)
{
    const QString node = m_eth.endpointText();
    const auto refuse = [&](const QString& why) {
        throw SuspectedTruncationError(
            header.number,
            QStringLiteral("node %1: block %2 cannot be proven complete (--verify receipts): %3. "
                           "Nothing from this range was committed")
                .arg(node)
                .arg(header.number)
                .arg(why),
            node);
    };
    // The receipts root proves the logs against the header; the header's own fields must
    // hash to the block hash the chain linkage checked, or the root is the node's say-so.
    const auto json = m_eth.blockJsonByHash(header.hash);
    if (!json)
        refuse(QStringLiteral("the node has no block with hash %1").arg(header.hash.toHex()));
    const proof::HeaderHashCheck hc =
        proof::verifyHeaderHash(*json, QStringLiteral("block %1").arg(header.number));
    if (!hc.ok)
        refuse(hc.problem);
    if (hc.header.logsBloom != header.logsBloom || hc.header.receiptsRoot != header.receiptsRoot)
        refuse(QStringLiteral("its header by hash differs from its header by number"));
    const auto receipts = m_eth.blockReceiptsJson(header.hash);
    if (!receipts)
        refuse(QStringLiteral("eth_getBlockReceipts answered null"));
    const proof::ReceiptsVerdict v = proof::verifyReceipts(hc.header, *receipts);
    if (!v.ok)
        refuse(v.problem);
    return proof::selectLogs(v.logs, m_contracts, {});
}

CompletenessCheck::Verdict CompletenessCheck::check(const QList<chain::LogEntry>& logs,
                                                    const QList<chain::BlockHeader>& headers,
                                                    CompletenessStats& stats)
{
    Verdict v;
    if (m_contracts.isEmpty() || headers.isEmpty())
        return v;
    QHash<std::uint64_t, qsizetype> perBlock;
    for (const auto& l : logs)
        ++perBlock[l.blockNumber];
    const auto headerOf = [&](std::uint64_t n) -> const chain::BlockHeader& {
        return headers.at(qsizetype(n - headers.first().number));
    };

    // A log whose address or topics are not in its block's bloom was not in that block:
    // the node invented it, or serves a header of another block.
    for (const auto& l : logs) {
        if (!m_bloomBits.mayContain(headerOf(l.blockNumber).logsBloom, l))
            throw ReplyMismatchError(
                QStringLiteral("node %1 returned a log of block %2 (log index %3) whose address "
                               "or topics are not in the block's logsBloom; nothing from this "
                               "batch is committed")
                    .arg(m_eth.endpointText())
                    .arg(l.blockNumber)
                    .arg(l.logIndex));
    }

    // Recount: a cap cuts a result in the middle of its last block.
    if (m_policy.recount && !logs.isEmpty()) {
        std::uint64_t last = 0;
        for (const auto& l : logs)
            last = std::max(last, l.blockNumber);
        ++stats.recounts;
        const QList<chain::LogEntry> whole = ours(wholeBlock(headerOf(last)));
        QSet<std::uint64_t> fromRange;
        for (const auto& l : logs)
            if (l.blockNumber == last)
                fromRange.insert(l.logIndex);
        QSet<std::uint64_t> fromBlock;
        for (const auto& l : whole)
            fromBlock.insert(l.logIndex);
        if (!fromBlock.contains(fromRange))
            throw ReplyMismatchError(
                QStringLiteral("node %1 returned logs of block %2 in a range that the block's "
                               "own logs (by hash) do not have; nothing from this batch is "
                               "committed")
                    .arg(m_eth.endpointText())
                    .arg(last));
        if (fromBlock.size() > fromRange.size()) {
            ++stats.recountTruncations;
            stats.learnedCap = logs.size();
            v.shortBlock = last;
            stats.lastShortBlock = last;
            v.kind = QStringLiteral("recount");
            v.wholeBlock = whole;
            return v;
        }
    }

    // Bloom: every block without logs of ours in the result whose bloom admits one.
    if (m_policy.bloom) {
        for (const chain::BlockHeader& h : headers) {
            ++stats.bloomChecks;
            if (perBlock.value(h.number) > 0 || !bloomAdmitsOurs(h))
                continue;
            const QList<chain::LogEntry> whole = ours(wholeBlock(h));
            if (whole.isEmpty()) {
                ++stats.falsePositives; // another contract's log set the same bits
                continue;
            }
            ++stats.bloomTruncations;
            if (!logs.isEmpty())
                stats.learnedCap = logs.size();
            v.shortBlock = h.number;
            stats.lastShortBlock = h.number;
            v.kind = QStringLiteral("bloom");
            v.wholeBlock = whole;
            return v;
        }
    }

    // Receipts: the blocks with logs of ours, and those whose bloom admits one.
    if (m_policy.receipts) {
        for (const chain::BlockHeader& h : headers) {
            if (perBlock.value(h.number) == 0 && !bloomAdmitsOurs(h))
                continue;
            ++stats.receiptProofs;
            QList<chain::LogEntry> claimed;
            for (const auto& l : logs)
                if (l.blockNumber == h.number)
                    claimed.append(l);
            const proof::LogDiff diff = proof::diffLogs(provenByReceipts(h), claimed);
            if (diff.isEmpty())
                continue;
            if (!diff.extra.isEmpty() || !diff.altered.isEmpty())
                throw SuspectedTruncationError(
                    h.number,
                    QStringLiteral("node %1 returned logs of block %2 that its receipts (proven "
                                   "against the block's receiptsRoot) do not have: %3. Nothing "
                                   "from this range was committed")
                        .arg(m_eth.endpointText())
                        .arg(h.number)
                        .arg(diff.describe()),
                    m_eth.endpointText());
            ++stats.receiptTruncations;
            stats.lastShortBlock = h.number;
            v.shortBlock = h.number;
            v.kind = QStringLiteral("receipts: ") + diff.describe();
            return v; // no wholeBlock: a block short by receipts stops, named, at one block
        }
    }
    return v;
}

} // namespace forkscope::wire
