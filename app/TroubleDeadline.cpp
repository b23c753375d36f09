#include "TroubleDeadline.h"

namespace forkscope::app {

bool TroubleDeadline::isTrouble(indexer::IndexerStatus::State state)
{
    using State = indexer::IndexerStatus::State;
    return state == State::NodeUnreachable || state == State::NodeInconsistent ||
           state == State::NodeBehind;
}

std::optional<QString> TroubleDeadline::observe(const indexer::IndexerStatus& s)
{
    const bool moved = s.checkpoint && (!m_checkpoint || *s.checkpoint > *m_checkpoint);
    if (s.checkpoint)
        m_checkpoint = s.checkpoint;
    if (moved || s.state == indexer::IndexerStatus::State::Synced) {
        m_since.invalidate();
        return std::nullopt;
    }
    if (!isTrouble(s.state))
        return std::nullopt;
    m_lastTrouble = indexer::IndexerStatus::stateName(s.state) +
                    (s.message.isEmpty() ? QString() : QStringLiteral(": ") + s.message);
    if (!m_since.isValid())
        m_since.start();
    if (m_limit.count() == 0 || m_since.elapsed() < m_limit.count())
        return std::nullopt;
    return QStringLiteral("gave up after %1 s without progress (--give-up-after-ms %2): %3. The "
                          "checkpoint stays at %4; fix or replace the node and run again")
        .arg(m_since.elapsed() / 1000)
        .arg(m_limit.count())
        .arg(m_lastTrouble, m_checkpoint ? QString::number(*m_checkpoint) : QStringLiteral("none"));
}

} // namespace forkscope::app
