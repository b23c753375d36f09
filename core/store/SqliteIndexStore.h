#pragma once

#include "Database.h"
#include "forktree/ForkTreeLimits.h"
#include "indexer/IndexStore.h"

#include <memory>

namespace forkscope::indexer {
class BackfillLedger;
class BalanceBook;
class BatchCommitter;
class CheckpointStore;
class ReorgRollback;
} // namespace forkscope::indexer

namespace forkscope::store {

class ContractReader;
class SingleWriter;

// The engine's store on a SQLite file (indexer::IndexStore): the binary tables behind the
// contract's views (store/BinaryContract.h), balances kept per commit (BalanceBook), the
// rendered outbox (store/PendingOutboxContract.h), one writer per file. The parts it puts
// together are the SQLite tables' own classes: CheckpointStore, BatchCommitter,
// ReorgRollback, BalanceBook, BackfillLedger, CompletenessAlerts, EnvironmentRegistry.
class SqliteIndexStore : public indexer::IndexStore
{
public:
    // Opens (creating and migrating) the file; throws StoreError.
    static std::unique_ptr<SqliteIndexStore> open(const QString& path,
                                                  const Database::Options& options);
    // On a connection the caller keeps (a test, a repair that opened the file itself).
    explicit SqliteIndexStore(Database& db);
    ~SqliteIndexStore() override;

    QString describe() const override { return m_db.path(); }
    QString restoredSurface() const override { return m_db.restoredSurface(); }
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
    void setOrphanRetention(qint64 rollbacks) override;
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

    Database& database() { return m_db; }
    // Rollbacks removing at least this many Transfers plan the balances on a second
    // connection (ReorgRollback::kPlanAsideFrom); tests and the bench take both paths.
    void setPlanAsideFrom(qint64 transfers);

private:
    SqliteIndexStore(std::unique_ptr<Database> owned);
    void requireOpen() const;

    std::unique_ptr<Database> m_owned;
    Database& m_db;
    QString m_env;
    QString m_source;
    std::uint64_t m_chainId = 0;
    std::unique_ptr<indexer::CheckpointStore> m_checkpoints;
    std::unique_ptr<indexer::BalanceBook> m_balances;
    std::unique_ptr<indexer::BatchCommitter> m_committer;
    std::unique_ptr<indexer::ReorgRollback> m_rollback;
    std::unique_ptr<indexer::BackfillLedger> m_ledger;
    std::unique_ptr<SingleWriter> m_coordination;
    std::unique_ptr<ContractReader> m_reader;
    std::optional<qint64> m_planAsideFrom;
    qint64 m_orphanRetention = forktree::kDefaultOrphanRetention;
    bool m_ledgerOpen = false;      // some backfill range may still be open
    bool m_openFetchAlerts = false; // a range indexing stopped at is still unresolved
};

} // namespace forkscope::store
