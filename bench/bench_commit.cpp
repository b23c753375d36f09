// Storage floor: what the committing thread alone costs for the indexer workload.
//
// Builds the same shape of data as forkscope_bench_index (2,000 blocks, 3 tokens x 17
// Transfers per block over 5,000 holders) in memory, with no node and no JSON, and commits
// it batch by batch through the indexer's own BatchCommitter into a fresh database, the way
// a backfill does. The time it prints is a lower bound for a full sync on this machine with
// this storage contract: no fetcher, however fast, can make the sync quicker than this.
//
//   build/bench/forkscope_bench_commit [--blocks 2000] [--per-tx 17] [--tokens 3]
//                                      [--holders 5000] [--batch-size 200] [--runs 1]
//                                      [--inline-checkpoints] [--out FILE]
//                                      [--rollback DEPTH] [--pattern spray|pairs]
//                                      [--plan-aside-from N]
//
// --rollback DEPTH then times a ReorgRollback of the top DEPTH blocks (depth
// 64 over 10,000 Transfers, e.g. --blocks 2000 --per-tx 53 --rollback 64), the whole
// undo in its one transaction: rows deleted, balances recomputed, diff items recorded.
// Twice: on a freshly opened connection, and again after a follower's commits of the same
// blocks on that connection. --plan-aside-from N: where the rollback starts planning the
// balances on a second connection (ReorgRollback::setPlanAsideFrom), to compare both ways.
#include "BenchWorkload.h"
#include "chain/Keccak.h"
#include "indexer/BalanceBook.h"
#include "indexer/BatchCommitter.h"
#include "indexer/CheckpointStore.h"
#include "indexer/EnvironmentRegistry.h"
#include "indexer/ReorgRollback.h"
#include "store/Database.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QUrl>
#include <cstdio>
#include <sys/resource.h>
#include <tuple>

using namespace forkscope;

namespace {

chain::Hash32 hashOf(const QByteArray& seed)
{
    return chain::keccak256(seed);
}

chain::Address addressOf(const QByteArray& seed)
{
    return chain::Address::fromBytes(hashOf(seed).toByteArray().right(20), QStringLiteral("seed"));
}

chain::Hash32 topicOf(const chain::Address& a)
{
    return chain::Hash32::fromBytes(QByteArray(12, '\0') + a.toByteArray(),
                                    QStringLiteral("topic"));
}

// Who sends to whom. `Spray` is what forkscope_bench_index's chain holds (DemoToken's
// spray(): one sender pays holder after holder in rotation, 1 + i % 7 tokens each), so a
// batch of 100 blocks touches 5,100 balances. `Pairs` is the pattern of the earliest
// figures (bench/README.md's history): holder to holder, cycling every 5 blocks, so a batch
// touches only about 500 balances and the floor came out a third too low.
enum class Pattern { Spray, Pairs };

// One batch of `blocks` consecutive blocks, each with `perTx` Transfers per token.
indexer::VerifiedBatch makeBatch(std::uint64_t first, int blocks, int perTx,
                                 const QList<chain::Address>& tokens,
                                 const QList<chain::Address>& holders, chain::Hash32& parent,
                                 Pattern pattern)
{
    static const chain::Address sender = addressOf("sender");
    static const chain::Hash32 transferTopic =
        chain::eventTopic(QStringLiteral("Transfer(address,address,uint256)"));
    indexer::VerifiedBatch batch;
    for (int b = 0; b < blocks; ++b) {
        chain::BlockHeader h;
        h.number = first + std::uint64_t(b);
        h.hash = hashOf("block" + QByteArray::number(h.number));
        h.parentHash = parent;
        h.timestamp = 1'700'000'000 + h.number;
        parent = h.hash;
        batch.blocks.append(h);
        std::uint64_t logIndex = 0;
        for (qsizetype t = 0; t < tokens.size(); ++t) {
            const chain::Hash32 tx =
                hashOf("tx" + QByteArray::number(h.number) + ':' + QByteArray::number(t));
            for (int i = 0; i < perTx; ++i) {
                const std::uint64_t n = h.number * 1000 + std::uint64_t(t) * 100 + std::uint64_t(i);
                // spray()'s offset: perTx per token transaction, the tokens in turn.
                const std::uint64_t offset =
                    ((h.number - 1) * std::uint64_t(tokens.size()) + std::uint64_t(t)) *
                        std::uint64_t(perTx) +
                    std::uint64_t(i);
                const auto holder = [&](std::uint64_t k) {
                    return topicOf(holders[qsizetype(k % std::uint64_t(holders.size()))]);
                };
                chain::LogEntry log;
                log.address = tokens[t];
                if (pattern == Pattern::Spray)
                    log.topics = {transferTopic, topicOf(sender), holder(offset)};
                else
                    log.topics = {transferTopic, holder(n), holder(n * 7 + 3)};
                QByteArray value(32, '\0');
                value[31] = char(pattern == Pattern::Spray ? 1 + i % 7 : 1 + i);
                log.data = value;
                log.blockNumber = h.number;
                log.blockHash = h.hash;
                log.transactionHash = tx;
                log.transactionIndex = std::uint64_t(t);
                log.logIndex = logIndex++;
                batch.logs.append(log);
            }
        }
    }
    return batch;
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.addHelpOption();
    const bench::WorkloadOptions workload(QStringLiteral("Blocks per transaction."));
    workload.addTo(p);
    const QCommandLineOption runsOpt(QStringLiteral("runs"),
                                     QStringLiteral("Repeat the whole commit N times."),
                                     QStringLiteral("N"), QStringLiteral("1"));
    const QCommandLineOption inlineOpt(
        QStringLiteral("inline-checkpoints"),
        QStringLiteral("Let SQLite checkpoint the WAL inside COMMIT (as before "
                       "the background WalCheckpointer)."));
    const QCommandLineOption outOpt(
        QStringLiteral("out"),
        QStringLiteral("Keep the (last run's) database at FILE, a new path "
                       "(e.g. for forkscope_bench_open)."),
        QStringLiteral("FILE"));
    const QCommandLineOption rollbackOpt(
        QStringLiteral("rollback"),
        QStringLiteral("After the commit, time a rollback of the top DEPTH blocks."),
        QStringLiteral("DEPTH"));
    const QCommandLineOption patternOpt(
        QStringLiteral("pattern"),
        QStringLiteral("Who pays whom: spray (one sender to holder after holder, as "
                       "forkscope_bench_index's chain) or pairs (holder to holder, more "
                       "distinct balances per block)."),
        QStringLiteral("PATTERN"), QStringLiteral("spray"));
    const QCommandLineOption planAsideOpt(
        QStringLiteral("plan-aside-from"),
        QStringLiteral("Plan a rollback's balances on a second connection from N Transfers up "
                       "(default %1; a huge N: never).")
            .arg(indexer::ReorgRollback::kPlanAsideFrom),
        QStringLiteral("N"));
    p.addOptions({runsOpt, inlineOpt, outOpt, rollbackOpt, patternOpt, planAsideOpt});
    p.process(app);
    const bench::WorkloadShape shape = workload.read(p);
    const QString patternName = p.value(patternOpt);
    if (patternName != QLatin1String("spray") && patternName != QLatin1String("pairs")) {
        std::fprintf(stderr, "forkscope_bench_commit: --pattern must be spray or pairs, not %s\n",
                     qPrintable(patternName));
        return 2;
    }
    const Pattern pattern = patternName == QLatin1String("spray") ? Pattern::Spray : Pattern::Pairs;
    QList<chain::Address> tokens, holders;
    for (int t = 0; t < shape.tokens; ++t)
        tokens << addressOf("token" + QByteArray::number(t));
    for (int h = 0; h < shape.holders; ++h)
        holders << addressOf("holder" + QByteArray::number(h));

    // The batches are built before the clock starts: only the commit path is measured.
    QList<indexer::VerifiedBatch> batches;
    chain::Hash32 parent = hashOf("genesis");
    qint64 events = 0;
    for (int first = 1; first <= shape.blocks; first += shape.batchSize) {
        batches << makeBatch(std::uint64_t(first),
                             std::min(shape.batchSize, shape.blocks - first + 1), shape.perTx,
                             tokens, holders, parent, pattern);
        events += batches.last().logs.size();
    }

    for (int run = 1; run <= std::max(1, p.value(runsOpt).toInt()); ++run) {
        QTemporaryDir dir;
        const QString path =
            p.isSet(outOpt) ? p.value(outOpt) : dir.filePath(QStringLiteral("commit.sqlite"));
        if (p.isSet(outOpt) && QFileInfo::exists(path)) {
            std::fprintf(stderr, "forkscope_bench_commit: --out %s exists\n", qPrintable(path));
            return 2;
        }
        const QString env = QStringLiteral("bench");
        std::optional<indexer::Checkpoint> cp;
        double secs = 0;
        {
            auto db = store::Database::open(path, p.isSet(inlineOpt)
                                                      ? store::Database::Options{}
                                                      : store::Database::Options::bulkWriter());
            indexer::EnvironmentRegistry(*db).openForIndexing(
                env, 31337, hashOf(QByteArrayLiteral("genesis")),
                QUrl(QStringLiteral("http://127.0.0.1:1")));
            indexer::CheckpointStore checkpoints(*db, env, 31337, QStringLiteral("default"));
            indexer::BalanceBook balances(*db, env, 31337);
            indexer::BatchCommitter committer(*db, env, 31337, checkpoints, balances);

            QElapsedTimer t;
            t.start();
            for (const auto& batch : batches) {
                committer.commit(cp, batch, 1, QStringLiteral("bench"), 1);
                cp = checkpoints.read();
            }
            secs = double(t.nsecsElapsed()) / 1e9;
        }
        const qint64 bytes =
            QFileInfo(path).size() + QFileInfo(path + QStringLiteral("-wal")).size();
        std::printf("commit only: %lld events in %zu transactions in %.2f s, %.0f events/s, "
                    "%.1f us/event, database %.1f MiB (%s checkpoints, %s pattern)\n",
                    static_cast<long long>(events), static_cast<size_t>(batches.size()), secs,
                    double(events) / secs, 1e6 * secs / double(events), double(bytes) / (1 << 20),
                    p.isSet(inlineOpt) ? "inline" : "background", qPrintable(patternName));
        std::fflush(stdout);

        if (p.isSet(rollbackOpt) && cp) {
            const auto depth = std::uint64_t(std::max(1, p.value(rollbackOpt).toInt()));
            if (depth >= cp->number) {
                std::fprintf(stderr,
                             "forkscope_bench_commit: --rollback %llu is not below the "
                             "head %llu\n",
                             static_cast<unsigned long long>(depth),
                             static_cast<unsigned long long>(cp->number));
                return 2;
            }
            // A reorg meets a following indexer at rest, not the tail of a backfill: closing
            // the bulk writer above stopped its background checkpointer, which otherwise
            // copies ~130 MiB on the other core during the rollback (66-147 ms from run to
            // run). Reopened as the indexer opens it, with the WAL checkpointed.
            auto db = store::Database::open(path, store::Database::Options::bulkWriter());
            db->run(QStringLiteral("PRAGMA wal_checkpoint(TRUNCATE)"));
            indexer::CheckpointStore checkpoints(*db, env, 31337, QStringLiteral("default"));
            indexer::BalanceBook balances(*db, env, 31337);
            indexer::ForkPoint fork;
            fork.number = cp->number - depth;
            fork.hash = hashOf("block" + QByteArray::number(*fork.number));
            indexer::ReorgRollback rollback(*db, env, 31337, QStringLiteral("default"), checkpoints,
                                            balances);
            if (p.isSet(planAsideOpt))
                rollback.setPlanAsideFrom(p.value(planAsideOpt).toLongLong());
            // The thread's CPU time beside the wall time: on a shared 2-core machine the wall
            // time swings by half from run to run, the CPU time much less. The process's too:
            // a deep rollback plans the balances on a second thread (BalanceRevertPlan.h).
            const auto cpuMs = [](int who) {
                rusage u{};
                getrusage(who, &u);
                const auto ms = [](const timeval& t) {
                    return double(t.tv_sec) * 1e3 + double(t.tv_usec) / 1e3;
                };
                return std::tuple{ms(u.ru_utime), ms(u.ru_stime), u.ru_minflt + u.ru_majflt};
            };
            const auto timeRollback = [&](const char* setting) {
                const auto cpuBefore = cpuMs(RUSAGE_THREAD);
                const auto processBefore = cpuMs(RUSAGE_SELF);
                QElapsedTimer rt;
                rt.start();
                const indexer::RollbackResult r = rollback.rollback(
                    *checkpoints.read(), fork, indexer::reorg_reason::kHashMismatch);
                const double ms = double(rt.nsecsElapsed()) / 1e6;
                const auto cpuAfter = cpuMs(RUSAGE_THREAD);
                const auto processAfter = cpuMs(RUSAGE_SELF);
                std::printf("rollback (%s): depth %llu, %lld transfers and %lld rows removed, "
                            "%lld balances recomputed%s, in %.1f ms (one transaction; its "
                            "thread's CPU %.1f ms user, %.1f ms system, %ld page faults; the "
                            "process's %.1f ms)\n",
                            setting, static_cast<unsigned long long>(r.depth),
                            static_cast<long long>(r.transfersRemoved),
                            static_cast<long long>(r.rowsRemoved),
                            static_cast<long long>(r.balancesChanged),
                            r.balancesPlannedAside ? " (planned on a second connection)" : "", ms,
                            std::get<0>(cpuAfter) - std::get<0>(cpuBefore),
                            std::get<1>(cpuAfter) - std::get<1>(cpuBefore),
                            std::get<2>(cpuAfter) - std::get<2>(cpuBefore),
                            std::get<0>(processAfter) - std::get<0>(processBefore) +
                                std::get<1>(processAfter) - std::get<1>(processBefore));
                if (!r.planAsideFallback.isEmpty())
                    std::printf("  the plan aside failed: %s\n", qPrintable(r.planAsideFallback));
                std::fflush(stdout);
            };
            // First on a connection that has read nothing yet: every page comes from the
            // file, into page cache memory the process may have to fault in.
            timeRollback("cold connection");
            // Then as a follower meets it: the same blocks committed one per transaction
            // through this connection, as a follower at the tip commits them, so their pages
            // sit in its cache; the WAL checkpointed as the background checkpointer leaves
            // it. The same reorg again, over the same rows.
            {
                indexer::BatchCommitter follower(*db, env, 31337, checkpoints, balances);
                chain::Hash32 tip = fork.hash;
                for (std::uint64_t n = *fork.number + 1; n <= cp->number; ++n)
                    follower.commit(checkpoints.read(),
                                    makeBatch(n, 1, shape.perTx, tokens, holders, tip, pattern), 1,
                                    QStringLiteral("bench"), 1);
                db->run(QStringLiteral("PRAGMA wal_checkpoint(PASSIVE)"));
            }
            timeRollback("follower at rest");
        }
    }
    return 0;
}
