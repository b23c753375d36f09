#pragma once

#include <QMetaType>
#include <QString>
#include <cstdint>

// One completeness alert as a value: part of the engine API the window links
// (CompletenessAlerts.h reads and writes the table).
namespace forkscope::indexer {

// A range of blocks the indexer could not prove complete: which node, where, and what it
// found missing. Open until a repair fetched the range again.
struct CompletenessAlert
{
    qint64 id = 0;
    QString detectedAt;
    QString node;
    std::uint64_t fromBlock = 0;
    std::uint64_t toBlock = 0;
    QString what;
    // "fetch": indexing stopped at a range it could not get whole (nothing committed there);
    // "audit": a check found a hole in data already committed;
    // "absence": the node no longer returns stored logs whose headers still match
    // (AbsenceAlertPlan.h).
    QString kind = QStringLiteral("fetch");
    QString resolvedAt; // empty while open
    QString resolution;

    // One line for banners, status bars and reports.
    QString summary() const;
};

} // namespace forkscope::indexer

Q_DECLARE_METATYPE(forkscope::indexer::CompletenessAlert)
