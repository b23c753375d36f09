#pragma once

// A SQLite file with one environment and the indexer's own committer and rollback on it, no
// node: synthetic blocks of ERC-20 Transfers, and a sink that records what it is given. For
// the suites on the store's outbox and rollback (tst_outboxstore, tst_renderedoutbox).
#include "chain/Keccak.h"
#include "chain/U256.h"
#include "indexer/BalanceBook.h"
#include "indexer/BatchCommitter.h"
#include "indexer/CheckpointStore.h"
#include "indexer/EnvironmentRegistry.h"
#include "indexer/ReorgRollback.h"
#include "outbox/OutboxSink.h"
#include "store/Database.h"

#include <QSqlQuery>
#include <QUrl>

namespace forkscope::test {

inline const QString kEnv = QStringLiteral("env");
inline constexpr std::uint64_t kChain = 31337;

inline chain::Hash32 hashOf(const QByteArray& seed)
{
    return chain::keccak256(seed);
}

inline chain::Hash32 topicOf(const QByteArray& seed)
{
    return chain::Hash32::fromBytes(QByteArray(12, '\0') + hashOf(seed).toByteArray().right(20),
                                    "topic");
}

inline chain::BlockHeader header(std::uint64_t number, const QByteArray& name,
                                 const QByteArray& parent)
{
    chain::BlockHeader h;
    h.number = number;
    h.hash = hashOf(name);
    h.parentHash = hashOf(parent);
    h.timestamp = 1'700'000'000 + number;
    return h;
}

// The token's Transfer of `value` from `from` to `to` (topics; the zero hash mints) at
// `logIndex` of `block`, in the transaction named `tx`.
inline chain::LogEntry transferLog(const chain::BlockHeader& block, std::uint64_t logIndex,
                                   const chain::Hash32& from, const chain::Hash32& to, int value,
                                   const QByteArray& tx)
{
    chain::LogEntry log;
    log.address = chain::Address::fromBytes(hashOf("token").toByteArray().right(20), "token");
    log.topics = {chain::keccak256("Transfer(address,address,uint256)"), from, to};
    log.data = chain::u256::toBigEndian32(chain::U256(value));
    log.blockNumber = block.number;
    log.blockHash = block.hash;
    log.transactionHash = hashOf(tx);
    log.logIndex = logIndex;
    return log;
}

// Block 1 ("common") and a block 2 named `branch` holding one Transfer per value, log index
// 0, 1, ...
inline indexer::VerifiedBatch branchOf(const QByteArray& name, const QList<int>& values)
{
    indexer::VerifiedBatch b;
    b.blocks << header(1, "common", "genesis") << header(2, name, "common");
    for (int i = 0; i < values.size(); ++i)
        b.logs << transferLog(b.blocks.last(), std::uint64_t(i), topicOf("alice"), topicOf("bob"),
                              values[i], name + "-tx" + QByteArray::number(i));
    return b;
}

inline indexer::VerifiedBatch branch(const QByteArray& name, int value)
{
    return branchOf(name, {value});
}

struct RecordingSink : outbox::OutboxSink
{
    QList<outbox::OutboxRow> sent;
    QString describe() const override { return QStringLiteral("recording"); }
    int maxBatch() const override { return 100; }
    outbox::DeliveryResult deliver(const QList<outbox::OutboxRow>& rows) override
    {
        sent << rows;
        return {outbox::DeliveryResult::Outcome::Delivered, QString()};
    }
};

// A fresh environment with the indexer's own committer and rollback on it.
struct StoreLab
{
    explicit StoreLab(const QString& path)
        : db(openRegistered(path)), checkpoints(*db, kEnv, kChain, "default"),
          balances(*db, kEnv, kChain), committer(*db, kEnv, kChain, checkpoints, balances),
          rollback(*db, kEnv, kChain, "default", checkpoints, balances)
    {
    }
    static std::unique_ptr<store::Database> openRegistered(const QString& path)
    {
        auto db = store::Database::open(path);
        indexer::EnvironmentRegistry(*db).openForIndexing(kEnv, kChain, hashOf("genesis"),
                                                          QUrl("http://127.0.0.1:1"));
        return db;
    }
    std::unique_ptr<store::Database> db;
    indexer::CheckpointStore checkpoints;
    indexer::BalanceBook balances;
    indexer::BatchCommitter committer;
    indexer::ReorgRollback rollback;
};

// The outbox as the contract reads it: "key|payload|delivered?" per row: stored rows in id
// order, then rendered ones (no id yet) by block and key.
inline QStringList outboxRows(store::Database& db)
{
    QSqlQuery q = db.run("SELECT event_key, payload, delivered_at IS NOT NULL FROM outbox "
                         "ORDER BY id IS NULL, id, block_number, event_key");
    QStringList rows;
    while (q.next())
        rows << q.value(0).toString() + '|' + q.value(1).toString() + '|' + q.value(2).toString();
    return rows;
}

} // namespace forkscope::test
