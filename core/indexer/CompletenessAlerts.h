#pragma once

#include "CompletenessAlert.h"

#include <QList>
#include <QString>
#include <cstdint>

namespace forkscope::store {
class ContractReader;
class Database;
} // namespace forkscope::store

namespace forkscope::indexer {

// The open alerts of an environment as a reader of the contract sees them (either store), in
// block order.
QList<CompletenessAlert> openAlerts(store::ContractReader& reader, const QString& environmentId,
                                    std::uint64_t chainId);

// completeness_alerts of one environment. An alert outlives the run that raised it: the
// app and the report keep saying "data incomplete" until it is resolved, never green over
// a gap somebody saw.
class CompletenessAlerts
{
public:
    CompletenessAlerts(store::Database& db, QString environmentId, std::uint64_t chainId)
        : m_db(db), m_env(std::move(environmentId)), m_chainId(chainId)
    {
    }

    // In its own transaction (or the caller's, if one is open). Returns the new id.
    qint64 record(const QString& node, std::uint64_t fromBlock, std::uint64_t toBlock,
                  const QString& what, const QString& kind = QStringLiteral("fetch"));
    QList<CompletenessAlert> open();
    // Resolves every open alert at or above `fromBlock` (a repair that re-fetched from
    // there). Must run inside the repair's transaction. Returns how many it resolved.
    int resolveFrom(std::uint64_t fromBlock, const QString& resolution);
    // Resolves the open "fetch" alerts whose whole range is at or below `checkpoint`: the
    // indexer has since committed those blocks, every completeness check passed. Must run
    // inside that commit's transaction.
    int resolveCommitted(std::uint64_t checkpoint);
    // Resolves the open alerts `ids` (AbsenceAlertPlan::resolve), in the caller's
    // transaction if one is open.
    int resolve(const QList<qint64>& ids, const QString& resolution);
    // Resolves the open "absence" alerts wholly above `above`: a rollback removed their
    // blocks, which are indexed again from the node. Inside the rollback's transaction.
    int resolveAbsenceAbove(qint64 above, const QString& resolution);

private:
    store::Database& m_db;
    QString m_env;
    std::uint64_t m_chainId;
};

} // namespace forkscope::indexer
