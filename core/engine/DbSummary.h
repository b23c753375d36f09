#pragma once

#include "EngineStatus.h"

#include <QDateTime>
#include <QList>
#include <QMetaType>
#include <QString>
#include <optional>

namespace forkscope::engine {

// What the database holds for the live environment, read on the ReadService's read-only
// connection about once a second (committed rows only) and handed over as a value.
struct DbSummary
{
    QString environmentId;
    quint64 chainId = 0;
    int schemaVersion = 0;
    QList<ReorgMark> recentReorgs; // the last 200, oldest first
    QList<indexer::CompletenessAlert> openAlerts;
    QString checkpointHash;
    QString policyVersion;
    int generation = 0;
    QString verifiedAt;
    std::optional<quint64> checkpoint;
    qint64 outboxPending = 0;
    qint64 outboxDelivered = 0;
    qint64 outboxFailed = 0;
    double outboxDeliveredPerSecond = 0;
    std::optional<double> outboxOldestPendingAgeSecs; // by the pending row's block time
    QList<EngineStatus::EnvironmentEntry> environments;
    QDateTime readAt;
};

} // namespace forkscope::engine

Q_DECLARE_METATYPE(forkscope::engine::DbSummary)
