// CheckpointReport::toCsv: one table for spreadsheets. Checkpoints and reorgs share one
// header (record_type tells them apart; a column that does not apply is empty), so the
// file opens as a single sheet. Columns are documented in docs/report-schema.md.
#include "CheckpointReport.h"

#include <QHash>

namespace forkscope::report {

namespace {

// RFC 4180: quote a field that holds a comma, a quote or a line break; double the quotes.
QByteArray field(const QString& value)
{
    QByteArray utf8 = value.toUtf8();
    if (!utf8.contains(',') && !utf8.contains('"') && !utf8.contains('\n') && !utf8.contains('\r'))
        return utf8;
    utf8.replace("\"", "\"\"");
    return '"' + utf8 + '"';
}

QString optionalNumber(const std::optional<qint64>& n)
{
    return n ? QString::number(*n) : QString();
}

void appendRow(QByteArray& out, const QStringList& values)
{
    for (qsizetype i = 0; i < values.size(); ++i) {
        if (i)
            out += ',';
        out += field(values.at(i));
    }
    out += "\r\n";
}

const QStringList kDiffKinds{QStringLiteral("transfer_removed"),
                             QStringLiteral("outbox_dropped"),
                             QStringLiteral("outbox_delivered_reorged"),
                             QStringLiteral("balance_changed"),
                             QStringLiteral("child_removed"),
                             QStringLiteral("outbox_unconfirmed_retracted")};

} // namespace

QStringList CheckpointReport::csvColumns()
{
    QStringList columns{
        // both record types
        QStringLiteral("record_type"), QStringLiteral("environment_id"), QStringLiteral("chain_id"),
        QStringLiteral("environment_archived_at"), QStringLiteral("source_id"),
        // checkpoint
        QStringLiteral("block_number"), QStringLiteral("block_hash"),
        QStringLiteral("policy_version"), QStringLiteral("generation"),
        QStringLiteral("start_block"), QStringLiteral("updated_at"), QStringLiteral("verified_at"),
        QStringLiteral("status"), QStringLiteral("node_hash"), QStringLiteral("checked_at"),
        QStringLiteral("check_method"), QStringLiteral("check_error"),
        // reorg
        QStringLiteral("reorg_id"), QStringLiteral("detected_at"),
        QStringLiteral("old_block_number"), QStringLiteral("old_block_hash"),
        QStringLiteral("fork_block_number"), QStringLiteral("fork_block_hash"),
        QStringLiteral("depth"), QStringLiteral("reason"), QStringLiteral("rows_removed"),
        QStringLiteral("delivered_outbox_rows")};
    for (const QString& kind : kDiffKinds)
        columns << QStringLiteral("diff_") + kind;
    columns << QStringLiteral("diff_items_total");
    // completeness_alert: an open range a provider did not return whole
    columns << QStringLiteral("alert_node") << QStringLiteral("alert_to_block")
            << QStringLiteral("alert_what");
    return columns;
}

QByteArray CheckpointReport::toCsv() const
{
    const QStringList columns = csvColumns();
    QByteArray out;
    appendRow(out, columns);
    const auto row = [&](const QHash<QString, QString>& values) {
        QStringList cells;
        for (const QString& c : columns)
            cells << values.value(c);
        appendRow(out, cells);
    };
    const QHash<QString, QString> common{
        {QStringLiteral("environment_id"), environment.id},
        {QStringLiteral("chain_id"), QString::number(environment.chainId)},
        {QStringLiteral("environment_archived_at"), environment.archivedAt}};

    for (const CheckpointEntry& c : checkpoints) {
        QHash<QString, QString> v = common;
        v.insert(QStringLiteral("record_type"), QStringLiteral("checkpoint"));
        v.insert(QStringLiteral("source_id"), c.sourceId);
        v.insert(QStringLiteral("block_number"), QString::number(c.blockNumber));
        v.insert(QStringLiteral("block_hash"), c.blockHash);
        v.insert(QStringLiteral("policy_version"), c.policyVersion);
        v.insert(QStringLiteral("generation"), QString::number(c.generation));
        v.insert(QStringLiteral("start_block"), optionalNumber(c.startBlock));
        v.insert(QStringLiteral("updated_at"), c.updatedAt);
        v.insert(QStringLiteral("verified_at"), c.verifiedAt);
        v.insert(QStringLiteral("status"), statusName(c.verification.status));
        v.insert(QStringLiteral("node_hash"), c.verification.nodeHash);
        v.insert(QStringLiteral("checked_at"), c.verification.checkedAt);
        v.insert(QStringLiteral("check_method"), c.verification.method);
        v.insert(QStringLiteral("check_error"), c.verification.error);
        row(v);
    }
    for (const ReorgEntry& e : reorgs) {
        QHash<QString, QString> v = common;
        v.insert(QStringLiteral("record_type"), QStringLiteral("reorg"));
        v.insert(QStringLiteral("source_id"), e.sourceId);
        v.insert(QStringLiteral("reorg_id"), QString::number(e.id));
        v.insert(QStringLiteral("detected_at"), e.detectedAt);
        v.insert(QStringLiteral("old_block_number"), QString::number(e.oldBlockNumber));
        v.insert(QStringLiteral("old_block_hash"), e.oldBlockHash);
        v.insert(QStringLiteral("fork_block_number"), QString::number(e.forkBlockNumber));
        v.insert(QStringLiteral("fork_block_hash"), e.forkBlockHash);
        v.insert(QStringLiteral("depth"), QString::number(e.depth));
        v.insert(QStringLiteral("reason"), e.reason);
        v.insert(QStringLiteral("rows_removed"), QString::number(e.rowsRemoved));
        v.insert(QStringLiteral("delivered_outbox_rows"), QString::number(e.deliveredOutboxRows));
        for (const QString& kind : kDiffKinds)
            v.insert(QStringLiteral("diff_") + kind, QString::number(e.diffCounts.value(kind)));
        v.insert(QStringLiteral("diff_items_total"), QString::number(e.diffItemsTotal));
        row(v);
    }
    for (const indexer::CompletenessAlert& a : completeness.openAlerts) {
        QHash<QString, QString> v = common;
        v.insert(QStringLiteral("record_type"), QStringLiteral("completeness_alert"));
        v.insert(QStringLiteral("detected_at"), a.detectedAt);
        v.insert(QStringLiteral("block_number"), QString::number(a.fromBlock));
        v.insert(QStringLiteral("status"), QStringLiteral("open"));
        v.insert(QStringLiteral("alert_node"), a.node);
        v.insert(QStringLiteral("alert_to_block"), QString::number(a.toBlock));
        v.insert(QStringLiteral("alert_what"), a.what);
        row(v);
    }
    return out;
}

} // namespace forkscope::report
