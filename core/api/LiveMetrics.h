#pragma once

#include "health/NodeHealthMonitor.h"
#include "indexer/IndexerStatus.h"

#include <QMutex>
#include <optional>

namespace forkscope::api {

// The latest in-memory figures the API reports (the rest comes from the database). The
// indexer loop and the health monitor write, the API thread reads; both under the mutex,
// as whole copies.
class LiveMetrics
{
public:
    void setIndexer(const indexer::IndexerStatus& s)
    {
        QMutexLocker lock(&m_mutex);
        m_indexer = s;
    }
    void setHealth(const health::HealthSnapshot& h)
    {
        QMutexLocker lock(&m_mutex);
        m_health = h;
    }
    // The node the indexer reads (the `node` label of its truncation counters).
    void setIndexedNode(const QString& url)
    {
        QMutexLocker lock(&m_mutex);
        m_indexedNode = url;
    }
    QString indexedNode() const
    {
        QMutexLocker lock(&m_mutex);
        return m_indexedNode;
    }
    // Null until an indexer in this process reports: always, for a process of a shared
    // index, whose backfill and follower keep no such status (the API then takes the head
    // from node health and the checkpoint from the database, and exports no per-process
    // counters rather than zeros).
    std::optional<indexer::IndexerStatus> indexer() const
    {
        QMutexLocker lock(&m_mutex);
        return m_indexer;
    }
    health::HealthSnapshot health() const
    {
        QMutexLocker lock(&m_mutex);
        return m_health;
    }

private:
    mutable QMutex m_mutex;
    std::optional<indexer::IndexerStatus> m_indexer;
    health::HealthSnapshot m_health;
    QString m_indexedNode;
};

} // namespace forkscope::api
