#include "SqlFunctions.h"
#include "chain/ChainParseError.h"
#include "chain/SignedAmount.h"

#include <sqlite3.h>
#include <string>

namespace forkscope::store {

namespace {
void amountAdd(sqlite3_context* ctx, int argc, sqlite3_value** argv)
{
    if (argc != 2 || sqlite3_value_type(argv[0]) == SQLITE_NULL ||
        sqlite3_value_type(argv[1]) == SQLITE_NULL) {
        sqlite3_result_error(ctx, "forkscope_amount_add: NULL amount", -1);
        return;
    }
    try {
        const auto* a = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
        const auto* b = reinterpret_cast<const char*>(sqlite3_value_text(argv[1]));
        const chain::SignedAmount sum =
            chain::amount::fromString(a, sqlite3_value_bytes(argv[0]), QStringLiteral("amount")) +
            chain::amount::fromString(b, sqlite3_value_bytes(argv[1]), QStringLiteral("amount"));
        const std::string text = sum.str();
        sqlite3_result_text(ctx, text.c_str(), int(text.size()), SQLITE_TRANSIENT);
    } catch (const std::exception& e) {
        const std::string msg = std::string("forkscope_amount_add: ") + e.what();
        sqlite3_result_error(ctx, msg.c_str(), int(msg.size()));
    }
}
} // namespace

void registerSqlFunctions(sqlite3* db)
{
    sqlite3_create_function_v2(db, "forkscope_amount_add", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                               nullptr, &amountAdd, nullptr, nullptr, nullptr);
}

} // namespace forkscope::store
