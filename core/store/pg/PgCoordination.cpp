#include "PgCoordination.h"
#include "PgConnection.h"
#include "PgRanges.h"

#include <QDeadlineTimer>
#include <algorithm>

namespace forkscope::store::pg {

namespace {

qint64 nowMs()
{
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

indexer::RangeClaim fromCoord(const coord::RangeClaim& c)
{
    return {std::uint64_t(c.fromBlock), std::uint64_t(c.toBlock), c.attempts, c.takenOverFrom,
            c.ownerGone};
}

} // namespace

PgCoordination::PgCoordination(PgConnection& db, QString environmentId, qint64 chainId,
                               QString owner, std::chrono::milliseconds lease)
    : m_db(db), m_env(environmentId.toUtf8()), m_chain(QByteArray::number(chainId)),
      m_claims(db, environmentId, chainId, std::move(owner), lease),
      m_headLock(db, QStringLiteral("head"), environmentId, chainId), m_lease(lease)
{
}

PgCoordination::~PgCoordination() = default;

coord::RangeClaim PgCoordination::held(const indexer::RangeClaim& claim) const
{
    coord::RangeClaim c;
    c.fromBlock = qint64(claim.from);
    c.toBlock = qint64(claim.to);
    c.attempts = claim.attempts;
    return c;
}

void PgCoordination::start()
{
    // A process started again is the operator's "try again": ranges that failed their
    // attempts are counted afresh (they are retried either way, never skipped).
    m_claims.retryFailed();
}

QList<indexer::RangeClaim> PgCoordination::claim(const std::optional<indexer::Checkpoint>& cp,
                                                 std::uint64_t from, std::uint64_t head,
                                                 std::uint64_t size, int depth)
{
    const std::uint64_t start = cp ? cp->startBlock : from;
    size = std::max<std::uint64_t>(1, size);
    // Ranges in hand that end past the head were taken when the chain was taller (a
    // rollback, a reorg to a shorter branch, a lagging node): given back, to be taken again
    // cut at the head. Fetched as they were, the node would answer them short.
    for (qsizetype i = m_held.size() - 1; i >= 0; --i)
        if (m_held[i].to > head) {
            m_claims.release(held(m_held[i]));
            m_held.removeAt(i);
        }
    // Far behind what is planned: the blocks up to the head are cut into ranges for every
    // writer to claim. The last stretch below the head is left to the writer that leads it.
    // Planned past the head: the chain is shorter than when it was planned, and the plan is
    // cut back to it, or every writer would wait for ranges the chain no longer has.
    const std::optional<qint64> planned = plannedTo(m_db, m_env, m_chain);
    const std::uint64_t next = planned ? std::uint64_t(*planned + 1) : start;
    if (head >= next && head - next + 1 > 2 * size)
        m_claims.plan(qint64(start), qint64(head), qint64(size));
    else if (planned && std::uint64_t(*planned) > head)
        m_claims.dropAbove(qint64(head));
    bool reopened = false;
    while (m_held.size() < depth) {
        const std::optional<coord::RangeClaim> c = m_claims.claim(qint64(head), qint64(size));
        if (c) {
            m_held.append(fromCoord(*c));
            continue;
        }
        // Nothing free. Every range done and the one right above the checkpoint stored from
        // another branch (the checkpoint, just confirmed on the node, is the chain): it goes
        // back to be fetched again, its rows (never visible) removed.
        if (reopened || !cp || !m_held.isEmpty() ||
            !reopenStaleRange(m_db, m_env, m_chain, cp->number, cp->hash))
            break;
        reopened = true;
    }
    std::sort(m_held.begin(), m_held.end(),
              [](const auto& a, const auto& b) { return a.from < b.from; });
    m_renewedAt = m_renewedAt == 0 ? nowMs() : m_renewedAt;
    return m_held;
}

bool PgCoordination::rangesOpen(std::uint64_t from)
{
    const std::optional<qint64> planned = plannedTo(m_db, m_env, m_chain);
    return planned && *planned >= qint64(from);
}

void PgCoordination::keepAlive()
{
    if (m_held.isEmpty() || nowMs() - m_renewedAt < m_lease.count() / 3)
        return;
    m_renewedAt = nowMs();
    // A range another writer took meanwhile is no longer ours to commit: its commit fails
    // (CheckpointMovedError), and it is not renewed here either.
    m_held.erase(std::remove_if(m_held.begin(), m_held.end(),
                                [this](const auto& c) { return !m_claims.renew(held(c)); }),
                 m_held.end());
}

void PgCoordination::failed(const indexer::RangeClaim& claim, const QString& error, bool)
{
    // The database counts the range's attempts (each claim is one, whoever made it).
    for (qsizetype i = 0; i < m_held.size(); ++i)
        if (m_held[i].from == claim.from) {
            m_claims.fail(held(m_held[i]), error);
            m_held.removeAt(i);
            return;
        }
}

void PgCoordination::release()
{
    for (const auto& c : std::as_const(m_held))
        m_claims.release(held(c));
    m_held.clear();
}

void PgCoordination::committed(const indexer::RangeClaim& claim)
{
    for (qsizetype i = 0; i < m_held.size(); ++i)
        if (m_held[i].from == claim.from) {
            m_held.removeAt(i);
            return;
        }
}

bool PgCoordination::holds(const indexer::RangeClaim& claim) const
{
    return std::any_of(m_held.cbegin(), m_held.cend(),
                       [&](const auto& c) { return c.from == claim.from && c.to == claim.to; });
}

bool PgCoordination::leadsHead()
{
    return m_headLock.held() ? m_headLock.stillHeld() : m_headLock.tryAcquire();
}

} // namespace forkscope::store::pg
