#pragma once

#include "CompletenessAlert.h"

#include <QList>
#include <QString>
#include <cstdint>
#include <utility>

namespace forkscope::indexer {

// What the head's absence check (AbsenceCheck.h) does to the environment's open "absence"
// alerts. Stored logs the node stops returning while every header still matches are not
// deleted (absence alone is weak evidence), but they are not green either: either the
// provider truncates, or the stored rows are not the chain's. A suspicion said once on a
// log line and then cleared by the next "synced" would let the app show green over data
// nobody can vouch for, so it is kept as an alert until the node returns the logs again,
// a rollback or a repair replaces the blocks, or a user checks them.
struct AbsenceAlertPlan
{
    // The absent blocks no open alert covers, sorted: recorded as one new alert over their
    // first..last block. Empty: nothing to record.
    QList<std::uint64_t> record;
    // Open absence alerts the check looked at again in full and found whole: the node
    // returns every stored log of their blocks.
    QList<qint64> resolve;
};

// `window`: the blocks the check fetched again; `absentBlocks`: the blocks with a stored
// log the node did not return (empty: all there), sorted; `open`: the open alerts of any
// kind (only kind "absence" is looked at).
AbsenceAlertPlan planAbsenceAlerts(std::pair<std::uint64_t, std::uint64_t> window,
                                   const QList<std::uint64_t>& absentBlocks,
                                   const QList<CompletenessAlert>& open);

// The alert's text: what the node did, what was (not) done, and how to settle it.
QString absenceAlertText(const QList<std::uint64_t>& absentBlocks);

// How an absence alert was settled, the same on both stores: the check found the logs
// again, or rollback `reorgId` removed the blocks (which are then indexed again).
QString absenceLogsReturnedResolution();
QString absenceRolledBackResolution(qint64 reorgId);

} // namespace forkscope::indexer
