#pragma once

#include <QHash>
#include <QList>
#include <QString>
#include <optional>

namespace forkscope::store {

class Database;

// One committed rollback as reorg_events stores it.
struct ReorgEventRow
{
    qint64 id = 0;
    QString sourceId;
    QString detectedAt; // ISO 8601 UTC, as stored
    qint64 oldBlockNumber = 0;
    QString oldBlockHash;
    qint64 forkBlockNumber = 0;
    QString forkBlockHash;
    qint64 depth = 0;
    QString reason;
    qint64 rowsRemoved = 0;
    qint64 deliveredOutboxRows = 0;
};

// One row of what a rollback undid (reorg_diff_items).
struct ReorgDiffRow
{
    QString kind;
    std::optional<qint64> blockNumber;
    std::optional<qint64> logIndex;
    QString txHash, contract, holder, fromAddr, toAddr, value, beforeValue, afterValue, eventKey;
};

// Every read of reorg_events and reorg_diff_items goes through here (the writer is
// indexer::ReorgRollback, inside the rollback's own transaction). Reads are scoped by
// environment: an id alone never reaches another environment's history.
class ReorgEventStore
{
public:
    explicit ReorgEventStore(Database& db) : m_db(db) {}

    // Oldest first; with `limit` > 0, the newest `limit` of them.
    QList<ReorgEventRow> list(const QString& environmentId, quint64 chainId, int limit = 0);
    std::optional<ReorgEventRow> find(const QString& environmentId, qint64 id);
    // In (kind, block, log index) order, or in insertion order with `insertionOrder`.
    QList<ReorgDiffRow> diffItems(const QString& environmentId, qint64 reorgId, int limit,
                                  bool insertionOrder = false);
    // A Transfer as "tx|contract|from|to|value": how a rollback's removed Transfers are
    // matched against those stored now to say whether the re-indexed chain has them again.
    static QString transferKey(const QString& txHash, const QString& contract, const QString& from,
                               const QString& to, const QString& value);
    // reorg id -> kind -> rows, for every reorg of the environment.
    QHash<qint64, QHash<QString, qint64>> diffCounts(const QString& environmentId, quint64 chainId);
    QHash<QString, qint64> countByReason(const QString& environmentId, quint64 chainId);
    QList<qint64> depths(const QString& environmentId, quint64 chainId);

private:
    Database& m_db;
};

} // namespace forkscope::store
