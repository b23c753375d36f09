#pragma once

#include "AbsenceCheck.h"
#include "AddedSource.h"
#include "ArchivedSource.h"
#include "Checkpoint.h"
#include "CompletenessAlert.h"
#include "Coordination.h"
#include "EnvironmentRegistry.h"
#include "ForkFinder.h"
#include "RollbackResult.h"
#include "VerifiedBatch.h"
#include "chain/Address.h"
#include "forktree/ForkTreeWindow.h"

#include <QList>
#include <QSet>
#include <QString>
#include <QUrl>
#include <optional>

namespace forkscope::store {
class ContractReader;
}

namespace forkscope::indexer {

// What the engine claims when it opens an environment: the chain its node serves, and what
// it indexes. A store refuses (and writes nothing) when the environment was recorded for
// another chain, other contracts or another ABI.
struct EnvironmentClaim
{
    QString environmentId;
    QString sourceId;
    std::uint64_t chainId = 0;
    chain::Hash32 genesis;
    QUrl rpcUrl;
    QList<chain::Address> contracts;
    QStringList factoryRules; // wire::FactorySource::ruleText of each factory
    QString abiDigest;        // empty: no ABI
};

// How a commit relates to the checkpoint. The checkpoint the batch continues (nullopt: the
// environment's first batch, starting at `startBlock`); a backfill range the batch
// completes (its "done" mark commits with its rows). A claimed range need not start at the
// checkpoint: with several writers ranges finish out of order, and the checkpoint moves
// only across the finished prefix whose hashes chain on.
struct CommitPlacement
{
    std::optional<Checkpoint> expected;
    std::optional<RangeClaim> range;
    bool rangeWhole = false; // the batch is the whole range (SQLite marks only those done)
    std::uint64_t startBlock = 0;
    QString policyVersion;
    int generation = 0;
};

// What a repair's rollback did beyond the rollback itself.
struct RepairOutcome
{
    RollbackResult rollback;
    qint64 balancesRebuilt = 0; // balances that did not equal their Transfers, rebuilt
    int alertsResolved = 0;     // open alerts from the repaired block on
};

// The one store interface of the engine (docs/design.md, "The engine and its stores"): the
// indexer, the repair and the app write through it, whichever database the URL names. A
// store is opened for one database and bound to one environment by open(); every method
// after that is about that environment. Like graph-node's WritableStore, the engine hands it
// finished work (a verified batch with its checkpoint move, a fork point to roll back to)
// and each call is one transaction: the store decides how to write it, never whether the
// chain is right.
//
// Implementations: store::SqliteIndexStore (one writer per file, the rendered outbox),
// store::pg::PgIndexStore (several writers, COPY, views cut at the checkpoint).
class IndexStore
{
public:
    virtual ~IndexStore();

    // The database for messages: a file path, or a URL without its password.
    virtual QString describe() const = 0;
    // The line that says what opening the database restored of the contract's read surface
    // (a view dropped or redefined by hand), or empty.
    virtual QString restoredSurface() const = 0;

    // Creates the environment, or checks that it is still the claim's chain, contracts and
    // ABI, and binds the store to it. Throws ChainResetError, ContractSetChangedError,
    // EnvironmentArchivedError (nothing written then); StoreError.
    virtual Environment open(const EnvironmentClaim& claim) = 0;
    // Throws EnvironmentArchivedError when the environment was archived (a lab reset) since.
    virtual void requireLive() = 0;
    // Sources other than the claim's already indexing the environment (one per environment).
    virtual QStringList otherSources() = 0;

    // nullopt: nothing indexed yet (an absent row, never a fake block).
    virtual std::optional<Checkpoint> checkpoint() = 0;
    // Records that the checkpoint's hash was just confirmed on the node (verified_at).
    virtual void markVerified(const Checkpoint& cp) = 0;
    // A checkpoint written before it recorded its contract set takes this run's; returns
    // false if it already names one.
    virtual bool adoptContracts(const QString& contractSet) = 0;

    // Blocks, logs, Transfers, balances, outbox rows, the range's mark and the checkpoint's
    // move, in ONE transaction (docs/design.md, "Data and checkpoint commit together"); the
    // completeness alerts the committed blocks settle are resolved in it. Throws
    // CheckpointMovedError (another writer moved it, or took the range over: nothing
    // written), EnvironmentArchivedError, StoreError.
    virtual CommitStats commit(const VerifiedBatch& batch, const CommitPlacement& placement) = 0;
    // Undoes everything above `fork` from `cp` in ONE transaction, records the reorg and its
    // diff, and moves the checkpoint back (docs/design.md, "Reorgs"). Throws
    // CheckpointMovedError when `cp` is no longer the checkpoint (nothing changed).
    virtual RollbackResult rollBack(const Checkpoint& cp, const ForkPoint& fork,
                                    const QString& reason) = 0;
    // A repair from block `from` (docs/verify-and-repair.md): with `fork`, rollBack with
    // reason "repair" and, in the same transaction, every balance that is not the sum of the
    // Transfers that remain rebuilt; either way the open alerts from `from` on resolved (their
    // range is fetched again). Throws as rollBack.
    virtual RepairOutcome repair(const Checkpoint& cp, const std::optional<ForkPoint>& fork,
                                 std::uint64_t from) = 0;

    // Contracts and factories added to the environment after it was indexed
    // (docs/sources.md), in address order, whatever their state.
    virtual QList<AddedSource> addedSources() = 0;
    // Records `address` as pending from `startBlock`, a factory with its rule (empty: a plain
    // contract); nothing else is written. False when it was recorded already.
    virtual bool addSource(const chain::Address& address, std::uint64_t startBlock,
                           const QString& factoryRule = {}) = 0;
    // A batch of an added source's backfill: its logs, Transfers, balances and outbox rows
    // (a factory's: with the children the batch creates and their rows) and its own
    // checkpoint's move to the batch's last block, in ONE transaction. The
    // batch's blocks are the environment's, stored at or below its checkpoint. Throws
    // CheckpointMovedError, nothing written, when the source's checkpoint is no longer
    // `source.checkpoint` or the batch's last block is no longer the stored one (a rollback
    // meanwhile).
    virtual CommitStats commitSource(const VerifiedBatch& batch, const AddedSource& source) = 0;
    // The pending `source`, whose checkpoint is the environment's `cp`, joins the
    // environment's contract set, which becomes `contracts` (contractSetText), in ONE
    // transaction. Throws CheckpointMovedError when either checkpoint moved.
    virtual void joinSource(const AddedSource& source, const Checkpoint& cp,
                            const QString& contracts) = 0;
    // Archives `address`, a contract or a factory of the environment (joined, pending, or of
    // the first set), in ONE transaction: its logs, Transfers, balances, outbox rows and
    // backfill records, and a factory's children with all of theirs, move under a new
    // archived environment of the same chain (with a copy of the checkpoint and of the blocks
    // its logs are in) that indexes `archivedSet` (contractSetText), so every row stays
    // readable and none is live; the contract set becomes `contracts`. Nothing is deleted.
    // Throws IndexerError when the environment has no checkpoint, EnvironmentArchivedError,
    // StoreError.
    virtual ArchivedSource archiveSource(const chain::Address& address, const QString& contracts,
                                         const QString& archivedSet) = 0;

    // The children of the source's factories stored (factory_children), oldest first, and
    // how many there are (the engine reloads them when another writer changed them).
    virtual QList<wire::ChildCreation> children() = 0;
    virtual qint64 childCount() = 0;

    // The stored hash of a block at or below the checkpoint, nullopt when none is stored.
    virtual std::optional<chain::Hash32> storedHash(std::uint64_t block) = 0;
    // The stored logs of blocks `from`..`to` (the absence check's window).
    virtual QSet<LogAt> storedLogs(std::uint64_t from, std::uint64_t to) = 0;

    // completeness_alerts (CompletenessAlerts.h): in their own transaction.
    virtual qint64 recordAlert(const QString& node, std::uint64_t fromBlock, std::uint64_t toBlock,
                               const QString& what, const QString& kind) = 0;
    virtual QList<CompletenessAlert> openAlerts() = 0;
    virtual int resolveAlerts(const QList<qint64>& ids, const QString& resolution) = 0;

    // The fork tree (docs/design.md, "The fork tree"): every rollback keeps the headers of the
    // blocks it removes (orphaned_blocks) in its transaction, for the latest `rollbacks`
    // rollbacks (forktree::kDefaultOrphanRetention unless set; 0 keeps none).
    virtual void setOrphanRetention(qint64 rollbacks) = 0;
    // What the nodes report as their heads (node_sightings): each head whose hash is not its
    // node's last stored one is stored, in one transaction; a node keeps its latest heads
    // within the same retention. Returns how many were stored.
    virtual int recordSightings(const QList<forktree::NodeSighting>& heads) = 0;

    // Outbox rows at or below `height` not yet delivered or refused (what --exit-when-synced
    // waits for).
    virtual qint64 outboxPendingAtOrBelow(std::uint64_t height) = 0;

    // Who does what among the writers of this environment; on this store's connection, so a
    // range's mark commits with its rows.
    virtual Coordination& coordination() = 0;
    // The contract's read surface on the same connection (it sees this writer's commits).
    virtual store::ContractReader& reader() = 0;
};

} // namespace forkscope::indexer
