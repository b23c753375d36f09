#include "LocalApi.h"
#include "JsonRpcEnvelope.h"
#include "JsonRpcParams.h"
#include "PrometheusText.h"
#include "chain/Address.h"
#include "chain/ChainParseError.h"
#include "chain/Hash32.h"
#include "chain/Hex.h"
#include "indexer/ReorgReason.h"
#include "store/ContractReader.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QUrl>

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
    const auto q = m_reader.query(
        QStringLiteral("SELECT block_number, block_hash, parent_hash, block_timestamp "
                       "FROM blocks WHERE environment_id = ? AND chain_id = ? AND ") +
            condition,
        {m_env, qint64(m_chainId), value});
    if (!q->next())
        return QJsonValue::Null;
    return QJsonObject{{QStringLiteral("number"), q->value(0).toLongLong()},
                       {QStringLiteral("hash"), q->value(1).toString()},
                       {QStringLiteral("parentHash"), q->value(2).toString()},
                       {QStringLiteral("timestamp"), q->value(3).toLongLong()}};
}

QJsonValue LocalApi::call(const QString& method, const QJsonValue& params)
{
    // Each method binds its params (by position or by name) before it reads anything.
    const auto bind = [&](const QStringList& names, qsizetype required) {
        return JsonRpcParams(method, params, names, required);
    };
    if (method == QLatin1String("getLatestBlock")) {
        bind({}, 0);
        const auto cp = m_reader.checkpoint(m_env, qint64(m_chainId), m_source);
        if (!cp)
            return QJsonValue::Null;
        return blockWhere(QStringLiteral("block_number = ?"), cp->number);
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
        const auto cp = m_reader.checkpoint(m_env, qint64(m_chainId), m_source);
        if (!cp)
            return QJsonValue::Null;
        return QJsonObject{{QStringLiteral("environmentId"), m_env},
                           {QStringLiteral("chainId"), qint64(m_chainId)},
                           {QStringLiteral("sourceId"), m_source},
                           {QStringLiteral("number"), cp->number},
                           {QStringLiteral("hash"), cp->hash},
                           {QStringLiteral("startBlock"), cp->startBlock},
                           // null on a shared index, which records no policy of its own
                           {QStringLiteral("policyVersion"), cp->policyVersion.isEmpty()
                                                                 ? QJsonValue(QJsonValue::Null)
                                                                 : QJsonValue(cp->policyVersion)},
                           {QStringLiteral("generation"), cp->generation},
                           {QStringLiteral("updatedAt"), cp->updatedAt},
                           {QStringLiteral("verifiedAt"), cp->verifiedAt}};
    }
    if (method == QLatin1String("getBalances")) {
        const JsonRpcParams p = bind({QStringLiteral("contract"), QStringLiteral("holder")}, 1);
        const QString contract = fixedParam<chain::Address>(p.at(0), "contract").toHex();
        const QJsonValue holderParam = p.at(1);
        if (!holderParam.isUndefined() && !holderParam.isNull()) {
            const QString holder = fixedParam<chain::Address>(holderParam, "holder").toHex();
            const auto q = m_reader.query(
                QStringLiteral(
                    "SELECT balance, updated_at_block FROM token_balances WHERE "
                    "environment_id = ? AND chain_id = ? AND contract = ? AND holder = ?"),
                {m_env, qint64(m_chainId), contract, holder});
            const bool held = q->next();
            return QJsonObject{
                {QStringLiteral("contract"), contract},
                {QStringLiteral("holder"), holder},
                {QStringLiteral("balance"), held ? q->value(0).toString() : QStringLiteral("0")},
                {QStringLiteral("updatedAtBlock"),
                 held ? QJsonValue(q->value(1).toLongLong()) : QJsonValue::Null}};
        }
        const auto q = m_reader.query(
            QStringLiteral("SELECT holder, balance FROM token_balances WHERE environment_id = ? "
                           "AND chain_id = ? AND contract = ? ORDER BY holder LIMIT 1000"),
            {m_env, qint64(m_chainId), contract});
        QJsonArray out;
        while (q->next())
            out.append(QJsonObject{{QStringLiteral("holder"), q->value(0).toString()},
                                   {QStringLiteral("balance"), q->value(1).toString()}});
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
    const std::optional<indexer::IndexerStatus> s = m_live.indexer();
    const health::HealthSnapshot h = m_live.health();
    std::optional<std::uint64_t> head, checkpoint, lag;
    if (s) {
        head = s->head;
        checkpoint = s->checkpoint;
        lag = s->lag();
    } else {
        // No indexer status in this process (a shared index's backfill or follower): the
        // head as node health last saw the indexed node, the checkpoint as committed.
        const QUrl indexed(m_live.indexedNode());
        bool reachable = false;
        for (const auto& n : h.nodes)
            if (QUrl(n.url) == indexed) {
                head = n.head;
                reachable = n.state != health::NodeState::Offline;
            }
        if (const auto cp = m_reader.checkpoint(m_env, qint64(m_chainId), m_source))
            checkpoint = std::uint64_t(cp->number);
        lag = indexer::IndexerStatus::cursorLag(head, checkpoint, reachable);
    }
    p.gauge(QStringLiteral("forkscope_head_block"),
            QStringLiteral("Head block reported by the node."), double(head.value_or(0)));
    p.gauge(QStringLiteral("forkscope_checkpoint_block"),
            QStringLiteral("Last block committed with the checkpoint."),
            double(checkpoint.value_or(0)));
    p.gauge(QStringLiteral("forkscope_cursor_lag_blocks"),
            QStringLiteral(
                "Blocks between the head and the checkpoint (-1 while the node is unreachable)."),
            lag ? double(*lag) : -1.0);
    databaseFamilies(p);
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
    if (s)
        processFamilies(p, *s, m_live.indexedNode());
    QList<QPair<PrometheusText::Labels, double>> timeouts;
    for (const auto& n : h.nodes)
        timeouts.append({{{QStringLiteral("node"), n.url}}, double(n.timeouts)});
    p.family(QStringLiteral("forkscope_node_timeouts_total"), QStringLiteral("counter"),
             QStringLiteral("Health polls of each node that hit their deadline."), timeouts);
    return p.text();
}

void LocalApi::databaseFamilies(PrometheusText& p)
{
    const QVariantList scope{m_env, qint64(m_chainId)};
    QHash<QString, qint64> byReason;
    QList<double> depths;
    for (auto q = m_reader.query(QStringLiteral("SELECT reason, depth FROM reorg_events WHERE "
                                                "environment_id = ? AND chain_id = ?"),
                                 scope);
         q->next();) {
        ++byReason[q->value(0).toString()];
        depths << double(q->value(1).toLongLong());
    }
    // Every reason is always exported, at 0 until it happens, so rates work from the start.
    QList<QPair<PrometheusText::Labels, double>> reorgs;
    for (const QString& reason :
         {indexer::reorg_reason::kHashMismatch, indexer::reorg_reason::kParentMismatch,
          indexer::reorg_reason::kAbsence, indexer::reorg_reason::kRepair})
        reorgs.append({{{QStringLiteral("reason"), reason}}, double(byReason.value(reason, 0))});
    p.family(QStringLiteral("forkscope_reorgs_total"), QStringLiteral("counter"),
             QStringLiteral("Rollbacks committed, by what detected them."), reorgs);
    p.histogram(QStringLiteral("forkscope_reorg_depth"),
                QStringLiteral("Depth of each rollback, in blocks."), {1, 2, 4, 8, 16, 32, 64},
                depths);
    // The outbox as the contract shows it (on a shared index: at or below the checkpoint).
    const auto q = m_reader.query(
        QStringLiteral("SELECT count(*) FILTER (WHERE delivered_at IS NULL AND failed_at IS "
                       "NULL), count(*) FILTER (WHERE delivered_at IS NOT NULL), count(*) FILTER "
                       "(WHERE delivered_at IS NULL AND failed_at IS NOT NULL) FROM outbox WHERE "
                       "environment_id = ? AND chain_id = ?"),
        scope);
    const bool counted = q->next();
    p.gauge(QStringLiteral("forkscope_outbox_pending"),
            QStringLiteral("Outbox rows not delivered yet."),
            counted ? double(q->value(0).toLongLong()) : 0.0);
    p.counter(QStringLiteral("forkscope_outbox_delivered_total"),
              QStringLiteral("Outbox rows delivered."),
              counted ? double(q->value(1).toLongLong()) : 0.0);
    p.gauge(QStringLiteral("forkscope_outbox_failed"),
            QStringLiteral("Outbox rows the sink refused for good."),
            counted ? double(q->value(2).toLongLong()) : 0.0);
}

void LocalApi::processFamilies(PrometheusText& p, const indexer::IndexerStatus& s,
                               const QString& indexed)
{
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
    p.family(
        QStringLiteral("forkscope_truncations_detected_total"), QStringLiteral("counter"),
        QStringLiteral("Results a provider truncated or dropped logs from, found by the "
                       "completeness proofs and fetched again."),
        {{{{QStringLiteral("node"), indexed}, {QStringLiteral("kind"), QStringLiteral("bloom")}},
          double(c.bloomTruncations)},
         {{{QStringLiteral("node"), indexed}, {QStringLiteral("kind"), QStringLiteral("recount")}},
          double(c.recountTruncations)},
         {{{QStringLiteral("node"), indexed}, {QStringLiteral("kind"), QStringLiteral("receipts")}},
          double(c.receiptTruncations)},
         {{{QStringLiteral("node"), indexed}, {QStringLiteral("kind"), QStringLiteral("split")}},
          double(c.splitTruncations)}});
    p.counter(QStringLiteral("forkscope_bloom_false_positives_total"),
              QStringLiteral("Blocks whose bloom admitted a contract that had no log there."),
              double(c.falsePositives));
}

} // namespace forkscope::api
