#pragma once

#include "indexer/BalanceBook.h"

#include <QList>
#include <QString>
#include <cstdint>

namespace forkscope::store {
class Database;
}

namespace forkscope::audit {

// Recomputes one environment's token_balances from its transfer_events (invariant 3: each
// balance is the sum of its transfers, received minus sent, with the count of transfer
// sides; the zero address is not a holder; no transfers, no row) and corrects every row
// that differs. A rollback reverts balances by what the removed transfers added, which is
// exact only while the invariant held before; a repair runs after rows were lost or
// tampered with, so it rebuilds. Runs inside the caller's write transaction; streams the
// transfers (memory grows with the holders, not the transfers). Returns the corrections
// (empty when the balances were right).
QList<indexer::BalanceChange> rebuildBalances(store::Database& db, const QString& environmentId,
                                              std::uint64_t chainId);

} // namespace forkscope::audit
