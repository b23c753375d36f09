#pragma once

#include "TablePage.h"

#include <QStringList>
#include <cstdint>

namespace forkscope::store {
class ContractReader;
}

namespace forkscope::engine {

// Pages of transfer_events, token_balances and backfill_ranges for one environment, sorted
// and filtered in SQL (LIMIT/OFFSET), so memory stays bounded however large the tables grow.
// The SQL is the contract's read surface, so it pages a SQLite file and a shared PostgreSQL
// index alike.
class TableQuery
{
public:
    // Rows in the order of tableColumns(kind). Throws StoreError on a database failure; an
    // out-of-range sort column sorts by column 0.
    static TablePage fetch(store::ContractReader& db, const QString& environmentId,
                           const TableRequest& request);
};

} // namespace forkscope::engine
