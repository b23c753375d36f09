#include "PgCommittedDeltas.h"

namespace forkscope::store::pg {

void PgCommittedDeltas::remember(BatchBalances batch, QByteArray lastXmin)
{
    if (batch.last < batch.first)
        return;
    // A batch over blocks already remembered replaces what overlaps it: only the newest
    // commit of a block can still stand.
    for (auto it = m_batches.begin(); it != m_batches.end();) {
        const BatchBalances& b = it->second.balances;
        if (b.first <= batch.last && b.last >= batch.first)
            forget(it++);
        else
            ++it;
    }
    batch.deltas.compact();
    const qint64 first = batch.first;
    m_holders += batch.deltas.size();
    m_batches[first] = Batch{std::move(batch), std::move(lastXmin)};
    while (m_holders > m_maxHolders && !m_batches.empty())
        forget(m_batches.begin());
}

void PgCommittedDeltas::forget(std::map<qint64, Batch>::iterator at)
{
    m_holders -= at->second.balances.deltas.size();
    m_batches.erase(at);
}

PgCommittedDeltas::Taken PgCommittedDeltas::take(qint64 above, qint64 upTo)
{
    Taken taken;
    QList<const BatchBalances*> spans;
    std::vector<std::map<qint64, Batch>::iterator> used;
    for (auto it = m_batches.begin(); it != m_batches.end(); ++it) {
        const BatchBalances& b = it->second.balances;
        if (b.first <= above || b.last > upTo)
            continue;
        spans.append(&b);
        taken.checks.blocks.append(b.last);
        taken.checks.xmins.append(it->second.lastXmin);
        used.push_back(it);
    }
    taken.parts = foldParts(above, upTo, spans);
    for (auto it : used)
        forget(it);
    forgetThrough(above);
    return taken;
}

void PgCommittedDeltas::forgetThrough(qint64 block)
{
    while (!m_batches.empty() && m_batches.begin()->second.balances.first <= block)
        forget(m_batches.begin());
}

} // namespace forkscope::store::pg
