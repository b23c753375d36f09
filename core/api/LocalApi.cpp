#include "LocalApi.h"
#include "JsonRpcEnvelope.h"
#include "JsonRpcParams.h"
#include "PrometheusText.h"
#include "chain/Address.h"
#include "chain/ChainParseError.h"
#include "chain/Hash32.h"
#include "chain/Hex.h"
#include "outbox/OutboxDispatcher.h"
#include "store/Database.h"
#include "store/ReorgEventStore.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QSqlQuery>

namespace forkscope::api {

namespace {
std::uint64_t heightParam(const QJsonValue& v)
{
    if (v.isDouble()) {
        const double d = v.toDouble();
        if (d < 0 || d != std::floor(d) || d > 9e15)
            throw JsonRpcError{
                jsonrpc::kInvalidParams,
                QStringLiteral("height must be a whole number >= 0 or a 0x-hex quantity")};
        return std::uint64_t(d);
    }
    try {
        return chain::hex::parseQuantityU63(v, QStringLiteral("height"));
    } catch (const chain::ChainParseError& e) {
        throw JsonRpcError{jsonrpc::kInvalidParams, e.message()};
    }
}

template <typename T> T fixedParam(const QJsonValue& v, const char* name)
{
    try {
        return T::fromJson(v, QString::fromLatin1(name));
    } catch (const chain::ChainParseError& e) {
        throw JsonRpcError{jsonrpc::kInvalidParams, e.message()};
    }
}
} // namespace

QJsonValue LocalApi::blockWhere(const QString& condition, const QVariant& value)
{
    QSqlQuery q =
        m_db.run(QStringLiteral("SELECT block_number, block_hash, parent_hash, block_timestamp "
                                "FROM blocks WHERE environment_id = ? AND chain_id = ? AND ") +
                     condition,
                 {m_env, qint64(m_chainId), value});
    if (!q.next())
        return QJsonValue::Null;
    return QJsonObject{{QStringLiteral("number"), q.value(0).toLongLong()},
                       {QStringLiteral("hash"), q.value(1).toString()},
                       {QStringLiteral("parentHash"), q.value(2).toString()},
                       {QStringLiteral("timestamp"), q.value(3).toLongLong()}};
}

QJsonValue LocalApi::call(const QString& method, const QJsonValue& params)
{
    // Each method binds its params (by position or by name) before it reads anything.
    const auto bind = [&](const QStringList& names, qsizetype required) {
        return JsonRpcParams(method, params, names, required);
    };
    if (method == QLatin1String("getLatestBlock")) {
        bind({}, 0);
        QSqlQuery q =
            m_db.run(QStringLiteral("SELECT block_number FROM indexer_checkpoints WHERE "
                                    "environment_id = ? AND chain_id = ? AND source_id = ?"),
                     {m_env, qint64(m_chainId), m_source});
        if (!q.next())
            return QJsonValue::Null;
        return blockWhere(QStringLiteral("block_number = ?"), q.value(0));
    }
    if (method == QLatin1String("getBlockByHeight"))
        return blockWhere(QStringLiteral("block_number = ?"),
                          qint64(heightParam(bind({QStringLiteral("height")}, 1).at(0))));
    if (method == QLatin1String("getBlockById"))
        return blockWhere(
            QStringLiteral("block_hash = ?"),
            fixedParam<chain::Hash32>(bind({QStringLiteral("hash")}, 1).at(0), "hash").toHex());
    if (method == QLatin1String("blockIsValid"))
        return !blockWhere(
                    QStringLiteral("block_hash = ?"),
                    fixedParam<chain::Hash32>(bind({QStringLiteral("hash")}, 1).at(0), "hash")
                        .toHex())
                    .isNull();
    if (method == QLatin1String("getCheckpoint")) {
        bind({}, 0);
        QSqlQuery q =
            m_db.run(QStringLiteral("SELECT block_number, block_hash, start_block, policy_version, "
                                    "generation, updated_at, verified_at FROM indexer_checkpoints "
                                    "WHERE environment_id = ? AND chain_id = ? AND source_id = ?"),
                     {m_env, qint64(m_chainId), m_source});
        if (!q.next())
            return QJsonValue::Null;
        return QJsonObject{{QStringLiteral("environmentId"), m_env},
                           {QStringLiteral("chainId"), qint64(m_chainId)},
                           {QStringLiteral("sourceId"), m_source},
                           {QStringLiteral("number"), q.value(0).toLongLong()},
                           {QStringLiteral("hash"), q.value(1).toString()},
                           {QStringLiteral("startBlock"), q.value(2).toLongLong()},
                           {QStringLiteral("policyVersion"), q.value(3).toString()},
                           {QStringLiteral("generation"), q.value(4).toInt()},
                           {QStringLiteral("updatedAt"), q.value(5).toString()},
                           {QStringLiteral("verifiedAt"), q.value(6).toString()}};
    }
    if (method == QLatin1String("getBalances")) {
        const JsonRpcParams p = bind({QStringLiteral("contract"), QStringLiteral("holder")}, 1);
        const QString contract = fixedParam<chain::Address>(p.at(0), "contract").toHex();
        const QJsonValue holderParam = p.at(1);
        if (!holderParam.isUndefined() && !holderParam.isNull()) {
            const QString holder = fixedParam<chain::Address>(holderParam, "holder").toHex();
            QSqlQuery q =
                m_db.run(QStringLiteral(
                             "SELECT balance, updated_at_block FROM token_balances WHERE "
                             "environment_id = ? AND chain_id = ? AND contract = ? AND holder = ?"),
                         {m_env, qint64(m_chainId), contract, holder});
            return QJsonObject{
                {QStringLiteral("contract"), contract},
                {QStringLiteral("holder"), holder},
                {QStringLiteral("balance"), q.next() ? q.value(0).toString() : QStringLiteral("0")},
                {QStringLiteral("updatedAtBlock"),
                 q.isValid() ? QJsonValue(q.value(1).toLongLong()) : QJsonValue::Null}};
        }
        QSqlQuery q = m_db.run(
            QStringLiteral("SELECT holder, balance FROM token_balances WHERE environment_id = ? "
                           "AND chain_id = ? AND contract = ? ORDER BY holder LIMIT 1000"),
            {m_env, qint64(m_chainId), contract});
        QJsonArray out;
        while (q.next())
            out.append(QJsonObject{{QStringLiteral("holder"), q.value(0).toString()},
                                   {QStringLiteral("balance"), q.value(1).toString()}});
        return out;
    }
    throw JsonRpcError{jsonrpc::kMethodNotFound,
                       QStringLiteral("method \"%1\" does not exist").arg(method.left(60))};
}

std::optional<QByteArray> LocalApi::handleJsonRpc(QByteArrayView body)
{
    return answerJsonRpc(body, [this](const QString& method, const QJsonValue& params) {
        return call(method, params);
    });
}

QByteArray LocalApi::metrics()
{
    PrometheusText p;
    const indexer::IndexerStatus s = m_live.indexer();
    const health::HealthSnapshot h = m_live.health();
    const QVariantList scope{m_env, qint64(m_chainId)};
    p.gauge(QStringLiteral("forkscope_head_block"),
            QStringLiteral("Head block reported by the node."), double(s.head.value_or(0)));
    p.gauge(QStringLiteral("forkscope_checkpoint_block"),
            QStringLiteral("Last block committed with the checkpoint."),
            double(s.checkpoint.value_or(0)));
    p.gauge(QStringLiteral("forkscope_cursor_lag_blocks"),
            QStringLiteral(
                "Blocks between the head and the checkpoint (-1 while the node is unreachable)."),
            s.lag() ? double(*s.lag()) : -1.0);
    store::ReorgEventStore reorgStore(m_db);
    const QHash<QString, qint64> byReason = reorgStore.countByReason(m_env, m_chainId);
    // Every reason is always exported, at 0 until it happens, so rates work from the start.
    QList<QPair<PrometheusText::Labels, double>> reorgs;
    for (const QString& reason : {QStringLiteral("hash mismatch"),
                                  QStringLiteral("parent mismatch"), QStringLiteral("absence")})
        reorgs.append({{{QStringLiteral("reason"), reason}}, double(byReason.value(reason, 0))});
    p.family(QStringLiteral("forkscope_reorgs_total"), QStringLiteral("counter"),
             QStringLiteral("Rollbacks committed, by what detected them."), reorgs);
    QList<double> depths;
    for (const qint64 d : reorgStore.depths(m_env, m_chainId))
        depths << double(d);
    p.histogram(QStringLiteral("forkscope_reorg_depth"),
                QStringLiteral("Depth of each rollback, in blocks."), {1, 2, 4, 8, 16, 32, 64},
                depths);
    const outbox::OutboxCounts outboxRows = outbox::countRows(m_db, m_env, m_chainId);
    p.gauge(QStringLiteral("forkscope_outbox_pending"),
            QStringLiteral("Outbox rows not delivered yet."), double(outboxRows.pending));
    p.counter(QStringLiteral("forkscope_outbox_delivered_total"),
              QStringLiteral("Outbox rows delivered."), double(outboxRows.delivered));
    p.gauge(QStringLiteral("forkscope_outbox_failed"),
            QStringLiteral("Outbox rows the sink refused for good."), double(outboxRows.failed));
    QList<QPair<PrometheusText::Labels, double>> nodes;
    for (const auto& n : h.nodes)
        nodes.append({{{QStringLiteral("node"), n.url}}, double(int(n.state))});
    p.family(QStringLiteral("forkscope_node_state"), QStringLiteral("gauge"),
             QStringLiteral("Node state: 1 caught up, 2 lagging, 3 offline, 4 forked, 5 "
                            "dropping logs."),
             nodes);
    p.gauge(
        QStringLiteral("forkscope_ready_height"),
        QStringLiteral("Highest height reported by at least ready_ratio of the nodes (-1: none)."),
        h.readyHeight ? double(*h.readyHeight) : -1.0);
    p.counter(QStringLiteral("forkscope_truncation_halvings_total"),
              QStringLiteral("eth_getLogs ranges halved because of a result cap."),
              double(s.truncationHalvings));
    p.counter(QStringLiteral("forkscope_absence_suspicions_total"),
              QStringLiteral(
                  "Stored logs the node no longer returned (cross-checked before any deletion)."),
              double(s.absenceSuspicions));
    p.counter(QStringLiteral("forkscope_logs_committed_total"),
              QStringLiteral("Logs committed by this process."), double(s.logsCommitted));
    p.counter(QStringLiteral("forkscope_fetch_failures_total"),
              QStringLiteral("Range fetches that failed and were retried."),
              double(s.fetchFailures));
    p.counter(QStringLiteral("forkscope_rpc_timeouts_total"),
              QStringLiteral("The indexer's requests to its node that hit their deadline."),
              double(s.timeouts));
    p.counter(QStringLiteral("forkscope_node_inconsistencies_total"),
              QStringLiteral("Rounds the indexed node answered off-request or contradicted "
                             "itself (nothing committed)."),
              double(s.inconsistencies));
    const wire::CompletenessStats& c = s.completeness;
    p.family(QStringLiteral("forkscope_completeness_checks_total"), QStringLiteral("counter"),
             QStringLiteral("Completeness proofs run: block blooms tested, last blocks "
                            "recounted by hash, blocks proven against their receipts root."),
             {{{{QStringLiteral("check"), QStringLiteral("bloom")}}, double(c.bloomChecks)},
              {{{QStringLiteral("check"), QStringLiteral("recount")}}, double(c.recounts)},
              {{{QStringLiteral("check"), QStringLiteral("receipts")}}, double(c.receiptProofs)}});
    const QString indexed = m_live.indexedNode();
    p.family(
        QStringLiteral("forkscope_truncations_detected_total"), QStringLiteral("counter"),
        QStringLiteral("Results a provider truncated or dropped logs from, found by the "
                       "completeness proofs and fetched again."),
        {{{{QStringLiteral("node"), indexed}, {QStringLiteral("kind"), QStringLiteral("bloom")}},
          double(c.bloomTruncations)},
         {{{QStringLiteral("node"), indexed}, {QStringLiteral("kind"), QStringLiteral("recount")}},
          double(c.recountTruncations)},
         {{{QStringLiteral("node"), indexed}, {QStringLiteral("kind"), QStringLiteral("receipts")}},
          double(c.receiptTruncations)}});
    p.counter(QStringLiteral("forkscope_bloom_false_positives_total"),
              QStringLiteral("Blocks whose bloom admitted a contract that had no log there."),
              double(c.falsePositives));
    QList<QPair<PrometheusText::Labels, double>> timeouts;
    for (const auto& n : h.nodes)
        timeouts.append({{{QStringLiteral("node"), n.url}}, double(n.timeouts)});
    p.family(QStringLiteral("forkscope_node_timeouts_total"), QStringLiteral("counter"),
             QStringLiteral("Health polls of each node that hit their deadline."), timeouts);
    return p.text();
}

} // namespace forkscope::api
