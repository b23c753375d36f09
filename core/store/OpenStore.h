#pragma once

#include "forktree/ForkTreeLimits.h"

#include <QString>
#include <chrono>
#include <cstdint>
#include <memory>

namespace forkscope::indexer {
class IndexStore;
}
namespace forkscope::outbox {
class OutboxQueue;
}
namespace forkscope::lab {
class EnvironmentBook;
}

namespace forkscope::store {

// How a writer opens its store.
struct StoreOptions
{
    // The one connection that writes in bulk (the indexer): SQLite's large page cache and
    // WAL checkpoints on a thread of their own (Database::Options::bulkWriter).
    bool bulkWriter = true;
    // This writer's name among the writers of a shared database (its ranges' owner, and the
    // name its sessions show in pg_stat_activity); empty: HOST/PID.
    QString owner;
    // How long a backfill range stays this writer's without a renewal (a shared database).
    std::chrono::milliseconds rangeLease{30000};
    // The database must exist already (a repair has nothing to repair in a new file).
    bool existing = false;
    // No other process may have the file open (a repair must not run under an indexer). A
    // shared database's writers decide that among themselves instead (Coordination).
    bool alone = false;
    // Rollbacks whose removed blocks the fork tree keeps (IndexStore::setOrphanRetention).
    qint64 orphanRetention = forktree::kDefaultOrphanRetention;
    // A shared database: about how many Transfers a backfill leaves for `token_balances` to
    // sum on read before it folds them into the stored balances (0: at every checkpoint
    // move). More means fewer rewrites of every holder's row, and slower balance reads
    // while the backfill runs.
    qint64 balanceFoldAfter = 100'000;
};

// The one place that tells the stores apart by their URL: a postgresql:// (or postgres://)
// URL opens a shared PostgreSQL database, anything else a SQLite file. Everything above
// this works on indexer::IndexStore. Throws StoreError (PgError) naming the database.
std::unique_ptr<indexer::IndexStore> openIndexStore(const QString& url,
                                                    const StoreOptions& options = {});

// The outbox of one environment on its own connection (delivery has a thread of its own).
std::unique_ptr<outbox::OutboxQueue> openOutboxQueue(const QString& url,
                                                     const QString& environmentId,
                                                     std::uint64_t chainId,
                                                     const StoreOptions& options = {});

// The environments of an existing database, as a lab reset changes them. `restoredSurface`
// receives the line that says what opening restored of the read surface (empty: nothing).
// Throws StoreError (PgError) naming the database; a file that is not there is refused
// (archiving needs a history to archive: a missing file is a typo, not a new lab).
std::unique_ptr<lab::EnvironmentBook> openEnvironmentBook(const QString& url,
                                                          QString* restoredSurface);

// The database a --db value names, for messages: a file path as given, a URL without its
// password.
QString describeDatabase(const QString& url);

// HOST/PID: a writer's default name.
QString defaultOwner();

} // namespace forkscope::store
