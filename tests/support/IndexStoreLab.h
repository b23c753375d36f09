#pragma once

// StoreLab's environment on either store, written through the engine's one store interface
// (indexer::IndexStore, opened by store::openIndexStore) and read back through the store's
// contract surface: the same test code for a SQLite file and a PostgreSQL database. For the
// suites on the store's outbox and rollback (tst_outboxstore).
#include "EnvironmentDump.h"
#include "StoreLab.h"
#include "indexer/IndexStore.h"
#include "indexer/ReorgReason.h"
#include "store/ContractReader.h"
#include "store/OpenStore.h"
#include "store/SqliteIndexStore.h"
#include "store/pg/PgConnection.h"

namespace forkscope::test {

struct IndexStoreLab
{
    // `url`: a new SQLite file or an empty PostgreSQL database; environment kEnv on it.
    explicit IndexStoreLab(QString url) : db(std::move(url)), index(store::openIndexStore(db))
    {
        indexer::EnvironmentClaim claim;
        claim.environmentId = kEnv;
        claim.sourceId = QStringLiteral("default");
        claim.chainId = kChain;
        claim.genesis = hashOf("genesis");
        claim.rpcUrl = QUrl(QStringLiteral("http://127.0.0.1:1"));
        index->open(claim);
    }

    bool onPostgres() const { return store::pg::isPostgresUrl(db); }

    // The batch's blocks above the checkpoint, which they continue (the first batch starts
    // at block 1): StoreLab's branches all start at block 1.
    indexer::CommitStats commit(indexer::VerifiedBatch batch)
    {
        indexer::CommitPlacement p;
        p.expected = index->checkpoint();
        p.startBlock = 1;
        p.policyVersion = QStringLiteral("test");
        p.generation = 1;
        if (p.expected) {
            const std::uint64_t cp = p.expected->number;
            batch.blocks.removeIf([cp](const chain::BlockHeader& b) { return b.number <= cp; });
            batch.logs.removeIf([cp](const chain::LogEntry& l) { return l.blockNumber <= cp; });
        }
        return index->commit(batch, p);
    }
    // Everything above `fork` rolled back from the checkpoint, as a reorg does.
    indexer::RollbackResult rollBack(const indexer::ForkPoint& fork)
    {
        return index->rollBack(*index->checkpoint(), fork, indexer::reorg_reason::kParentMismatch);
    }

    // Each row `sql` returns through the contract's surface, its columns as text joined by
    // '|' (NULL as "NULL").
    QStringList rows(const QString& sql, const QVariantList& args = {})
    {
        return queryRows(index->reader(), sql, args);
    }
    // The outbox as the contract reads it: "key|payload|delivered?" per row: stored rows in
    // id order, then rendered ones (no id yet) by block and key.
    QStringList outboxRows()
    {
        return rows(QStringLiteral("SELECT event_key, payload, CASE WHEN delivered_at IS NULL "
                                   "THEN 0 ELSE 1 END FROM outbox ORDER BY id IS NULL, id, "
                                   "block_number, event_key"));
    }
    // A statement a user runs by hand, on the store's own connection (SQLite: one writer per
    // file) or on one of its own (PostgreSQL).
    void exec(const QString& sql)
    {
        if (onPostgres())
            store::pg::PgConnection::open(db)->exec(sql.toUtf8().constData());
        else
            dynamic_cast<store::SqliteIndexStore&>(*index).database().run(sql);
    }

    QString db;
    std::unique_ptr<indexer::IndexStore> index;
};

} // namespace forkscope::test
