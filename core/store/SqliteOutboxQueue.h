#pragma once

#include "outbox/OutboxQueue.h"

#include <QString>
#include <memory>

namespace forkscope::store {

class Database;

// The outbox of one environment in a SQLite file (outbox::OutboxQueue): stored rows and
// rows rendered from their logs (store/PendingOutboxContract.h), the rendered ones stored
// just before they are first handed out, so every row a sink receives has an id.
class SqliteOutboxQueue : public outbox::OutboxQueue
{
public:
    // Opens its own connection to `path` (delivery has a thread and a connection of its
    // own); throws StoreError.
    SqliteOutboxQueue(const QString& path, QString environmentId, std::uint64_t chainId);
    // On a connection the caller keeps.
    SqliteOutboxQueue(Database& db, QString environmentId, std::uint64_t chainId);
    ~SqliteOutboxQueue() override;

    QString describe() const override;
    QString environmentId() const override { return m_env; }
    bool mayDeliver() override { return true; }
    QString archivedAt() override;
    QList<outbox::OutboxRow> next(std::uint64_t safeHeight, int limit,
                                  std::optional<outbox::OutboxRow>* orphan) override;
    void markDelivered(const QList<outbox::OutboxRow>& rows) override;
    void markFailed(const outbox::OutboxRow& row, const QString& error) override;
    void markRetry(const QList<outbox::OutboxRow>& rows, const QString& error) override;
    qint64 pendingAtOrBelow(std::uint64_t safeHeight) override;

private:
    std::unique_ptr<Database> m_owned;
    Database& m_db;
    QString m_env;
    std::uint64_t m_chainId;
};

} // namespace forkscope::store
