#pragma once

#include "HolderDeltas.h"

#include <QList>
#include <QString>
#include <memory>
#include <optional>
#include <vector>

namespace forkscope::store {
class Database;
class SqliteStatement;
class MultiRowInsert;
} // namespace forkscope::store

namespace forkscope::indexer {

struct BalanceRevertPlan;

// Amounts as balance_store holds them, decimal ASCII: a deep reorg records thousands, and
// each went through a QString and back before it was bound.
struct BalanceChange
{
    HolderKey key;
    QByteArray before; // empty = no row
    QByteArray after;  // empty = row removed
};

// token_balances maintenance. Invariant 3: a row exists for every (contract, holder) that
// appears in at least one transfer (the zero address excepted), with the exact sum. Each
// row also counts the transfer sides it sums (transfer_sides), so a rollback can tell
// "no transfer left" without searching transfer_events by holder.
class BalanceBook
{
public:
    BalanceBook(store::Database& db, QString environmentId, std::uint64_t chainId);
    ~BalanceBook();

    // Adds per-holder deltas (inside the caller's transaction), in key order; each row's
    // updated_at_block becomes its holder's last Transfer's block.
    void apply(HolderDeltas deltas);
    // Takes back what removed transfers added (`removed`: their deltas as apply got them),
    // inside the caller's transaction. A holder left with no transfer side loses its row.
    // Returns what changed, for the reorg diff. (planBalanceRevert, then applyRevert.)
    QList<BalanceChange> revert(HolderDeltas removed, std::uint64_t forkBlock);
    // Writes a plan made from the state this transaction found (BalanceRevertPlan.h).
    void applyRevert(const BalanceRevertPlan& plan);

    std::optional<QString> current(const HolderKey& key);

private:
    store::Database& m_db;
    QString m_env;
    std::uint64_t m_chainId;
    std::unique_ptr<store::SqliteStatement> m_delete;
    std::unique_ptr<store::MultiRowInsert> m_replace, m_upsert;
};

} // namespace forkscope::indexer
