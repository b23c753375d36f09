// CheckpointReport::toJson: the field names and meanings are documented, one by one, in
// docs/report-schema.md (and as a JSON Schema in docs/report.schema.json). Change both
// and kSchemaVersion together.
#include "CheckpointReport.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace forkscope::report {

namespace {

// Absent values are JSON null, never "" or 0, so a reader cannot mistake them for data.
QJsonValue text(const QString& s)
{
    return s.isEmpty() ? QJsonValue(QJsonValue::Null) : QJsonValue(s);
}

template <typename T> QJsonValue number(const std::optional<T>& n)
{
    return n ? QJsonValue(qint64(*n)) : QJsonValue(QJsonValue::Null);
}

QJsonArray points(const QList<SeriesPoint>& series)
{
    QJsonArray a;
    for (const SeriesPoint& p : series)
        a.append(QJsonArray{p.x, p.y});
    return a;
}

QJsonObject verificationJson(const Verification& v)
{
    return {{QStringLiteral("status"), statusName(v.status)},
            {QStringLiteral("node_hash"), text(v.nodeHash)},
            {QStringLiteral("error"), text(v.error)},
            {QStringLiteral("checked_at"), text(v.checkedAt)},
            {QStringLiteral("method"), text(v.method)}};
}

QJsonObject diffItemJson(const ReorgDiffItem& d)
{
    return {{QStringLiteral("kind"), d.kind},
            {QStringLiteral("block_number"), number(d.blockNumber)},
            {QStringLiteral("log_index"), number(d.logIndex)},
            {QStringLiteral("tx_hash"), text(d.txHash)},
            {QStringLiteral("contract"), text(d.contract)},
            {QStringLiteral("holder"), text(d.holder)},
            {QStringLiteral("from"), text(d.fromAddr)},
            {QStringLiteral("to"), text(d.toAddr)},
            {QStringLiteral("value"), text(d.value)},
            {QStringLiteral("before_value"), text(d.beforeValue)},
            {QStringLiteral("after_value"), text(d.afterValue)},
            {QStringLiteral("event_key"), text(d.eventKey)}};
}

QJsonObject reorgJson(const ReorgEntry& e)
{
    QJsonObject counts;
    for (auto it = e.diffCounts.cbegin(); it != e.diffCounts.cend(); ++it)
        counts.insert(it.key(), it.value());
    QJsonArray items;
    for (const ReorgDiffItem& d : e.diffItems)
        items.append(diffItemJson(d));
    return {{QStringLiteral("id"), e.id},
            {QStringLiteral("source_id"), text(e.sourceId)},
            {QStringLiteral("detected_at"), e.detectedAt},
            {QStringLiteral("old_block_number"), e.oldBlockNumber},
            {QStringLiteral("old_block_hash"), text(e.oldBlockHash)},
            {QStringLiteral("fork_block_number"), e.forkBlockNumber},
            {QStringLiteral("fork_block_hash"), text(e.forkBlockHash)},
            {QStringLiteral("depth"), e.depth},
            {QStringLiteral("reason"), e.reason},
            {QStringLiteral("rows_removed"), e.rowsRemoved},
            {QStringLiteral("delivered_outbox_rows"), e.deliveredOutboxRows},
            {QStringLiteral("diff_counts"), counts},
            {QStringLiteral("diff_items_total"), e.diffItemsTotal},
            {QStringLiteral("diff_items_truncated"), e.diffTruncated},
            {QStringLiteral("diff_items"), items}};
}

} // namespace

QByteArray CheckpointReport::toJson() const
{
    const EnvironmentInfo& env = environment;
    QJsonArray archivedContracts;
    for (const EnvironmentInfo::ArchivedContract& a : env.archivedContracts)
        archivedContracts.append(
            QJsonObject{{QStringLiteral("contract"), a.contract},
                        {QStringLiteral("archived_at"), a.archivedAt},
                        {QStringLiteral("archive_environment"), a.archiveEnvironmentId}});
    const QJsonObject envJson{{QStringLiteral("id"), env.id},
                              {QStringLiteral("chain_id"), qint64(env.chainId)},
                              {QStringLiteral("genesis_hash"), env.genesisHash},
                              {QStringLiteral("rpc_url"), env.rpcUrl},
                              {QStringLiteral("created_at"), env.createdAt},
                              {QStringLiteral("archived_at"), text(env.archivedAt)},
                              {QStringLiteral("archived"), env.archived()},
                              {QStringLiteral("archived_contracts"), archivedContracts}};

    const QJsonObject nodeJson{{QStringLiteral("url"), text(node.url)},
                               {QStringLiteral("checked"), node.checked},
                               {QStringLiteral("reachable"), node.reachable},
                               {QStringLiteral("checked_at"), text(node.checkedAt)},
                               {QStringLiteral("chain_id"), number(node.chainId)},
                               {QStringLiteral("head"), number(node.head)},
                               {QStringLiteral("genesis_hash"), text(node.genesisHash)},
                               {QStringLiteral("same_chain"), node.sameChain},
                               {QStringLiteral("error"), text(node.error)}};

    const QJsonObject invariantsJson{
        {QStringLiteral("state"), invariantStateName(invariants.state)},
        {QStringLiteral("summary"), invariants.summary},
        {QStringLiteral("violations"), QJsonArray::fromStringList(invariants.violations)},
        {QStringLiteral("contracts_checked"),
         QJsonArray::fromStringList(invariants.contractsChecked)}};

    QJsonArray alertsJson;
    for (const indexer::CompletenessAlert& a : completeness.openAlerts)
        alertsJson.append(QJsonObject{{QStringLiteral("node"), a.node},
                                      {QStringLiteral("from_block"), qint64(a.fromBlock)},
                                      {QStringLiteral("to_block"), qint64(a.toBlock)},
                                      {QStringLiteral("what"), a.what},
                                      {QStringLiteral("kind"), a.kind},
                                      {QStringLiteral("detected_at"), a.detectedAt}});
    const QJsonObject completenessJson{
        {QStringLiteral("state"), completeness.state},
        {QStringLiteral("open_alerts"), alertsJson},
        {QStringLiteral("resolved_alerts"), completeness.resolvedAlerts}};

    QJsonArray checkpointsJson;
    for (const CheckpointEntry& c : checkpoints)
        checkpointsJson.append(
            QJsonObject{{QStringLiteral("source_id"), c.sourceId},
                        {QStringLiteral("block_number"), c.blockNumber},
                        {QStringLiteral("block_hash"), c.blockHash},
                        {QStringLiteral("policy_version"), c.policyVersion},
                        {QStringLiteral("generation"), c.generation},
                        {QStringLiteral("start_block"), number(c.startBlock)},
                        {QStringLiteral("updated_at"), c.updatedAt},
                        {QStringLiteral("verified_at"), text(c.verifiedAt)},
                        {QStringLiteral("verification"), verificationJson(c.verification)}});

    QJsonArray reorgsJson;
    for (const ReorgEntry& e : reorgs)
        reorgsJson.append(reorgJson(e));

    QJsonArray backfill;
    for (const BackfillStatusCount& b : counts.backfill)
        backfill.append(
            QJsonObject{{QStringLiteral("status"), b.status},
                        {QStringLiteral("ranges"), b.ranges},
                        {QStringLiteral("blocks"), b.blocks},
                        {QStringLiteral("attempts"), b.attempts},
                        {QStringLiteral("last_errors"), QJsonArray::fromStringList(b.lastErrors)}});
    const QJsonObject countsJson{{QStringLiteral("blocks"), counts.blocks},
                                 {QStringLiteral("logs"), counts.logs},
                                 {QStringLiteral("transfers"), counts.transfers},
                                 {QStringLiteral("contracts"), counts.contracts},
                                 {QStringLiteral("balances"), counts.balances},
                                 {QStringLiteral("holders"), counts.holders},
                                 {QStringLiteral("reorgs"), counts.reorgs},
                                 {QStringLiteral("orphaned_blocks"), counts.orphanedBlocks},
                                 {QStringLiteral("outbox"),
                                  QJsonObject{{QStringLiteral("pending"), counts.outboxPending},
                                              {QStringLiteral("delivered"), counts.outboxDelivered},
                                              {QStringLiteral("failed"), counts.outboxFailed}}},
                                 {QStringLiteral("backfill"), backfill}};

    QJsonArray reorgPoints;
    for (const ReorgPoint& p : series.reorgs)
        reorgPoints.append(QJsonObject{{QStringLiteral("time"), p.time},
                                       {QStringLiteral("depth"), p.depth},
                                       {QStringLiteral("reason"), p.reason}});
    const QJsonObject seriesJson{
        {QStringLiteral("max_points"), kMaxSeriesPoints},
        {QStringLiteral("blocks"), QJsonObject{{QStringLiteral("total"), series.blocksTotal},
                                               {QStringLiteral("points"), points(series.blocks)}}},
        {QStringLiteral("reorgs"), reorgPoints},
        {QStringLiteral("outbox_delivered"),
         QJsonObject{{QStringLiteral("total"), series.outboxDeliveredTotal},
                     {QStringLiteral("points"), points(series.outboxDelivered)}}},
        {QStringLiteral("outbox_pending_by_block"),
         QJsonObject{{QStringLiteral("points"), points(series.outboxPendingByBlock)}}}};

    QJsonObject root{{QStringLiteral("schema_version"), kSchemaVersion},
                     {QStringLiteral("generated_at"), generatedAt},
                     {QStringLiteral("generator"), generator},
                     {QStringLiteral("database"), databasePath},
                     {QStringLiteral("environment"), envJson},
                     {QStringLiteral("node"), nodeJson},
                     {QStringLiteral("invariants"), invariantsJson},
                     {QStringLiteral("completeness"), completenessJson},
                     {QStringLiteral("checkpoints"), checkpointsJson},
                     {QStringLiteral("reorgs"), reorgsJson},
                     {QStringLiteral("counts"), countsJson},
                     {QStringLiteral("series"), seriesJson}};
    if (!appState.isEmpty())
        root.insert(QStringLiteral("app_state"), appState);
    return QJsonDocument(root).toJson(QJsonDocument::Indented);
}

} // namespace forkscope::report
