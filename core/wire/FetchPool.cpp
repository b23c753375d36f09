#include "FetchPool.h"
#include "ReplyMismatchError.h"
#include "SuspectedTruncationError.h"
#include "rpc/EthClient.h"

#include <QDeadlineTimer>
#include <QThread>

namespace forkscope::wire {

FetchPool::FetchPool(const QUrl& endpoint, FetchSpec spec, int workers,
                     std::chrono::milliseconds rpcTimeout, qint64 maxReplyBytes,
                     concurrency::StopTokenPtr stop)
    : m_spec(std::move(spec)), m_maxReplyBytes(maxReplyBytes), m_stop(std::move(stop))
{
    for (int i = 0; i < std::max(1, workers); ++i) {
        std::unique_ptr<QThread> t(
            QThread::create([this, endpoint, rpcTimeout] { workerLoop(endpoint, rpcTimeout); }));
        t->setObjectName(QStringLiteral("forkscope-fetch-%1").arg(i));
        t->start();
        m_threads.push_back(std::move(t));
    }
}

FetchPool::~FetchPool()
{
    {
        QMutexLocker lock(&m_mutex);
        m_stopping = true;
        m_jobs.clear();
        m_jobReady.wakeAll();
        m_resultReady.wakeAll();
    }
    for (auto& t : m_threads)
        t->wait(); // a worker mid-request finishes it (bounded by the RPC timeout)
}

void FetchPool::workerLoop(const QUrl& endpoint, std::chrono::milliseconds rpcTimeout)
{
    // Created on this thread: Qt network objects belong to the thread that made them.
    rpc::JsonRpcClient client(endpoint);
    client.setTimeout(rpcTimeout);
    client.setMaxReplyBytes(m_maxReplyBytes);
    client.setStopToken(m_stop);
    rpc::EthClient eth(client);
    LogFetcher fetcher(eth, m_spec);
    while (true) {
        Job job;
        {
            QMutexLocker lock(&m_mutex);
            while (m_jobs.empty() && !m_stopping)
                m_jobReady.wait(&m_mutex);
            if (m_stopping)
                return;
            job = m_jobs.front();
            m_jobs.pop_front();
        }
        FetchOutcome out;
        out.fromBlock = job.from;
        out.attempts = 1;
        try {
            out.batch = fetcher.fetch(job.from, job.to, job.head);
            // A whole range: on from where the fetcher stopped, the pieces joined in order.
            while (job.whole && out.batch->toBlock < job.to && !out.batch->headers.isEmpty()) {
                WireBatch more = fetcher.fetch(out.batch->toBlock + 1, job.to, job.head);
                if (more.headers.isEmpty())
                    break; // the node has nothing more: the receiver sees the short batch
                WireBatch& b = *out.batch;
                b.toBlock = more.toBlock;
                b.headers += more.headers;
                b.logs += more.logs;
                b.decodings += more.decodings;
                b.halvings += more.halvings;
                b.logCalls += more.logCalls;
                b.completeness += more.completeness;
            }
        } catch (const rpc::RpcException& e) {
            if (e.error().kind == rpc::RpcError::Kind::Mismatch)
                out.mismatch = e.error().toString(); // the node lies: not unavailability
            else
                out.rpcError = e.error();
        } catch (const SuspectedTruncationError& e) {
            out.truncatedBlock = e.block;
            out.truncationMessage = e.message();
            out.truncationNode = e.node;
        } catch (const ReplyMismatchError& e) {
            out.mismatch = e.message();
        }
        QMutexLocker lock(&m_mutex);
        if (job.generation != m_generation || m_stopping)
            continue; // fetched for a plan that no longer exists
        m_results.insert(job.from, std::move(out));
        m_resultReady.wakeAll();
    }
}

void FetchPool::addJob(std::uint64_t from, std::uint64_t to, std::uint64_t head, bool whole)
{
    m_planned.append({from, to});
    m_jobs.push_back(Job{from, to, head, m_generation, whole});
    m_jobReady.wakeOne();
}

void FetchPool::plan(std::uint64_t from, std::uint64_t head, std::uint64_t rangeSize, int depth)
{
    QMutexLocker lock(&m_mutex);
    if (m_planned.isEmpty() || m_planned.first().first != from || m_plannedWhole) {
        // The receiver expects something else than what is in flight: start over.
        ++m_generation;
        m_jobs.clear();
        m_results.clear();
        m_planned.clear();
    }
    m_plannedWhole = false;
    // Drop a last range that the head has since outgrown, so it is re-planned full size.
    std::uint64_t next = m_planned.isEmpty() ? from : m_planned.last().second + 1;
    while (m_planned.size() < depth && next <= head) {
        const std::uint64_t to = std::min(head, next + std::max<std::uint64_t>(1, rangeSize) - 1);
        addJob(next, to, head, false);
        next = to + 1;
    }
}

void FetchPool::planRanges(const QList<std::pair<std::uint64_t, std::uint64_t>>& ranges,
                           std::uint64_t head)
{
    QMutexLocker lock(&m_mutex);
    // What is in flight stays if it is the start of the new plan, range for range.
    const bool keeps = m_plannedWhole && !m_planned.isEmpty() && !ranges.isEmpty() &&
                       m_planned.size() <= ranges.size() &&
                       std::equal(m_planned.cbegin(), m_planned.cend(), ranges.cbegin());
    if (!keeps) {
        ++m_generation;
        m_jobs.clear();
        m_results.clear();
        m_planned.clear();
    }
    m_plannedWhole = true;
    for (qsizetype i = m_planned.size(); i < ranges.size(); ++i)
        if (ranges[i].first <= head)
            addJob(ranges[i].first, std::min(ranges[i].second, head), head, true);
}

bool FetchPool::isNext(std::uint64_t from) const
{
    QMutexLocker lock(&m_mutex);
    return !m_planned.isEmpty() && m_planned.first().first == from;
}

std::optional<FetchOutcome> FetchPool::take(std::uint64_t from, std::chrono::milliseconds timeout)
{
    QMutexLocker lock(&m_mutex);
    QDeadlineTimer deadline(timeout);
    while (!m_results.contains(from)) {
        if (m_stopping || m_planned.isEmpty() || m_planned.first().first != from ||
            (m_stop && m_stop->stopRequested()) || deadline.hasExpired())
            return std::nullopt;
        // In slices, so a stop request is seen within 50 ms.
        m_resultReady.wait(&m_mutex,
                           QDeadlineTimer(std::min<qint64>(50, deadline.remainingTime())));
    }
    FetchOutcome out = m_results.take(from);
    const auto planned = m_planned.takeFirst();
    // A failed fetch, or one whose toBlock the fetcher lowered (a cap, a lagging node):
    // the ranges planned after it no longer start where the receiver will expect them.
    const bool shortened =
        !out.batch || out.batch->headers.isEmpty() || out.batch->toBlock != planned.second;
    if (shortened) {
        ++m_generation;
        m_jobs.clear();
        m_results.clear();
        m_planned.clear();
    }
    return out;
}

void FetchPool::cancel()
{
    QMutexLocker lock(&m_mutex);
    ++m_generation;
    m_jobs.clear();
    m_results.clear();
    m_planned.clear();
    m_resultReady.wakeAll();
}

} // namespace forkscope::wire
