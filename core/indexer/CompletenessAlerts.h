#pragma once

#include <QList>
#include <QMetaType>
#include <QString>
#include <cstdint>

namespace forkscope::store {
class Database;
}

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
    // "audit": a check found a hole in data already committed.
    QString kind = QStringLiteral("fetch");
    QString resolvedAt; // empty while open
    QString resolution;

    // One line for banners, status bars and reports.
    QString summary() const;
};

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

private:
    store::Database& m_db;
    QString m_env;
    std::uint64_t m_chainId;
};

} // namespace forkscope::indexer

Q_DECLARE_METATYPE(forkscope::indexer::CompletenessAlert)
