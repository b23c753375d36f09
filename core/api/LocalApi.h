#pragma once

#include "LiveMetrics.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonValue>
#include <QString>
#include <optional>

namespace forkscope::store {
class Database;
}

namespace forkscope::api {

// The local query API (seed 004's JSON-RPC methods) and the Prometheus metrics, over a
// read-only connection of the API's own thread. Transport-free: the HTTP server hands it
// bodies and sends back what it returns.
//
// JSON-RPC 2.0 methods: getLatestBlock, getBlockByHeight(height), getBlockById(hash),
// blockIsValid(hash), getCheckpoint, getBalances(contract[, holder]), params by position or
// by name. The envelope (batches, notifications, ids, error codes) is answerJsonRpc's.
class LocalApi
{
public:
    // The largest request body the transport accepts (HTTP 413 beyond).
    static constexpr qsizetype kMaxBody = 64 * 1024;

    LocalApi(store::Database& db, QString environmentId, std::uint64_t chainId, QString sourceId,
             const LiveMetrics& live)
        : m_db(db), m_env(std::move(environmentId)), m_chainId(chainId),
          m_source(std::move(sourceId)), m_live(live)
    {
    }

    QByteArray metrics();
    // The reply to a request or batch body; nothing when it held only notifications.
    std::optional<QByteArray> handleJsonRpc(QByteArrayView body);

private:
    QJsonValue call(const QString& method, const QJsonValue& params);
    QJsonValue blockWhere(const QString& condition, const QVariant& value);

    store::Database& m_db;
    QString m_env;
    std::uint64_t m_chainId;
    QString m_source;
    const LiveMetrics& m_live;
};

} // namespace forkscope::api
