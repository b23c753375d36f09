#include "ForeignTable.h"
#include "ForeignError.h"
#include "ForeignRow.h"
#include "ForeignValue.h"
#include "PgForeignTable.h"
#include "SqliteForeignTable.h"
#include "store/pg/PgConnection.h"

namespace forkscope::foreign {

std::unique_ptr<ForeignTable> ForeignTable::open(const QString& target)
{
    if (store::pg::isPostgresUrl(target))
        return std::make_unique<PgForeignTable>(target);
    return std::make_unique<SqliteForeignTable>(target);
}

std::optional<std::pair<std::uint64_t, std::uint64_t>>
ForeignTable::blockNumberSpan(const QString& query)
{
    const auto span = blockSpan(query);
    if (!span)
        return std::nullopt;
    QString why;
    const auto low = blockNumberOf(span->first, &why);
    const auto high = blockNumberOf(span->second, &why);
    if (!low || !high)
        throw ForeignError(ForeignError::Kind::BadValue,
                           badCell(QStringLiteral("with the lowest or highest block"),
                                   QStringLiteral("block_number"), low ? span->second : span->first,
                                   why));
    return std::pair{*low, *high};
}

QString ForeignTable::subquery(const QString& query)
{
    QString q = query.trimmed();
    while (q.endsWith(QLatin1Char(';')))
        q = q.chopped(1).trimmed();
    return q;
}

ForeignError ForeignTable::badQuery(const QString& query, const QString& reason) const
{
    QString shown = subquery(query).simplified();
    if (shown.size() > 120)
        shown = shown.left(117) + QStringLiteral("...");
    return ForeignError(
        ForeignError::Kind::BadQuery,
        QStringLiteral("the query `%1` on %2: %3").arg(shown, describe(), reason.simplified()));
}

} // namespace forkscope::foreign
