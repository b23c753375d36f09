#pragma once

struct sqlite3;

namespace forkscope::store {

// SQL functions Forkscope registers on every SQLite connection:
//   forkscope_amount_add(a TEXT, b TEXT) -> TEXT
//     exact signed 257-bit sum of two base-10 amounts (token balances exceed SQLite's
//     64-bit integers); malformed input fails the statement, never yields a guess.
// A PostgreSQL backend defines the same name over NUMERIC(78,0).
void registerSqlFunctions(sqlite3* db);

} // namespace forkscope::store
