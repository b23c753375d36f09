#include "TableQuery.h"
#include "store/ContractReader.h"

#include <QDateTime>

namespace forkscope::engine {

namespace {
// Amounts are base-10 strings of up to 78 digits: ordered by length, then text, they sort
// numerically (negatives, only possible with --from-block, below zero, though not by magnitude).
QString amountOrder(const QString& column)
{
    return QStringLiteral("(substr(%1, 1, 1) <> '-')|length(%1)|%1").arg(column);
}

struct Spec
{
    QString select;            // columns in display order
    QString from;              // table and environment condition
    QStringList orderBy;       // one SQL ordering per display column ('|' between keys)
    QStringList filterColumns; // matched with LIKE
    QString tieBreak;          // makes paging stable among equal sort keys
    int epochColumn = -1;      // seconds since the epoch, shown as ISO-8601 UTC
};

Spec spec(TableRequest::Kind kind)
{
    switch (kind) {
    case TableRequest::Kind::Transfers:
        // The block's time from the blocks of the same environment (every indexed transfer's
        // block is stored with it); time order is block order.
        return {QStringLiteral("block_number, (SELECT b.block_timestamp FROM blocks b WHERE "
                               "b.environment_id = transfer_events.environment_id AND b.chain_id = "
                               "transfer_events.chain_id AND b.block_number = "
                               "transfer_events.block_number), log_index, tx_hash, contract, "
                               "from_addr, to_addr, value"),
                QStringLiteral("transfer_events"),
                {QStringLiteral("block_number"), QStringLiteral("block_number"),
                 QStringLiteral("log_index"), QStringLiteral("tx_hash"), QStringLiteral("contract"),
                 QStringLiteral("from_addr"), QStringLiteral("to_addr"),
                 amountOrder(QStringLiteral("value"))},
                {QStringLiteral("tx_hash"), QStringLiteral("contract"), QStringLiteral("from_addr"),
                 QStringLiteral("to_addr")},
                QStringLiteral("block_number|log_index"),
                1};
    case TableRequest::Kind::Balances:
        return {QStringLiteral("contract, holder, balance, updated_at_block"),
                QStringLiteral("token_balances"),
                {QStringLiteral("contract"), QStringLiteral("holder"),
                 amountOrder(QStringLiteral("balance")), QStringLiteral("updated_at_block")},
                {QStringLiteral("contract"), QStringLiteral("holder")},
                QStringLiteral("contract|holder")};
    case TableRequest::Kind::Backfill:
        return {QStringLiteral("from_block, to_block, status, attempts, coalesce(last_error, ''), "
                               "coalesce(CAST(updated_at AS TEXT), '')"),
                QStringLiteral("backfill_ranges"),
                {QStringLiteral("from_block"), QStringLiteral("to_block"), QStringLiteral("status"),
                 QStringLiteral("attempts"), QStringLiteral("last_error"),
                 QStringLiteral("updated_at")},
                {QStringLiteral("status"), QStringLiteral("last_error")},
                QStringLiteral("from_block")};
    }
    return {};
}
} // namespace

TablePage TableQuery::fetch(store::ContractReader& db, const QString& environmentId,
                            const TableRequest& request)
{
    const Spec s = spec(request.kind);
    const int sortColumn =
        (request.sortColumn >= 0 && request.sortColumn < s.orderBy.size()) ? request.sortColumn : 0;
    const QString dir = request.descending ? QStringLiteral(" DESC") : QStringLiteral(" ASC");
    QStringList order;
    for (const QString& part : s.orderBy[sortColumn].split(QLatin1Char('|')))
        order << part + dir;
    for (const QString& part : s.tieBreak.split(QLatin1Char('|')))
        order << part + dir;
    QString sql =
        QStringLiteral("SELECT %1 FROM %2 WHERE environment_id = ?").arg(s.select, s.from);
    QVariantList binds{environmentId};
    const QString needle = request.filter.trimmed().toLower();
    if (!needle.isEmpty()) {
        QStringList likes;
        QString escaped = needle;
        escaped.replace(QLatin1Char('\\'), QStringLiteral("\\\\"))
            .replace(QLatin1Char('%'), QStringLiteral("\\%"))
            .replace(QLatin1Char('_'), QStringLiteral("\\_"));
        for (const QString& c : s.filterColumns) {
            likes << QStringLiteral("lower(%1) LIKE ? ESCAPE '\\'").arg(c);
            binds << QString(u'%' + escaped + u'%');
        }
        sql += QStringLiteral(" AND (%1)").arg(likes.join(QStringLiteral(" OR ")));
    }
    const int limit = std::clamp(request.limit, 1, 5000);
    sql += QStringLiteral(" ORDER BY %1 LIMIT ? OFFSET ?").arg(order.join(QStringLiteral(", ")));
    binds << limit << std::max(0, request.offset);

    TablePage page;
    page.request = request;
    const auto q = db.query(sql, binds);
    const int n = q->columns();
    while (q->next()) {
        QStringList row;
        row.reserve(n);
        for (int i = 0; i < n; ++i)
            row << (i == s.epochColumn && !q->value(i).isNull()
                        ? QDateTime::fromSecsSinceEpoch(q->value(i).toLongLong(), Qt::UTC)
                              .toString(Qt::ISODate)
                        : q->value(i).toString());
        page.rows.append(row);
    }
    page.atEnd = page.rows.size() < limit;
    return page;
}

} // namespace forkscope::engine
