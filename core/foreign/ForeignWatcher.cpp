#include "ForeignWatcher.h"
#include "ForeignAuditor.h"
#include "ForeignBlockReader.h"
#include "ForeignError.h"
#include "ForeignRow.h"
#include "ForeignTable.h"
#include "ForeignValue.h"
#include "audit/AuditError.h"
#include "chain/ChainParseError.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"
#include "rpc/RpcError.h"
#include "store/OpenStore.h"

#include <algorithm>

namespace forkscope::foreign {

ForeignWatcher::ForeignWatcher(Options options) : m_o(std::move(options))
{
    m_client = std::make_unique<rpc::JsonRpcClient>(m_o.node);
    m_client->setTimeout(m_o.nodeTimeout);
    if (m_o.stop)
        m_client->setStopToken(m_o.stop);
    m_eth = std::make_unique<rpc::EthClient>(*m_client);
}

ForeignWatcher::~ForeignWatcher() = default;

ForeignWatchSnapshot ForeignWatcher::base() const
{
    ForeignWatchSnapshot s;
    s.id = m_o.id;
    s.target = store::describeDatabase(m_o.target); // never a password
    s.node = m_o.node.toString(QUrl::RemoveUserInfo);
    for (const auto& c : m_o.contracts)
        s.contracts << c.toHex();
    s.confirmations = m_o.confirmations;
    s.checks = m_checks;
    s.failedChecks = m_failed;
    s.lastCheckRan = m_lastRan;
    s.at = QDateTime::currentDateTimeUtc();
    return s;
}

ForeignWatchSnapshot ForeignWatcher::stopped(const QString& why) const
{
    ForeignWatchSnapshot s = base();
    s.state = ForeignWatchSnapshot::State::Stopped;
    s.problem = why;
    fill(s);
    return s;
}

ForeignWatchSnapshot ForeignWatcher::check()
{
    using S = ForeignWatchSnapshot::State;
    ++m_checks;
    std::optional<ForeignWatchSnapshot> done;
    const auto failed = [&](S state, const QString& why) {
        ++m_failed;
        ForeignWatchSnapshot s = base();
        s.state = state;
        s.problem = why;
        // What earlier checks found stays listed; no heights: this check has none.
        fill(s);
        s.auditedFrom.reset();
        s.auditedTo.reset();
        return s;
    };
    try {
        const std::unique_ptr<ForeignTable> table = ForeignTable::open(m_o.target);
        std::uint64_t head = 0;
        try {
            head = m_eth->blockNumber();
        } catch (const rpc::RpcException& e) {
            return failed(S::NodeUnreachable,
                          QStringLiteral("the lab's node %1 did not answer: %2")
                              .arg(m_eth->endpointText(), e.error().toString()));
        }
        ForeignWatchSnapshot s = base();
        s.labHead = head;
        const auto span = table->blockNumberSpan(m_o.query);
        if (!span) {
            s.state = S::Waiting;
            m_lastRan = s.at;
            s.lastCheckRan = m_lastRan;
            fill(s);
            return s;
        }
        s.foreignHead = span->second;
        audit(*table, head, span->second, span->first, s);
        s.state = S::Watching;
        m_lastRan = s.at = QDateTime::currentDateTimeUtc();
        s.lastCheckRan = m_lastRan;
        return s;
    } catch (const ForeignError& e) {
        return failed(e.kind() == ForeignError::Kind::BadTarget ? S::TargetUnreachable
                                                                : S::QueryFailed,
                      e.message());
    } catch (const audit::AuditError& e) {
        return failed(e.kind() == audit::AuditError::Kind::NodeUnavailable ? S::NodeUnreachable
                                                                           : S::NodeUntrusted,
                      e.message());
    } catch (const rpc::RpcException& e) {
        return failed(S::NodeUnreachable, QStringLiteral("the lab's node %1 did not answer: %2")
                                              .arg(m_eth->endpointText(), e.error().toString()));
    } catch (const chain::ChainParseError& e) {
        return failed(S::NodeUntrusted,
                      QStringLiteral("the lab's node %1 answered what is not a chain value: %2")
                          .arg(m_eth->endpointText(), e.message()));
    }
}

ForeignBlockView ForeignWatcher::blockView(std::uint64_t block)
{
    ForeignBlockView v;
    try {
        const std::unique_ptr<ForeignTable> table = ForeignTable::open(m_o.target);
        v = readForeignBlock(*table, m_o.query, *m_eth, m_o.contracts, block);
    } catch (const ForeignError& e) {
        v.error = e.message();
    } catch (const audit::AuditError& e) {
        v.error = e.message();
    } catch (const rpc::RpcException& e) {
        v.error = QStringLiteral("the lab's node %1 did not answer: %2")
                      .arg(m_eth->endpointText(), e.error().toString());
    } catch (const chain::ChainParseError& e) {
        v.error = QStringLiteral("the lab's node %1 answered what is not a chain value: %2")
                      .arg(m_eth->endpointText(), e.message());
    }
    if (!v.error.isEmpty()) {
        v.rows.clear();
        v.chain.clear();
    }
    v.watchId = m_o.id;
    v.block = block;
    return v;
}

void ForeignWatcher::audit(ForeignTable& table, std::uint64_t head, std::uint64_t highest,
                           std::uint64_t lowest, ForeignWatchSnapshot& s)
{
    const std::uint64_t safe = head >= m_o.confirmations ? head - m_o.confirmations : 0;
    // A chain shorter than what was settled (the lab was reset), or rows below where the
    // watch began (the indexer started over): what was kept is of another table or chain.
    if ((m_settledTo && safe < *m_settledTo) || (m_from && lowest < *m_from))
        forgetSettled();
    if (!m_from)
        m_from = lowest;
    const std::uint64_t to = std::min(highest, safe);
    m_window = {};
    m_windowTo.reset();
    if (to >= *m_from) {
        const std::uint64_t next = m_settledTo ? *m_settledTo + 1 : *m_from;
        const std::uint64_t windowStart =
            std::max({*m_from, next, to + 1 > m_o.recheckBlocks ? to + 1 - m_o.recheckBlocks : 0});
        bool caughtUp = true;
        if (next < windowStart) {
            const std::uint64_t end = std::min(windowStart - 1, next + kMaxBlocksPerCheck - 1);
            settle(auditRange(table, next, end));
            m_settledTo = end;
            caughtUp = end == windowStart - 1;
        }
        if (caughtUp && windowStart <= to) {
            m_window = auditRange(table, windowStart, to);
            m_windowTo = to;
        }
    }
    fill(s);
}

ForeignAuditResult ForeignWatcher::auditRange(ForeignTable& table, std::uint64_t from,
                                              std::uint64_t to)
{
    ForeignAuditor auditor(table, *m_eth, m_o.contracts);
    ForeignRange range;
    range.from = from;
    range.to = to;
    return auditor.audit(m_o.query, range);
}

void ForeignWatcher::settle(const ForeignAuditResult& r)
{
    for (std::size_t k = 0; k < m_settledCounts.size(); ++k)
        m_settledCounts[k] += r.counts[k];
    m_settled += r.findings;
    if (m_settled.size() > kSettledKept)
        m_settled.remove(0, m_settled.size() - kSettledKept);
}

void ForeignWatcher::forgetSettled()
{
    m_from.reset();
    m_settledTo.reset();
    m_settledCounts = {};
    m_settled.clear();
}

void ForeignWatcher::fill(ForeignWatchSnapshot& s) const
{
    s.counts = m_settledCounts;
    for (std::size_t k = 0; k < s.counts.size(); ++k)
        s.counts[k] += m_window.counts[k];
    const std::optional<std::uint64_t> to = m_windowTo ? m_windowTo : m_settledTo;
    if (to) {
        s.auditedFrom = m_from;
        s.auditedTo = to;
    }
    // Newest blocks first (a block's own in log order), at most kFindingsShown.
    QList<ForeignFinding> all = m_window.findings;
    const qsizetype fromSettled = std::min<qsizetype>(
        m_settled.size(), std::max<qsizetype>(0, s.kFindingsShown - all.size()));
    all += m_settled.mid(m_settled.size() - fromSettled);
    std::stable_sort(all.begin(), all.end(), [](const ForeignFinding& a, const ForeignFinding& b) {
        return a.block > b.block;
    });
    s.findings = all.mid(0, s.kFindingsShown);
}

} // namespace forkscope::foreign
