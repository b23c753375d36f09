#pragma once

#include <QtGlobal>
#include <atomic>
#include <optional>

namespace forkscope::wire {

// What a node has shown of a silent cap on eth_getLogs, shared by its fetch threads.
//
// The rule (docs/design.md, "Completeness"): a silent cap is a bound on how many logs one
// eth_getLogs reply holds, whatever the query. So every reply the node has returned is at
// most the cap, and a reply smaller than the largest one it returned before cannot have
// been cut by it. A reply that is not smaller is trusted only once proven otherwise: a
// larger reply of a wider query (LogFetcher::provenByWiderReply), its range split into
// smaller replies, or, for one block, the block's receipts proven against its receipts root. Blooms
// cannot stand in for that proof: a block with many logs of few accounts sets every bit its missing
// logs would.
class ReplyCapacity
{
public:
    // Whether a reply of `logs` logs may have been cut: not below the largest reply seen
    // before it (an empty reply never is). The reply is then counted as seen.
    bool mayBeCut(qsizetype logs);
    // Counts a reply as seen without judging it.
    void saw(qsizetype logs);
    qint64 largest() const { return m_largest.load(); }

    // A reply of this size was proven short (a cut reply's size: the cap itself).
    void setProvenCap(qint64 cap) { m_provenCap.store(cap); }
    std::optional<qint64> provenCap() const
    {
        const qint64 c = m_provenCap.load();
        return c > 0 ? std::optional<qint64>(c) : std::nullopt;
    }

private:
    std::atomic<qint64> m_largest{0};
    std::atomic<qint64> m_provenCap{0};
};

} // namespace forkscope::wire
