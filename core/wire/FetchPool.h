#pragma once

#include "LogFetcher.h"
#include "WireBatch.h"
#include "concurrency/StopToken.h"
#include "rpc/RpcError.h"

#include <QList>
#include <QMap>
#include <QMutex>
#include <QUrl>
#include <QWaitCondition>
#include <chrono>
#include <deque>
#include <memory>
#include <optional>
#include <variant>

class QThread;

namespace forkscope::wire {

// What a fetch produced: a batch, or why not.
struct FetchOutcome
{
    std::uint64_t fromBlock = 0;
    std::optional<WireBatch> batch;
    std::optional<rpc::RpcError> rpcError;       // node trouble: retry later, never a reorg
    std::optional<std::uint64_t> truncatedBlock; // SuspectedTruncationError
    QString truncationMessage;
    QString truncationNode;          // the provider, when the proof names one
    std::optional<QString> mismatch; // ReplyMismatchError: the node answered off-request
    int attempts = 0;
};

// Fetch threads ahead of the receiver. Each worker owns its own JsonRpcClient, EthClient
// and LogFetcher on its own QThread, so JSON parsing and node round trips happen off the
// committing thread, and several ranges are in flight at once (backfill). The pool never
// decides where the cursor is: the receiver plans from its expectedFromBlock, and every
// plan change (a rejected batch, a reorg) discards what was fetched for the old plan.
class FetchPool
{
public:
    // `stop`, if given, cancels the workers' requests and take()'s wait when set.
    FetchPool(const QUrl& endpoint, FetchSpec spec, int workers,
              std::chrono::milliseconds rpcTimeout, qint64 maxReplyBytes,
              concurrency::StopTokenPtr stop = {});
    ~FetchPool();

    FetchPool(const FetchPool&) = delete;
    FetchPool& operator=(const FetchPool&) = delete;

    // Keep up to `depth` consecutive ranges of `rangeSize` in flight starting at `from`,
    // never past `head`. A different `from` than planned drops the old plan.
    void plan(std::uint64_t from, std::uint64_t head, std::uint64_t rangeSize, int depth);
    // Keep exactly these ranges in flight, lowest first (the backfill ranges a writer holds,
    // which need not follow each other). Each is fetched whole: where the fetcher lowers
    // toBlock (a provider's limit), the rest is fetched on and the pieces joined, because a
    // range is committed with its "done" mark or not at all. A different first range than
    // planned drops the old plan.
    void planRanges(const QList<std::pair<std::uint64_t, std::uint64_t>>& ranges,
                    std::uint64_t head);
    // Whether the range starting at `from` is the next one planned (take() can still get it).
    bool isNext(std::uint64_t from) const;
    // Waits for the outcome of the range starting at `from` (planned before). Returns
    // nullopt on timeout or after cancel().
    std::optional<FetchOutcome> take(std::uint64_t from, std::chrono::milliseconds timeout);
    // Drops every queued job and result (in-flight ones are discarded when they land).
    void cancel();

    int workers() const { return int(m_threads.size()); }

private:
    struct Job
    {
        std::uint64_t from;
        std::uint64_t to;
        std::uint64_t head;
        quint64 generation;
        bool whole;
    };
    void addJob(std::uint64_t from, std::uint64_t to, std::uint64_t head, bool whole);
    void workerLoop(const QUrl& endpoint, std::chrono::milliseconds rpcTimeout);

    FetchSpec m_spec;
    qint64 m_maxReplyBytes;
    concurrency::StopTokenPtr m_stop;
    mutable QMutex m_mutex;
    QWaitCondition m_jobReady;
    QWaitCondition m_resultReady;
    std::deque<Job> m_jobs;
    QMap<std::uint64_t, FetchOutcome> m_results;
    QList<std::pair<std::uint64_t, std::uint64_t>> m_planned; // (from, to), current generation
    bool m_plannedWhole = false; // the plan is of whole ranges (planRanges)
    quint64 m_generation = 0;
    bool m_stopping = false;
    std::vector<std::unique_ptr<QThread>> m_threads;
};

} // namespace forkscope::wire
