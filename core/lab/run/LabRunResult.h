#pragma once

#include "LabScenario.h"

#include "foreign/ForeignAuditResult.h"

#include <QByteArray>
#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QString>
#include <optional>

namespace forkscope::lab {

// One line of a lab run's timeline: what the lab did or saw, and when.
struct LabRunEvent
{
    QDateTime at;
    QString what;
};

// "HH:mm:ss.zzz  what", as the terminal shows it.
QString labRunEventLine(const LabRunEvent& e);

// One audit of the foreign indexer's table, after a step that asks for one.
struct LabRunAudit
{
    int step = 0;            // the plan's step it follows, counted from 1
    QString stepDescription; // the steps since the audit before, joined by "; "
    std::uint64_t head = 0;  // the node's head when the audit began
    // Whether the table reached the head (minus the confirmations) before the timeout: an
    // indexer that did not catch up is a finding of its own.
    bool caughtUp = false;
    // Not caught up while the node withheld logs: waiting is right then, so long as what it
    // stored is clean; the audit after the fault clears must catch up.
    bool heldBack = false;
    qint64 waitedMs = 0;
    std::optional<foreign::ForeignAuditResult> result; // none when nothing could be audited
    QString error;                                     // why, then
    bool clean() const
    {
        return (caughtUp || heldBack) && result && result->clean() && error.isEmpty();
    }
};

// What `forkscope lab run` did and found. The verdict passes only when every audit is clean.
struct LabRunResult
{
    QString scenario;
    quint32 seed = 0;
    QString indexerCommand;
    QString node;     // what the indexer was given (the fault proxy)
    QString database; // where it stored (password removed)
    QString query;    // the audit query
    QList<LabRunEvent> timeline;
    QList<LabRunAudit> audits;
    QString aborted; // the run could not go on (the indexer died, the node failed), why

    bool passed() const;
    // One line, e.g. "verdict: FAIL (2 of 7 audits found something)".
    QString verdictLine() const;
};

// As JSON (docs/lab-run.md describes the fields) and as JUnit XML, one testcase per audit.
QByteArray labRunJson(const LabRunResult& r);
QByteArray labRunJunit(const LabRunResult& r);
// The text a terminal shows: the timeline (unless it was shown live), one line per audit
// with its first findings, and the verdict.
QString labRunText(const LabRunResult& r, bool withTimeline = true);

} // namespace forkscope::lab

Q_DECLARE_METATYPE(forkscope::lab::LabRunResult)
