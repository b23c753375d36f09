#pragma once

#include "LabRunResult.h"

#include <QMetaType>
#include <optional>

namespace forkscope::lab {

// Where a lab run stands, handed out as it goes (LabRun::Options::onProgress): a line of
// the timeline when something happened, and the counts a progress view shows.
struct LabRunProgress
{
    std::optional<LabRunEvent> event; // a new timeline line; none for a catch-up poll
    int step = 0;                     // the plan's step played or waited on, from 1; 0: set-up
    int steps = 0;                    // in the plan
    bool waiting = false;             // waiting for the indexer to catch up after `step`
    // While waiting: the table's highest block (none yet) and the block it must reach.
    std::optional<quint64> indexerBlock;
    quint64 targetBlock = 0;
    int audits = 0;      // done so far
    int cleanAudits = 0; // of them
    qint64 findings = 0; // found by the audits so far
};

} // namespace forkscope::lab

Q_DECLARE_METATYPE(forkscope::lab::LabRunProgress)
