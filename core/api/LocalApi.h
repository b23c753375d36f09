#pragma once

#include "LiveMetrics.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonValue>
#include <QString>
#include <optional>

namespace forkscope::store {
class ContractReader;
}

namespace forkscope::api {

class PrometheusText;

// The local query API (docs/api.md) and the Prometheus metrics, over a
// read-only connection of the API's own thread to either store: every read goes through
// the contract's read surface (store::ContractReader), so a SQLite file and a shared
// PostgreSQL index answer alike. Transport-free: the HTTP server hands it bodies and sends
// back what it returns.
//
// JSON-RPC 2.0 methods: getLatestBlock, getBlockByHeight(height), getBlockById(hash),
// blockIsValid(hash), getCheckpoint, getBalances(contract[, holder]), params by position or
// by name. The envelope (batches, notifications, ids, error codes) is answerJsonRpc's.
class LocalApi
{
public:
    // The largest request body the transport accepts (HTTP 413 beyond).
    static constexpr qsizetype kMaxBody = 64 * 1024;

    LocalApi(store::ContractReader& reader, QString environmentId, std::uint64_t chainId,
             QString sourceId, const LiveMetrics& live)
        : m_reader(reader), m_env(std::move(environmentId)), m_chainId(chainId),
          m_source(std::move(sourceId)), m_live(live)
    {
    }

    QByteArray metrics();
    // The reply to a request or batch body; nothing when it held only notifications.
    std::optional<QByteArray> handleJsonRpc(QByteArrayView body);

private:
    QJsonValue call(const QString& method, const QJsonValue& params);
    QJsonValue blockWhere(const QString& condition, const QVariant& value);
    // The families read from the database: reorgs by reason and depth, the outbox.
    void databaseFamilies(PrometheusText& p);
    // The counters of an indexer running in this process (none on a shared index).
    static void processFamilies(PrometheusText& p, const indexer::IndexerStatus& s,
                                const QString& indexedNode);

    store::ContractReader& m_reader;
    QString m_env;
    std::uint64_t m_chainId;
    QString m_source;
    const LiveMetrics& m_live;
};

} // namespace forkscope::api
