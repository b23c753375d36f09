#pragma once

#include "indexer/CompletenessAlert.h"

#include <QList>
#include <QString>
#include <cstdint>

namespace forkscope::store::pg {
class PgConnection;
}

namespace forkscope::coord {

// The completeness alerts of a shared index, as a file keeps them in completeness_alerts:
// its failed backfill ranges (FailedRanges.h) and the absence suspicions its head follower
// records (indexer/AbsenceAlertPlan.h), which live in completeness_alerts here too. Every
// reader that shows a shared index (the app's summary, the report, verify) takes them from
// openAlerts(), so none is green over either.
QList<indexer::CompletenessAlert> openAlerts(store::pg::PgConnection& db,
                                             const QString& environmentId, quint64 chainId,
                                             const QString& node);

// The open rows of completeness_alerts alone (kind "absence").
QList<indexer::CompletenessAlert> openRecordedAlerts(store::pg::PgConnection& db,
                                                     const QString& environmentId, quint64 chainId);

// Each in its own statement (autocommit) or the caller's transaction.
void recordAlert(store::pg::PgConnection& db, const QString& environmentId, quint64 chainId,
                 const QString& node, std::uint64_t fromBlock, std::uint64_t toBlock,
                 const QString& what, const QString& kind);
void resolveAlerts(store::pg::PgConnection& db, const QString& environmentId, quint64 chainId,
                   const QList<qint64>& ids, const QString& resolution);
// The open "absence" alerts wholly above `above`, whose blocks a rollback removed.
void resolveAbsenceAbove(store::pg::PgConnection& db, const QString& environmentId, quint64 chainId,
                         qint64 above, const QString& resolution);

} // namespace forkscope::coord
