#pragma once

#include "indexer/IndexerStatus.h"

#include <QElapsedTimer>
#include <QString>
#include <chrono>
#include <optional>

namespace forkscope::app {

// How long `index --exit-when-synced` waits on a node in trouble (unreachable, inconsistent
// or behind the checkpoint) before it gives up with exit 1. A batch job must end: retrying a
// dead or lying node for ever would hang the script that asked to catch up now. The clock
// runs from the first trouble seen since the checkpoint last moved (or the run was synced),
// so a node that flaps between trouble and a failing fetch does not reset it.
class TroubleDeadline
{
public:
    // 0: wait for ever (the behaviour without --exit-when-synced).
    explicit TroubleDeadline(std::chrono::milliseconds limit) : m_limit(limit) {}

    // The one line to exit with once the trouble has lasted `limit`; nullopt meanwhile.
    std::optional<QString> observe(const indexer::IndexerStatus& s);

    static bool isTrouble(indexer::IndexerStatus::State state);

private:
    std::chrono::milliseconds m_limit;
    QElapsedTimer m_since; // invalid: no trouble since the last progress
    std::optional<std::uint64_t> m_checkpoint;
    QString m_lastTrouble;
};

} // namespace forkscope::app
