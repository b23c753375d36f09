#pragma once

#include "ForeignAuditResult.h"
#include "ForeignBlockView.h"
#include "ForeignWatchSnapshot.h"
#include "chain/Address.h"
#include "concurrency/StopToken.h"

#include <QUrl>
#include <memory>

namespace forkscope::rpc {
class JsonRpcClient;
class EthClient;
} // namespace forkscope::rpc

namespace forkscope::foreign {

class ForeignTable;
struct ForeignRange;

// One foreign indexer's table watched against a node, one check() at a time (the caller's
// worker thread calls it every few seconds). Each check opens the table afresh (one
// snapshot of what the indexer has committed now), reads its highest block through the
// audit query and the node's head, and audits with ForeignAuditor:
//   - blocks that fell out of the recheck window since the last check, once: their findings
//     are kept and counted from then on (settled);
//   - the recheck window, the newest `recheckBlocks` blocks up to the head minus the
//     confirmations (and no higher than the table), every time: a reorg or the indexer's
//     own rollback there changes its findings.
// At most kMaxBlocksPerCheck blocks are settled per check, so a long table is caught up
// over several checks and a stop request waits for one check at most. A check that cannot
// run (the target, the query, the node) changes nothing kept and says why. Every list is
// bounded. Lives on the thread that made it (its RPC client does).
class ForeignWatcher
{
public:
    struct Options
    {
        quint64 id = 0;
        QString target;
        QString query;
        QList<chain::Address> contracts;
        QUrl node;
        std::uint64_t confirmations = 0;
        std::uint64_t recheckBlocks = 12;
        std::chrono::milliseconds nodeTimeout{5000};
        concurrency::StopTokenPtr stop;
    };
    static constexpr std::uint64_t kMaxBlocksPerCheck = 2000;
    // Settled findings kept with their text (the newest blocks'); all are counted.
    static constexpr qsizetype kSettledKept = 1000;

    explicit ForeignWatcher(Options options);
    ~ForeignWatcher();

    ForeignWatchSnapshot check();
    // One block's rows next to the node's Transfers (ForeignBlockReader.h); `error` says
    // why when either side cannot be read.
    ForeignBlockView blockView(std::uint64_t block);
    // The snapshot that ends the watch.
    ForeignWatchSnapshot stopped(const QString& why) const;

private:
    ForeignWatchSnapshot base() const;
    void audit(ForeignTable& table, std::uint64_t head, std::uint64_t highest, std::uint64_t lowest,
               ForeignWatchSnapshot& s);
    ForeignAuditResult auditRange(ForeignTable& table, std::uint64_t from, std::uint64_t to);
    void settle(const ForeignAuditResult& r);
    void forgetSettled();
    void fill(ForeignWatchSnapshot& s) const;

    Options m_o;
    std::unique_ptr<rpc::JsonRpcClient> m_client;
    std::unique_ptr<rpc::EthClient> m_eth;
    qint64 m_checks = 0;
    qint64 m_failed = 0;
    QDateTime m_lastRan;
    // Blocks from..settledTo are audited for good; the window is audited at every check.
    std::optional<std::uint64_t> m_from;
    std::optional<std::uint64_t> m_settledTo;
    std::array<qint64, ForeignFinding::kKinds> m_settledCounts{};
    QList<ForeignFinding> m_settled; // oldest first, at most kSettledKept
    std::optional<std::uint64_t> m_windowTo;
    ForeignAuditResult m_window;
};

} // namespace forkscope::foreign
