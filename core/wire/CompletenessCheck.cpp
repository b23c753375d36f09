#include "CompletenessCheck.h"
#include "LogReplyCheck.h"
#include "ProviderLimit.h"
#include "ReplyMismatchError.h"
#include "SuspectedTruncationError.h"
#include "chain/LogsBloom.h"
#include "proof/HeaderHash.h"
#include "proof/LogDiff.h"
#include "proof/ReceiptsProof.h"
#include "rpc/EthClient.h"
#include "rpc/RpcError.h"
#include "text/Count.h"

#include <QHash>
#include <QSet>

namespace forkscope::wire {

namespace {
// A node's logs of a block that its own proven receipts contradict (extra or altered): the
// reply cannot be trusted, and nothing of its range is committed.
SuspectedTruncationError contradictedByReceipts(const QString& node, std::uint64_t block,
                                                const proof::LogDiff& diff)
{
    return SuspectedTruncationError(
        block,
        QStringLiteral("node %1 returned logs of block %2 that its receipts (proven against "
                       "the block's receiptsRoot) do not have: %3. Nothing from this range "
                       "was committed")
            .arg(node)
            .arg(block)
            .arg(diff.describe()),
        node);
}
} // namespace

CompletenessStats& CompletenessStats::operator+=(const CompletenessStats& o)
{
    bloomChecks += o.bloomChecks;
    recounts += o.recounts;
    receiptProofs += o.receiptProofs;
    falsePositives += o.falsePositives;
    bloomTruncations += o.bloomTruncations;
    recountTruncations += o.recountTruncations;
    receiptTruncations += o.receiptTruncations;
    capProofs += o.capProofs;
    splitTruncations += o.splitTruncations;
    widerProofs += o.widerProofs;
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
        if (m_contractSet.contains(l.address))
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
            QStringLiteral("node %1 does not return every log of block %2: the %3 it "
                           "returns for the block's hash do not reproduce the header's "
                           "logsBloom, which the block hash commits to, so it is hiding logs "
                           "of that block. Nothing from this range was committed; index from "
                           "another node (forkscope repair --rpc OTHER) or ask the provider")
                .arg(m_eth.endpointText())
                .arg(header.number)
                .arg(text::count(logs.size(), QStringLiteral("log"), QStringLiteral("logs"))),
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
    if (hc.computed != header.hash || hc.header.number != header.number ||
        hc.header.logsBloom != header.logsBloom || hc.header.receiptsRoot != header.receiptsRoot)
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
                                                    CompletenessStats& stats,
                                                    const QSet<std::uint64_t>& settled)
{
    Verdict v;
    if (m_contracts.isEmpty() || headers.isEmpty())
        return v;
    QHash<std::uint64_t, qsizetype> perBlock;
    for (const auto& l : logs)
        ++perBlock[l.blockNumber];
    // By number, never by position: the headers answered their requests (EthClient checks
    // each number), but a log must still name one of them before its block's bloom is read.
    QHash<std::uint64_t, const chain::BlockHeader*> byNumber;
    for (const auto& h : headers)
        byNumber.insert(h.number, &h);
    const auto headerOf = [&](std::uint64_t n) -> const chain::BlockHeader& {
        const chain::BlockHeader* h = byNumber.value(n);
        if (!h)
            throw ReplyMismatchError(
                QStringLiteral("node %1 returned a log of block %2, outside the %3 "
                               "of its range; nothing from this batch is committed")
                    .arg(m_eth.endpointText())
                    .arg(n)
                    .arg(text::count(headers.size(), QStringLiteral("header"),
                                     QStringLiteral("headers"))));
        return *h;
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
    std::uint64_t lastWithLogs = 0;
    for (const auto& l : logs)
        lastWithLogs = std::max(lastWithLogs, l.blockNumber);
    if (m_policy.recount && !logs.isEmpty() && !settled.contains(lastWithLogs)) {
        const std::uint64_t last = lastWithLogs;
        ++stats.recounts;
        const QList<chain::LogEntry> all = wholeBlock(headerOf(last));
        const bool allMayBeCut = mayBeCut(all.size());
        const QList<chain::LogEntry> whole = ours(all);
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
            v.wholeBlockMayBeCut = allMayBeCut;
            return v;
        }
    }

    // Bloom: every block without logs of ours in the result whose bloom admits one.
    if (m_policy.bloom) {
        for (const chain::BlockHeader& h : headers) {
            ++stats.bloomChecks;
            if (perBlock.value(h.number) > 0 || !bloomAdmitsOurs(h))
                continue;
            const QList<chain::LogEntry> all = wholeBlock(h);
            const bool allMayBeCut = mayBeCut(all.size());
            const QList<chain::LogEntry> whole = ours(all);
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
            v.wholeBlockMayBeCut = allMayBeCut;
            return v;
        }
    }

    // Receipts: the blocks with logs of ours, and those whose bloom admits one.
    if (m_policy.receipts) {
        for (const chain::BlockHeader& h : headers) {
            if (settled.contains(h.number) ||
                (perBlock.value(h.number) == 0 && !bloomAdmitsOurs(h)))
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
                throw contradictedByReceipts(m_eth.endpointText(), h.number, diff);
            ++stats.receiptTruncations;
            stats.lastShortBlock = h.number;
            v.shortBlock = h.number;
            v.kind = QStringLiteral("receipts: ") + diff.describe();
            return v; // no wholeBlock: a block short by receipts stops, named, at one block
        }
    }
    return v;
}

bool CompletenessCheck::largerReplyAbove(const chain::BlockHeader& header,
                                         const QList<chain::LogEntry>& got, std::uint64_t head)
{
    // A reply holding more of this block's logs of ours than `got` shows `got` short
    // (whatever cap cut it): no reply vouches for it then, only the receipts can.
    enum class Shows { Larger, NotLarger, GotShort };
    const auto judge = [&](const QList<chain::LogEntry>& reply) {
        if (m_capacity)
            m_capacity->saw(reply.size());
        qsizetype mine = 0;
        for (const auto& l : reply)
            mine += l.blockNumber == header.number && m_contractSet.contains(l.address);
        if (mine > got.size())
            return Shows::GotShort;
        return reply.size() > got.size() ? Shows::Larger : Shows::NotLarger;
    };
    Shows shown = Shows::NotLarger;
    try {
        shown = judge(wholeBlock(header));
    } catch (const SuspectedTruncationError&) {
        return false; // the block's logs by hash miss some the bloom has: cut as well
    }
    // Windows around the block, every contract's logs, doubling: on a chain whose only
    // contract is ours `got` holds every log of the block, but its neighbours add to a wider
    // reply; on a busy chain the first window already does.
    for (std::uint64_t half = 1; shown == Shows::NotLarger && half <= kWidestHalfWindow;
         half = half * 2 + 1) {
        rpc::LogFilter filter;
        filter.fromBlock = header.number > half ? header.number - half : 0;
        filter.toBlock = std::min(head, header.number + half);
        if (filter.toBlock < header.number)
            filter.toBlock = header.number;
        try {
            const QList<chain::LogEntry> reply = m_eth.getLogs(filter);
            checkLogsMatchFilter(reply, filter, m_eth.endpointText());
            shown = judge(reply);
        } catch (const rpc::RpcException& e) {
            if (!isRangeLimit(e.error()))
                throw;
            break; // too much to count here: only the receipts can settle it
        }
    }
    return shown == Shows::Larger;
}

QList<chain::LogEntry> CompletenessCheck::settle(const chain::BlockHeader& header,
                                                 const QList<chain::LogEntry>& got,
                                                 std::uint64_t head, CompletenessStats& stats)
{
    ++stats.capProofs;
    // A reply the size of a cap already proven on this node is cut as far as any other
    // reply can tell: only the receipts can settle it.
    const std::optional<qint64> cap = m_capacity ? m_capacity->provenCap() : std::nullopt;
    if (!(cap && *cap == got.size()) && largerReplyAbove(header, got, head))
        return got;
    const QString node = m_eth.endpointText();
    QList<chain::LogEntry> proven;
    try {
        proven = provenByReceipts(header);
    } catch (const rpc::RpcException& e) {
        if (e.error().kind != rpc::RpcError::Kind::Remote)
            throw;
        throw SuspectedTruncationError(
            header.number,
            QStringLiteral("suspected truncation: block %3: node %1 returned %2 of ours "
                           "for it, as many as the most it has returned in one eth_getLogs "
                           "reply, so a silent cap at %2 cannot be ruled out: no wider query "
                           "returned more, and it does not serve eth_getBlockReceipts to prove "
                           "the block (%4). Nothing from this range was committed; index from a "
                           "node without that cap, or one that serves eth_getBlockReceipts (or, "
                           "if you know the node never cuts a reply, pass --log-cap 0)")
                .arg(node)
                .arg(text::count(got.size(), QStringLiteral("log"), QStringLiteral("logs")))
                .arg(header.number)
                .arg(e.error().message),
            node);
    }
    ++stats.receiptProofs;
    const proof::LogDiff diff = proof::diffLogs(proven, got);
    if (!diff.extra.isEmpty() || !diff.altered.isEmpty())
        throw contradictedByReceipts(node, header.number, diff);
    if (!diff.missing.isEmpty()) { // cut: the proven logs stand in for the reply
        ++stats.receiptTruncations;
        stats.learnedCap = got.size();
        stats.lastShortBlock = header.number;
        if (m_capacity)
            m_capacity->setProvenCap(got.size());
    }
    return proven;
}

} // namespace forkscope::wire
