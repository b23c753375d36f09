#pragma once

struct sqlite3;

namespace forkscope::store {

// SQL functions Forkscope registers on every SQLite connection:
//   forkscope_unhex(text) -> BLOB: '0x' hex to bytes, for migrations and tests.
// (Balances are summed in C++ by BalanceBook, not in SQL: nothing here does arithmetic.)
void registerSqlFunctions(sqlite3* db);

} // namespace forkscope::store
