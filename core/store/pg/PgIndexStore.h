#pragma once

#include "PgBalanceFolds.h"
#include "forktree/ForkTreeLimits.h"
#include "indexer/IndexStore.h"
#include "store/OpenStore.h"

#include <QByteArray>
#include <chrono>
#include <memory>

namespace forkscope::coord {
class PrefixCheckpoint;
}

namespace forkscope::store::pg {

class PgConnection;
class PgContractReader;
class PgCommitRows;
class PgCoordination;

// The engine's store on a shared PostgreSQL database (indexer::IndexStore), for any number
// of writers on one environment (docs/postgresql.md): blocks and logs go in with COPY, a
// range's rows and its "done" mark commit together, and the checkpoint moves only across
// the contiguous prefix of finished ranges whose hashes chain on, in the transaction that
// finishes the range that completes it, with the balances of the blocks it crosses
// (PgBalances.h). The contract's views show only what the checkpoint covers.
//
// Before anything is indexed the checkpoint row sits just below the first block with that
// block's parent hash, so the first range chains on from it like every other; checkpoint()
// and the `indexer_checkpoints` view call that nothing.
class PgIndexStore : public indexer::IndexStore
{
public:
    // Opens a connection named "forkscope OWNER" (so pg_stat_activity shows who holds which
    // lock) and ensures the contract; throws PgError.
    PgIndexStore(const QString& url, QString owner, std::chrono::milliseconds rangeLease);
    ~PgIndexStore() override;

    QString describe() const override;
    QString restoredSurface() const override { return m_restored; }
    indexer::Environment open(const indexer::EnvironmentClaim& claim) override;
    void requireLive() override;
    QStringList otherSources() override;
    std::optional<indexer::Checkpoint> checkpoint() override;
    void markVerified(const indexer::Checkpoint& cp) override;
    bool adoptContracts(const QString& contractSet) override;
    indexer::CommitStats commit(const indexer::VerifiedBatch& batch,
                                const indexer::CommitPlacement& placement) override;
    indexer::RollbackResult rollBack(const indexer::Checkpoint& cp, const indexer::ForkPoint& fork,
                                     const QString& reason) override;
    indexer::RepairOutcome repair(const indexer::Checkpoint& cp,
                                  const std::optional<indexer::ForkPoint>& fork,
                                  std::uint64_t from) override;
    QList<indexer::AddedSource> addedSources() override;
    bool addSource(const chain::Address& address, std::uint64_t startBlock,
                   const QString& factoryRule) override;
    indexer::CommitStats commitSource(const indexer::VerifiedBatch& batch,
                                      const indexer::AddedSource& source) override;
    indexer::ArchivedSource archiveSource(const chain::Address& address, const QString& contracts,
                                          const QString& archivedSet) override;
    void joinSource(const indexer::AddedSource& source, const indexer::Checkpoint& cp,
                    const QString& contracts) override;
    QList<wire::ChildCreation> children() override;
    qint64 childCount() override;
    void setOrphanRetention(qint64 rollbacks) override { m_orphanRetention = rollbacks; }
    int recordSightings(const QList<forktree::NodeSighting>& heads) override;
    std::optional<chain::Hash32> storedHash(std::uint64_t block) override;
    QSet<indexer::LogAt> storedLogs(std::uint64_t from, std::uint64_t to) override;
    qint64 recordAlert(const QString& node, std::uint64_t fromBlock, std::uint64_t toBlock,
                       const QString& what, const QString& kind) override;
    QList<indexer::CompletenessAlert> openAlerts() override;
    int resolveAlerts(const QList<qint64>& ids, const QString& resolution) override;
    qint64 outboxPendingAtOrBelow(std::uint64_t height) override;
    indexer::Coordination& coordination() override;
    ContractReader& reader() override;

    PgConnection& connection() { return *m_db; }
    // About how many Transfers a backfill leaves for `token_balances` to add before it folds
    // them into balance_store (PgBalances.h); 0 folds at every checkpoint move.
    void setBalanceFoldAfter(qint64 transfers) { m_foldAfter = transfers; }

private:
    // The checkpoint row as it is stored, the one below the first block included.
    struct Row
    {
        qint64 number = 0;
        chain::Hash32 hash;
        qint64 startBlock = 0;
        QString policyVersion;
        int generation = 0;
        QString verifiedAt;
        QString contracts;
        qint64 version = 0;
    };
    std::optional<Row> readRow(bool forUpdate);
    void requireOpen() const;
    // Moves the checkpoint `from` (locked) across the finished prefix above it, with the
    // balances of the blocks crossed (folded now, or `foldLater` once the transaction
    // commits) and the fetch alerts they settle. Inside the caller's transaction. Returns
    // where it stands after.
    qint64 advance(const Row& from, const BatchBalances& batch, bool atTheHead,
                   qint64 batchTransfers, std::optional<PgBalanceFolds::Later>& foldLater);
    // Folds the Transfers `row` (locked) leaves to the views into balance_store: first, in
    // every transaction that writes balances or rows at or below the checkpoint otherwise
    // than by moving it (a rollback, an added contract's rows, an archive).
    void foldBalances(const Row& row);
    // rollBack's work inside the caller's transaction (a repair adds to it).
    indexer::RollbackResult undoAbove(const indexer::Checkpoint& cp, const indexer::ForkPoint& fork,
                                      const QString& reason);
    // A Transfer delivered before a reorg and indexed again in the very same block (same
    // hash, same log index) renders the key its delivered row kept: that row names the log
    // again and no second, pending row is left. Returns the rows that were found again.
    qint64 keepDeliveredKeys(std::uint64_t first, std::uint64_t last);
    // The children a batch's creation events announce, in the caller's transaction; returns
    // how many were new.
    qint64 insertChildren(const QList<wire::ChildCreation>& children);
    // The batch's rows, COPYed into the open transaction. Blocks another writer stored
    // meanwhile (it took this writer's range over while this one was slow, or planned and
    // stored them while this one followed the head) are CheckpointMovedError, the
    // transaction rolled back: look again, as for any move of the checkpoint.
    void copyRows(const PgCommitRows& rows, std::uint64_t first, std::uint64_t last);

    std::unique_ptr<PgConnection> m_db;
    QString m_url; // for the balance folds' own connection
    QString m_restored;
    QString m_owner;
    std::chrono::milliseconds m_lease;
    QString m_environmentId;
    QString m_sourceId;
    QString m_contracts;
    QByteArray m_env;
    QByteArray m_chain;
    QByteArray m_source;
    std::uint64_t m_chainId = 0;
    qint64 m_orphanRetention = forktree::kDefaultOrphanRetention;
    qint64 m_foldAfter = StoreOptions{}.balanceFoldAfter;
    std::unique_ptr<PgBalanceFolds> m_folds;
    std::unique_ptr<PgCoordination> m_coordination;
    std::unique_ptr<coord::PrefixCheckpoint> m_checkpoint;
    std::unique_ptr<PgContractReader> m_reader;
};

} // namespace forkscope::store::pg
