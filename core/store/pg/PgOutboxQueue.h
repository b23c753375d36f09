#pragma once

#include "outbox/OutboxQueue.h"

#include <QByteArray>
#include <memory>

namespace forkscope::coord {
class SessionLock;
}

namespace forkscope::store::pg {

class PgConnection;

// The outbox of one environment of a shared PostgreSQL database (outbox::OutboxQueue): stored
// rows and rows rendered from their logs (PgPendingOutbox.h), the rendered ones stored just
// before they are first handed out; only rows at or below the checkpoint are ready (the
// `outbox` view's). One writer at a time delivers: the holder of the environment's "outbox"
// session lock (coord::SessionLock), so the order a consumer sees holds and a killed
// deliverer's place passes on as soon as its session ends. Rows are marked delivered only
// after the sink confirmed them, so a holder killed in between leaves them for the next,
// which sends them again with the same keys.
class PgOutboxQueue : public outbox::OutboxQueue
{
public:
    // Its own connection, named after the writer; throws PgError.
    PgOutboxQueue(const QString& url, QString environmentId, std::uint64_t chainId,
                  const QString& owner);
    ~PgOutboxQueue() override;

    QString describe() const override;
    QString environmentId() const override { return m_environmentId; }
    bool mayDeliver() override;
    QString archivedAt() override;
    QList<outbox::OutboxRow> next(std::uint64_t safeHeight, int limit,
                                  std::optional<outbox::OutboxRow>* orphan) override;
    void markDelivered(const QList<outbox::OutboxRow>& rows) override;
    void markFailed(const outbox::OutboxRow& row, const QString& error) override;
    void markRetry(const QList<outbox::OutboxRow>& rows, const QString& error) override;
    qint64 pendingAtOrBelow(std::uint64_t safeHeight) override;

private:
    std::unique_ptr<PgConnection> m_db;
    std::unique_ptr<coord::SessionLock> m_lock;
    QString m_environmentId;
    QByteArray m_env;
    QByteArray m_chain;
};

} // namespace forkscope::store::pg
