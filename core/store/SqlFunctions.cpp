#include "SqlFunctions.h"
#include "chain/ChainParseError.h"
#include "chain/SignedAmount.h"

#include <algorithm>
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
// '0x'-prefixed hex text to a BLOB, for the contract v4 migration and for tests that build
// rows of the binary tables. SQLite 3.40 has no unhex(). Anything but even-length 0x hex is an
// error naming the value, so a damaged v3 file fails its migration instead of storing junk.
void unhex(sqlite3_context* ctx, int argc, sqlite3_value** argv)
{
    if (argc != 1 || sqlite3_value_type(argv[0]) == SQLITE_NULL) {
        sqlite3_result_null(ctx);
        return;
    }
    const auto* s = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
    const int n = sqlite3_value_bytes(argv[0]);
    const auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9')
            return c - '0';
        if (c >= 'a' && c <= 'f')
            return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
            return c - 'A' + 10;
        return -1;
    };
    if (n < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || n % 2 != 0) {
        const std::string msg =
            "forkscope_unhex: not 0x-prefixed even-length hex: " + std::string(s, std::min(n, 80));
        sqlite3_result_error(ctx, msg.c_str(), int(msg.size()));
        return;
    }
    std::string out(std::size_t((n - 2) / 2), '\0');
    for (int i = 2; i < n; i += 2) {
        const int hi = nibble(s[i]);
        const int lo = nibble(s[i + 1]);
        if (hi < 0 || lo < 0) {
            const std::string msg = "forkscope_unhex: not hex: " + std::string(s, std::min(n, 80));
            sqlite3_result_error(ctx, msg.c_str(), int(msg.size()));
            return;
        }
        out[std::size_t(i / 2 - 1)] = char(hi << 4 | lo);
    }
    // A zero-length BLOB, not NULL, for "0x": an empty log data field is a value.
    sqlite3_result_blob(ctx, out.empty() ? "" : out.data(), int(out.size()), SQLITE_TRANSIENT);
}
} // namespace

void registerSqlFunctions(sqlite3* db)
{
    sqlite3_create_function_v2(db, "forkscope_unhex", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                               nullptr, &unhex, nullptr, nullptr, nullptr);
    sqlite3_create_function_v2(db, "forkscope_amount_add", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                               nullptr, &amountAdd, nullptr, nullptr, nullptr);
}

} // namespace forkscope::store
