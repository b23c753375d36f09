#pragma once

#include "chain/Address.h"
#include "chain/SignedAmount.h"

#include <QHash>
#include <QString>
#include <cstdint>
#include <initializer_list>
#include <utility>
#include <vector>

namespace forkscope::indexer {

using chain::SignedAmount;

// Binary, as balance_store keys it (contract v4): the committer builds one per transfer side,
// and hex strings there cost a tenth of a commit in allocations.
struct HolderKey
{
    chain::Address contract;
    chain::Address holder;
    static HolderKey fromHex(const QString& contract, const QString& holder)
    {
        return {chain::Address::fromHex(contract, QStringLiteral("contract")),
                chain::Address::fromHex(holder, QStringLiteral("holder"))};
    }
    friend bool operator==(const HolderKey&, const HolderKey&) = default;
    friend size_t qHash(const HolderKey& k, size_t seed = 0)
    {
        return qHashMulti(seed, k.contract, k.holder);
    }
};

// balance_store's order: SQLite compares BLOBs with memcmp, contract first.
bool holderKeyLess(const HolderKey& a, const HolderKey& b);

// What a set of transfers does to one holder: the signed amount, how many transfer sides
// (from or to) name it, and the highest block of those sides (token_balances'
// updated_at_block: the block of the holder's last Transfer, as PostgreSQL's view and a
// balance rebuild compute it, not the top of the batch it was committed in).
struct HolderDelta
{
    SignedAmount amount = 0;
    qint64 sides = 0;
    std::uint64_t lastBlock = 0;
};

// The deltas of a batch (or of a rollback's removed transfers), one per holder, in
// balance_store's key order.
//
// Why not a hash: a batch of the synced chain touches a holder per Transfer, 10,000 of them,
// and each insert or lookup in a hash of that size is a cache miss at a random place (a tenth
// of a deep rollback, a fourteenth of a commit). Sides are appended in order instead, then
// sorted once by an index and summed, and BalanceBook walks balance_store in the same order.
class HolderDeltas
{
public:
    HolderDeltas() = default;
    HolderDeltas(std::initializer_list<std::pair<HolderKey, HolderDelta>> entries);

    void reserve(std::size_t sides);
    // One transfer side in `block`: `amount` received (negative: sent).
    void addSide(const HolderKey& key, const SignedAmount& amount, std::uint64_t block)
    {
        add(key, {amount, 1, block});
    }
    // Sides already summed for one holder; added to any the holder has here already.
    void add(const HolderKey& key, const HolderDelta& delta);

    // Sorts and sums: afterwards key(i) and delta(i) are holder i's, in key order, for i below
    // size(). Adding after it is fine; call it again.
    void merge();
    // merge(), then keeps only the summed holders: a batch's deltas kept for later hold a
    // holder per row, not a side per row (two per Transfer).
    void compact();
    // The sum of merged deltas, in key order: their sorted runs merged, nothing sorted again
    // (a fold adding a few batches' deltas together).
    static HolderDeltas sumOfMerged(const std::vector<const HolderDeltas*>& parts);
    std::size_t size() const { return m_order.size(); }
    bool isEmpty() const { return m_order.empty(); }
    const HolderKey& key(std::size_t i) const { return m_keys[m_order[i]]; }
    const HolderDelta& delta(std::size_t i) const { return m_deltas[m_order[i]]; }

private:
    std::vector<HolderKey> m_keys;
    std::vector<HolderDelta> m_deltas;
    std::vector<std::uint32_t> m_order; // after merge(): each holder's first side, in key order
    bool m_merged = true;               // nothing added yet
};

} // namespace forkscope::indexer
