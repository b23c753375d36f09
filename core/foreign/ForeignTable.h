#pragma once

#include "ForeignCell.h"
#include "ForeignError.h"

#include <QString>
#include <QStringList>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

namespace forkscope::foreign {

// Another indexer's table as a query yields it, read only: a SQLite file opened read-only
// through SQLite, or a PostgreSQL database read in one READ ONLY transaction (one snapshot
// for the whole audit). The query is the user's; the reader wraps it to read one block
// range at a time, so a table of any size is read in bounded pages.
// Every method throws ForeignError (BadTarget, BadQuery) naming the target.
class ForeignTable
{
public:
    virtual ~ForeignTable() = default;

    // A SQLite file path, or a postgresql:// URL.
    static std::unique_ptr<ForeignTable> open(const QString& target);

    // The file, or the URL without its password.
    virtual QString describe() const = 0;
    // The columns `query` yields, as it names them (the query is run with no row).
    virtual QStringList columns(const QString& query) = 0;
    // The smallest and largest `block_number` the query yields; nullopt when it yields none.
    virtual std::optional<std::pair<ForeignCell, ForeignCell>> blockSpan(const QString& query) = 0;
    // blockSpan() as block numbers; throws BadValue naming the cell that is not one.
    std::optional<std::pair<std::uint64_t, std::uint64_t>> blockNumberSpan(const QString& query);
    // Each row of `query` whose block_number is in [from, to], in block order, its cells in
    // the order of columns(). Stops and throws BadQuery past `maxRows` rows.
    virtual void rowsBetween(const QString& query, std::uint64_t from, std::uint64_t to,
                             qsizetype maxRows,
                             const std::function<void(const ForeignCells&)>& row) = 0;
    // Each row of `query` (one without a block_number: the balances); throws BadQuery past
    // `maxRows` rows.
    virtual void allRows(const QString& query, qsizetype maxRows,
                         const std::function<void(const ForeignCells&)>& row) = 0;

protected:
    // The user's query as a subquery: without the trailing semicolons it may end with.
    static QString subquery(const QString& query);
    ForeignError badQuery(const QString& query, const QString& reason) const;
};

} // namespace forkscope::foreign
