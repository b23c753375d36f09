#include "SingleWriter.h"
#include "indexer/BackfillLedger.h"

#include <algorithm>

namespace forkscope::store {

void SingleWriter::start()
{
    m_ledger.resetRunning();
}

QList<indexer::RangeClaim> SingleWriter::claim(const std::optional<indexer::Checkpoint>&,
                                               std::uint64_t from, std::uint64_t head,
                                               std::uint64_t size, int depth)
{
    QList<indexer::RangeClaim> out;
    for (std::uint64_t next = from; out.size() < depth && next <= head;) {
        const std::uint64_t to = std::min(head, next + std::max<std::uint64_t>(1, size) - 1);
        out.append(indexer::RangeClaim{next, to, 1, {}, false});
        next = to + 1;
    }
    // The range about to be committed is shown running; the ones behind it are planned
    // again every round (the checkpoint decides where they start).
    if (!out.isEmpty() && m_marked != out.first().from + 1) {
        m_ledger.markRunning({{out.first().from, out.first().to}});
        m_marked = out.first().from + 1;
    }
    return out;
}

void SingleWriter::failed(const indexer::RangeClaim& claim, const QString& error, bool givenUp)
{
    m_marked = 0;
    m_ledger.markFailure(claim.from, claim.to, claim.attempts, error, givenUp);
}

} // namespace forkscope::store
