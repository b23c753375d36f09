#pragma once

#include "chain/Address.h"
#include "chain/U256.h"

#include <QHash>
#include <QList>
#include <QString>
#include <boost/multiprecision/cpp_int.hpp>

namespace forkscope::store {
class Database;
}

namespace forkscope::indexer {

// Signed, checked 257-bit: a balance is received minus sent. It can only go negative when
// indexing starts (--from-block) after transfers the indexer never saw; such a balance is
// stored as "-N" rather than clamped or wrapped, so the gap is visible, not hidden.
using SignedAmount = boost::multiprecision::number<boost::multiprecision::cpp_int_backend<
    257, 257, boost::multiprecision::signed_magnitude, boost::multiprecision::checked, void>>;

struct HolderKey
{
    QString contract; // lowercase 0x-hex
    QString holder;
    friend bool operator==(const HolderKey&, const HolderKey&) = default;
    friend size_t qHash(const HolderKey& k, size_t seed = 0)
    {
        return qHashMulti(seed, k.contract, k.holder);
    }
};

struct BalanceChange
{
    HolderKey key;
    QString before; // empty = no row
    QString after;  // empty = row removed
};

QString amountToString(const SignedAmount& a);
SignedAmount amountFromString(const QString& s, const QString& field);

// token_balances maintenance. Invariant 3: a row exists for every (contract, holder) that
// appears in at least one transfer (the zero address excepted), with the exact sum.
class BalanceBook
{
public:
    BalanceBook(store::Database& db, QString environmentId, std::uint64_t chainId);

    // Adds per-holder deltas (inside the caller's transaction).
    void apply(const QHash<HolderKey, SignedAmount>& deltas, std::uint64_t atBlock);
    // Recomputes the given holders from transfer_events (inside the caller's transaction);
    // returns what changed, for the reorg diff.
    QList<BalanceChange> recompute(const QList<HolderKey>& holders);

    std::optional<QString> current(const HolderKey& key);

private:
    store::Database& m_db;
    QString m_env;
    std::uint64_t m_chainId;
};

} // namespace forkscope::indexer
