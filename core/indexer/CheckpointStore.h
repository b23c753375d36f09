#pragma once

#include "Checkpoint.h"

#include <optional>

namespace forkscope::store {
class Database;
}

namespace forkscope::indexer {

// The cursor of one (environment, chain, source). Every write is conditional on the value
// the writer last read (compare-and-swap), so two writers can never both advance it, and
// a writer that read a stale cursor re-reads instead of overwriting (docs/design.md, "The
// checkpoint is a claim about a finished prefix").
class CheckpointStore
{
public:
    CheckpointStore(store::Database& db, QString environmentId, std::uint64_t chainId,
                    QString sourceId);

    // nullopt = nothing indexed yet (an absent row, never a fake block 0 or -1).
    std::optional<Checkpoint> read();

    // Must run inside the caller's write transaction, together with the data it covers.
    // Throw CheckpointMovedError when the stored cursor is not `expected`, and
    // EnvironmentArchivedError when the environment was archived meanwhile (so the whole
    // transaction, data included, rolls back).
    void insertFirst(const Checkpoint& cp);
    void advance(const Checkpoint& expected, std::uint64_t number, const chain::Hash32& hash);
    void remove(const Checkpoint& expected); // a rollback below the first indexed block

    void markVerified(const Checkpoint& cp);
    // The contract set (contractSetText) insertFirst records with a new checkpoint.
    void setContracts(const QString& contractSet) { m_contracts = contractSet; }
    // Records the set on a checkpoint written before schema v3 (contracts unknown); in its
    // own transaction. Returns false if the row already names a set.
    bool adoptContracts(const QString& contractSet);
    // The set an added contract's joining makes it (SourceBook), in the caller's transaction.
    void replaceContracts(const QString& contractSet);

    // Other sources already indexing this environment (blocks and logs are per environment,
    // so a second source would share and roll back the first one's rows).
    QStringList otherSources();

    // `lab reset` may archive the environment while an indexer is running on it; every
    // write re-checks inside its transaction, so archived rows are never touched (not
    // even by a rollback on the reset chain). Throws EnvironmentArchivedError.
    void ensureLive();

private:
    store::Database& m_db;
    QString m_env;
    std::uint64_t m_chainId;
    QString m_source;
    QString m_contracts;
};

} // namespace forkscope::indexer
