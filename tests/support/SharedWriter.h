#pragma once

// Writers of one shared PostgreSQL environment inside a test process, and the check of what
// their views show against the node (tst_sharedbackfill, tst_balancefolds).
#include "IndexerLab.h"
#include "indexer/Indexer.h"
#include "rpc/JsonRpcClient.h"
#include "store/OpenStore.h"
#include "store/pg/PgConnection.h"

#include <QSet>
#include <QString>
#include <memory>
#include <vector>

namespace forkscope::test {

// A writer of a shared environment in this process: the engine's own Indexer on its own
// store, stepped round by round by the test, in ranges of 4 blocks with one fetch thread
// (two ranges in hand).
struct InProcessWriter
{
    InProcessWriter(IndexerLab& lab, const QString& db, const QString& env, const QString& owner,
                    std::chrono::milliseconds lease = std::chrono::milliseconds(30000),
                    qint64 balanceFoldAfter = store::StoreOptions{}.balanceFoldAfter,
                    const QList<chain::Address>& contracts = {})
        : store(store::openIndexStore(db, storeOptions(owner, lease, balanceFoldAfter))),
          client(lab.devnet().url()), eth(client),
          indexer(config(lab, db, env, owner, contracts), *store, eth)
    {
    }
    static store::StoreOptions storeOptions(const QString& owner, std::chrono::milliseconds lease,
                                            qint64 balanceFoldAfter)
    {
        store::StoreOptions o;
        o.owner = owner;
        o.rangeLease = lease;
        o.balanceFoldAfter = balanceFoldAfter;
        return o;
    }
    // `contracts`: the lab's if none.
    static indexer::IndexerConfig config(IndexerLab& lab, const QString& db, const QString& env,
                                         const QString& owner,
                                         const QList<chain::Address>& contracts = {})
    {
        indexer::IndexerConfig c;
        c.rpcUrl = lab.devnet().url();
        c.dbPath = db;
        c.environmentId = env;
        c.contracts = contracts.isEmpty() ? lab.contracts() : contracts;
        c.batchSize = 4;
        c.fetchWorkers = 1;
        c.owner = owner;
        return c;
    }
    bool synced() const { return indexer.status().state == indexer::IndexerStatus::State::Synced; }

    std::unique_ptr<indexer::IndexStore> store;
    rpc::JsonRpcClient client;
    rpc::EthClient eth;
    indexer::Indexer indexer;
};

// Steps every writer in turn, round after round, until all say synced (at most `rounds`).
inline bool stepUntilSynced(const std::vector<InProcessWriter*>& writers, int rounds = 40)
{
    for (int round = 0; round < rounds; ++round) {
        bool all = true;
        for (InProcessWriter* w : writers)
            all = w->indexer.step().state == indexer::IndexerStatus::State::Synced && all;
        if (all)
            return true;
    }
    return false;
}

// The environment's stored logs through the hex view, each as "block/index/<column>", and
// how many rows there were (a set hides a row stored twice).
inline std::pair<QSet<QString>, int> storedLogKeys(store::pg::PgConnection& db, const QString& env,
                                                   const char* column)
{
    const QByteArray name = QByteArray("t_log_keys_") + column;
    const QByteArray sql = QByteArray("SELECT block_number, log_index, ") + column +
                           " FROM logs WHERE environment_id = $1";
    const auto stored = db.run(name.constData(), sql.constData(), {env.toUtf8()});
    QSet<QString> keys;
    for (int i = 0; i < stored.rows(); ++i)
        keys.insert(QStringLiteral("%1/%2/%3")
                        .arg(stored.int64(i, 0))
                        .arg(stored.int64(i, 1))
                        .arg(QString::fromUtf8(stored.text(i, 2))));
    return {keys, stored.rows()};
}

// A fresh anvil with two tokens (AAA, BBB): 60 blocks of Transfers, then 60 empty blocks
// up to the head.
std::unique_ptr<IndexerLab> twoTokenChain();

// What the views show for `env` against the node's own logs up to `head`: every log once
// (block, index, tx), the per-token Transfer sums, every holder's balance. Fails the
// running test (QVERIFY/QCOMPARE) where they differ.
void checkSharedAgainstNode(IndexerLab& lab, store::pg::PgConnection& db, const QString& env,
                            qint64 head);

} // namespace forkscope::test
