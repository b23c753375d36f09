#include "LogFetcher.h"
#include "LogReplyCheck.h"
#include "ProviderLimit.h"
#include "SuspectedTruncationError.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"

#include <algorithm>

namespace forkscope::wire {

namespace {
// A provider refused a filter's address list and addressesPerCall was lowered: the range's
// calls start again with the smaller lists.
struct AddressLimitLowered
{
};
} // namespace

QList<chain::LogEntry> LogFetcher::completeLogs(std::uint64_t from, std::uint64_t& to,
                                                WireBatch& batch, QSet<std::uint64_t>& unproven)
{
    for (;;) {
        const qsizetype perCall = qsizetype(std::max<qint64>(1, m_spec.addressesPerCall->load()));
        QList<chain::LogEntry> logs;
        try {
            if (m_addresses.size() <= perCall)
                return completeLogsOf(m_addresses, from, to, batch, unproven);
            for (qsizetype i = 0; i < m_addresses.size(); i += perCall)
                logs += completeLogsOf(m_addresses.mid(i, perCall), from, to, batch, unproven);
        } catch (const AddressLimitLowered&) {
            continue;
        }
        // A later list's limit lowered `to`: what the earlier ones got above it goes.
        const std::uint64_t last = to;
        logs.removeIf([last](const chain::LogEntry& l) { return l.blockNumber > last; });
        for (auto it = unproven.begin(); it != unproven.end();)
            it = *it > last ? unproven.erase(it) : std::next(it);
        return logs;
    }
}

QList<chain::LogEntry> LogFetcher::completeLogsOf(const QList<chain::Address>& addresses,
                                                  std::uint64_t from, std::uint64_t& to,
                                                  WireBatch& batch, QSet<std::uint64_t>& unproven)
{
    int& halvings = batch.halvings;
    const auto halve = [&] {
        to = from + (to - from) / 2;
        ++halvings;
    };
    while (true) {
        const rpc::LogFilter filter = rpc::LogFilter::range(from, to, addresses);
        QList<chain::LogEntry> logs;
        try {
            logs = m_eth.getLogs(filter);
        } catch (const rpc::RpcException& e) {
            if (const auto limit = e.error().kind == rpc::RpcError::Kind::Remote
                                       ? parseAddressLimit(e.error().message)
                                       : std::nullopt;
                limit && addresses.size() > 1) {
                // Fewer addresses per filter from now on, for every fetch thread.
                const qint64 fewer =
                    limit->maxAddresses
                        ? std::clamp<qint64>(qint64(*limit->maxAddresses), 1, addresses.size() - 1)
                        : std::max<qint64>(1, addresses.size() / 2);
                qint64 now = m_spec.addressesPerCall->load();
                while (fewer < now && !m_spec.addressesPerCall->compare_exchange_weak(now, fewer)) {
                }
                throw AddressLimitLowered{};
            }
            if (e.error().kind == rpc::RpcError::Kind::TooLarge) {
                // Over the reply-size cap: like a provider limit, fetch less at a time.
                if (from == to)
                    throw SuspectedTruncationError(
                        from, QStringLiteral("block %1 cannot be fetched whole: %2. Nothing "
                                             "from this range was committed; raise "
                                             "--max-reply-mb if this block really holds that "
                                             "much")
                                  .arg(from)
                                  .arg(e.error().toString()));
                halve();
                continue;
            }
            if (e.error().kind != rpc::RpcError::Kind::Remote)
                throw;
            const auto limit = parseProviderLimit(e.error().message);
            if (!limit)
                throw;
            // An announced limit: split the range, using the provider's hint when it gives one.
            if (from == to)
                throw SuspectedTruncationError(from, m_spec.logCap);
            if (limit->suggestedFrom == from && limit->suggestedTo && *limit->suggestedTo >= from &&
                *limit->suggestedTo < to) {
                to = *limit->suggestedTo;
                ++halvings;
            } else if (limit->maxBlocks && *limit->maxBlocks > 0 &&
                       to - from + 1 > *limit->maxBlocks) {
                to = from + *limit->maxBlocks - 1;
                ++halvings;
            } else {
                halve();
            }
            continue;
        }
        checkLogsMatchFilter(logs, filter, m_eth.endpointText());
        if (!mayBeCapped(logs.size()))
            return logs;
        if (provenByWiderReply(addresses, from, to, logs.size(), batch))
            return logs;
        if (from == to) { // one block cannot be split: it is proven once its header is in
            unproven.insert(from);
            return logs;
        }
        return splitLogs(from, to, logs.size(), batch, unproven);
    }
}

bool LogFetcher::provenByWiderReply(const QList<chain::Address>& addresses, std::uint64_t from,
                                    std::uint64_t to, qsizetype logs, WireBatch& batch)
{
    if (from == 0)
        return false;
    // Backwards: the blocks before the range exist on the node, the ones after may not yet.
    const std::uint64_t width = to - from + 1;
    const rpc::LogFilter wider =
        rpc::LogFilter::range(from > width ? from - width : 0, to, addresses);
    QList<chain::LogEntry> got;
    ++batch.logCalls;
    try {
        got = m_eth.getLogs(wider);
    } catch (const rpc::RpcException&) {
        return false; // a limit, or trouble: splitting the range decides, and says which
    }
    checkLogsMatchFilter(got, wider, m_eth.endpointText());
    m_spec.capacity->saw(got.size());
    if (got.size() <= logs)
        return false;
    const qsizetype inRange = std::count_if(
        got.cbegin(), got.cend(), [from](const auto& l) { return l.blockNumber >= from; });
    if (inRange != logs)
        return false; // the two replies disagree over the range: its halves settle it
    ++batch.completeness.widerProofs;
    return true;
}

QList<chain::LogEntry> LogFetcher::splitLogs(std::uint64_t from, std::uint64_t& to,
                                             qsizetype replied, WireBatch& batch,
                                             QSet<std::uint64_t>& unproven)
{
    ++batch.halvings;
    const std::uint64_t firstTo = from + (to - from) / 2;
    std::uint64_t mid = firstTo;
    QList<chain::LogEntry> logs = completeLogs(from, mid, batch, unproven);
    if (mid < firstTo) { // a limit cut the first half: the range ends there
        to = mid;
        return logs;
    }
    logs += completeLogs(firstTo + 1, to, batch, unproven);
    if (logs.size() > replied) {
        // The halves, each proven, hold more than the reply for their union: it was cut,
        // and at exactly its size, which is therefore this node's cap.
        ++batch.completeness.splitTruncations;
        batch.completeness.learnedCap = replied;
        batch.completeness.lastShortBlock = to;
        m_spec.capacity->setProvenCap(replied);
    }
    return logs;
}

bool LogFetcher::mayBeCapped(qsizetype logs) const
{
    if (m_spec.logCap == 0) // --log-cap 0: every reply's size is trusted
        return false;
    // Exactly `logCap` logs is indistinguishable from a reply cut at that announced size;
    // any size not below the node's largest reply so far may be a silent cap's.
    const bool atCap = std::uint64_t(logs) == m_spec.logCap;
    return m_spec.capacity->mayBeCut(logs) || atCap;
}

QList<chain::LogEntry> LogFetcher::rangeLogs(std::uint64_t from, std::uint64_t& to,
                                             WireBatch& batch, QSet<std::uint64_t>& unproven)
{
    const std::uint64_t blocks = to - from + 1;
    const std::uint64_t perCall = blocksPerLogsCall(
        blocks, m_spec.logsPerCall, m_spec.logsPerBlock ? m_spec.logsPerBlock->load() : 0);
    // More addresses than one filter takes: their lists one after the other, each whole.
    if (perCall >= blocks || m_addresses.size() > m_spec.addressesPerCall->load()) {
        ++batch.logCalls;
        return completeLogs(from, to, batch, unproven);
    }
    // All parts are sent before the first is read: the node works on them side by side, so
    // a distant node costs one round trip per range, as with one call.
    struct Part
    {
        rpc::LogFilter filter;
        std::unique_ptr<rpc::RpcCall> call; // deleted (aborted) if never read
    };
    std::vector<Part> parts;
    for (std::uint64_t a = from; a <= to; a += perCall) {
        Part p{rpc::LogFilter::range(a, std::min(to, a + perCall - 1), m_addresses), nullptr};
        p.call.reset(m_eth.requestLogs(p.filter));
        parts.push_back(std::move(p));
    }
    QList<chain::LogEntry> logs;
    for (Part& p : parts) {
        const bool first = &p == &parts.front();
        QList<chain::LogEntry> got;
        bool whole = false;
        ++batch.logCalls;
        try {
            got = m_eth.takeLogs(p.call.release());
            checkLogsMatchFilter(got, p.filter, m_eth.endpointText());
            whole = !mayBeCapped(got.size());
        } catch (const rpc::RpcException& e) {
            // A limit or an oversized reply is completeLogs' to handle; anything else (a
            // rate limit too) is node trouble, as for one call, and is not asked again here.
            if (!isRangeLimit(e.error()) && !(e.error().kind == rpc::RpcError::Kind::Remote &&
                                              parseAddressLimit(e.error().message)))
                throw;
        }
        std::uint64_t partTo = p.filter.toBlock;
        if (!whole) { // the part again on its own, split as its answers require
            ++batch.logCalls;
            try {
                got = completeLogs(p.filter.fromBlock, partTo, batch, unproven);
            } catch (const SuspectedTruncationError&) {
                if (first)
                    throw;
                // A block of this part cannot be fetched whole, but the parts before it
                // were: the range ends before this part, so they are committed, and the next
                // range starts here, where the error stops indexing with nothing before the
                // block left out (as one call's halving would have).
                to = p.filter.fromBlock - 1;
                break;
            }
        }
        logs += got;
        if (partTo < p.filter.toBlock) { // a limit cut it: the range ends there
            to = partTo;
            break;
        }
    }
    return logs;
}

QList<chain::BlockHeader> LogFetcher::headers(std::uint64_t from, std::uint64_t& to,
                                              std::unique_ptr<rpc::RpcCall> sent)
{
    QList<std::optional<chain::BlockHeader>> replies;
    while (true) {
        try {
            replies = m_eth.takeBlocks(sent ? sent.release() : m_eth.requestBlocks(from, to), from);
            break;
        } catch (const rpc::RpcException& e) {
            // Headers over the reply cap (a node padding them): fewer at a time.
            if (e.error().kind != rpc::RpcError::Kind::TooLarge || to == from)
                throw;
            to = from + (to - from) / 2;
        }
    }
    // Asked before a limit on the logs lowered `to`: the rest is not part of this range.
    if (replies.size() > qsizetype(to - from + 1))
        replies.resize(qsizetype(to - from + 1));
    QList<chain::BlockHeader> out;
    for (const auto& h : replies) {
        if (!h) // the node has not reached it (lagging or load-balanced): stop before it
            break;
        out.append(*h);
    }
    return out;
}

WireBatch LogFetcher::fetch(std::uint64_t fromBlock, std::uint64_t toBlock,
                            std::uint64_t latestBlock)
{
    WireBatch batch;
    batch.context = m_spec.context;
    batch.fromBlock = fromBlock;
    batch.latestBlock = latestBlock;
    std::uint64_t to = toBlock;
    m_addresses = m_spec.contracts;
    if (m_spec.children) {
        // Every child created up to the range's end (ChildDirectory.h); the receiver checks
        // this list against the creations the batch's own logs hold.
        m_spec.children->scanThrough(m_eth, std::max(toBlock, latestBlock));
        batch.fetchedChildren = m_spec.children->createdThrough(toBlock);
        m_addresses += batch.fetchedChildren;
    }
    m_check.setContracts(m_addresses);
    while (true) {
        // The headers are asked for before the logs and read after them: a distant node
        // answers both in one round trip per range, not two. (Deleted unread, the call is
        // aborted, if reading the logs throws.)
        std::unique_ptr<rpc::RpcCall> headerCall(m_eth.requestBlocks(fromBlock, to));
        QList<chain::LogEntry> logs;
        QSet<std::uint64_t> unproven;
        if (!m_addresses.isEmpty())
            logs = rangeLogs(fromBlock, to, batch, unproven);
        batch.headers = headers(fromBlock, to, std::move(headerCall));
        if (batch.headers.isEmpty()) {
            batch.toBlock = fromBlock - 1; // an empty batch: nothing to commit yet
            return batch;
        }
        logs.removeIf([&batch](const chain::LogEntry& l) {
            return l.blockNumber > batch.headers.last().number;
        });
        settleUnproven(logs, unproven, batch);
        to = batch.headers.last().number;
        const CompletenessCheck::Verdict verdict =
            m_check.check(logs, batch.headers, batch.completeness, unproven);
        if (verdict.shortBlock) {
            if (fromBlock < to) { // fetch the range again with halving
                to = fromBlock + (to - fromBlock) / 2;
                ++batch.halvings;
                continue;
            }
            if (!verdict.wholeBlock)
                throw SuspectedTruncationError(
                    fromBlock,
                    QStringLiteral("block %1 cannot be fetched whole from node %2 (%3). "
                                   "Nothing from this range was committed")
                        .arg(fromBlock)
                        .arg(m_eth.endpointText(), verdict.kind),
                    m_eth.endpointText());
            // One block, whose logs by hash reproduce its header's bloom: that is the block,
            // once that reply too is proven not cut by a silent cap.
            logs = verdict.wholeBlockMayBeCut
                       ? m_check.settle(batch.headers.first(), *verdict.wholeBlock,
                                        batch.latestBlock, batch.completeness)
                       : *verdict.wholeBlock;
        }
        batch.logs = logs;
        break;
    }
    batch.toBlock = batch.headers.last().number;
    if (m_spec.logsPerBlock && !m_addresses.isEmpty())
        m_spec.logsPerBlock->store(double(batch.logs.size()) / double(batch.headers.size()));
    // Keep only the logs of blocks we have headers for: completeness is per block.
    const std::uint64_t last = batch.toBlock;
    batch.logs.removeIf([last](const chain::LogEntry& l) { return l.blockNumber > last; });
    std::sort(batch.logs.begin(), batch.logs.end(),
              [](const auto& a, const auto& b) { return a.position() < b.position(); });
    if (m_spec.registry && !m_spec.registry->isEmpty())
        decodeWithinBudget(batch);
    return batch;
}

void LogFetcher::settleUnproven(QList<chain::LogEntry>& logs, const QSet<std::uint64_t>& unproven,
                                WireBatch& batch)
{
    for (const chain::BlockHeader& h : batch.headers) {
        if (!unproven.contains(h.number))
            continue;
        QList<chain::LogEntry> got;
        for (const auto& l : logs)
            if (l.blockNumber == h.number)
                got.append(l);
        QList<chain::LogEntry> proven;
        try {
            proven = m_check.settle(h, got, batch.latestBlock, batch.completeness);
        } catch (const SuspectedTruncationError&) {
            if (h.number == batch.fromBlock)
                throw;
            // The blocks before it are whole: the range ends there, and the next one starts
            // at this block, where the refusal stops indexing with nothing left out.
            const std::uint64_t last = h.number - 1;
            logs.removeIf([last](const chain::LogEntry& l) { return l.blockNumber > last; });
            batch.headers.removeIf([last](const chain::BlockHeader& b) { return b.number > last; });
            break;
        }
        if (proven.size() == got.size())
            continue;
        const std::uint64_t n = h.number;
        logs.removeIf([n](const chain::LogEntry& l) { return l.blockNumber == n; });
        logs += proven; // sorted with the rest before the batch leaves
    }
    if (const auto cap = m_spec.capacity->provenCap())
        batch.completeness.learnedCap = *cap;
}

void LogFetcher::decodeWithinBudget(WireBatch& batch) const
{
    batch.decodings.reserve(batch.logs.size());
    qint64 used = 0;
    for (qsizetype i = 0; i < batch.logs.size(); ++i) {
        batch.decodings.append(m_spec.registry->decode(batch.logs.at(i)));
        used += batch.decodings.last().argsJson.size();
        if (used <= m_spec.decodeBudgetBytes)
            continue;
        const std::uint64_t block = batch.logs.at(i).blockNumber;
        // Blocks stay whole: the batch ends before the block that passed the budget, and
        // the receiver asks for the rest next, as after a provider's cap. A first block
        // over the budget on its own keeps its remaining logs raw.
        const std::uint64_t last = block > batch.fromBlock ? block - 1 : block;
        if (block == batch.fromBlock) {
            for (qsizetype j = i + 1;
                 j < batch.logs.size() && batch.logs.at(j).blockNumber == block; ++j) {
                abi::EventDecoding d;
                d.status = abi::EventDecoding::Status::Failed;
                d.error = QStringLiteral("ABI: the decoded arguments of block %1 exceed %2 MiB, "
                                         "the bound per batch; kept raw")
                              .arg(block)
                              .arg(m_spec.decodeBudgetBytes / (1024 * 1024));
                batch.decodings.append(d);
            }
        }
        const auto keep = std::count_if(batch.logs.cbegin(), batch.logs.cend(),
                                        [last](const auto& l) { return l.blockNumber <= last; });
        batch.logs.resize(keep);
        batch.decodings.resize(keep);
        batch.headers.removeIf([last](const chain::BlockHeader& h) { return h.number > last; });
        batch.toBlock = last;
        ++batch.halvings;
        return;
    }
}

} // namespace forkscope::wire
