#pragma once

#include "ForeignCell.h"
#include "chain/Address.h"
#include "chain/Hash32.h"
#include "chain/U256.h"

#include <QString>
#include <optional>

namespace forkscope::foreign {

// A foreign cell read as what its column must hold. Each accepts the encodings indexers
// store: an integer, decimal text (PostgreSQL numeric, with a fraction of zeros only), 0x
// hex text in any case, and bytes (a SQLite BLOB, a PostgreSQL bytea; big-endian for
// numbers). Each returns nullopt with `why` set when the cell is none of them (NULL
// included), for the caller to name the row and the column.
std::optional<std::uint64_t> blockNumberOf(const ForeignCell& c, QString* why);
std::optional<chain::U256> amountOf(const ForeignCell& c, QString* why);
std::optional<chain::Address> addressOf(const ForeignCell& c, QString* why);
std::optional<chain::Hash32> hashOf(const ForeignCell& c, QString* why);

// How the cell reads in a message: its text, its bytes as 0x hex, or NULL (shortened).
QString shown(const ForeignCell& c);

} // namespace forkscope::foreign
