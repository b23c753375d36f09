// Sources benchmark: the indexer on what applications deploy. On one chain it builds the
// plain workload (BenchWorkload), a DemoFactory whose children carry as many Transfers in
// the same blocks, and one more token left out of the first sync. Then it times:
//  1. a full sync of the plain tokens and one of the factory, side by side;
//  2. adding the other token to the plain environment while new blocks keep arriving:
//     the added contract's time to join, and the head's lag (node head minus the
//     environment's checkpoint) sampled while its backfill runs.
//
//   build/bench/forkscope_bench_sources [workload options] [--factory-children N]
//                                        [--add-contract-events N] [--head-interval N]
#include "BenchWorkload.h"
#include "ProcessStats.h"
#include "rpc/EthClient.h"
#include "store/Database.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QThread>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>

using namespace forkscope;

namespace {

struct Run
{
    bool ok = false;
    double secs = 0, cpu = 0, anvilCpu = 0;
    qint64 peakKiB = 0;
};

// `forkscope index` with `args` until it exits, calling `tick` with the elapsed
// milliseconds about every 50 ms (on this thread, between samples of its peak RSS).
Run runIndex(const QStringList& args, qint64 anvilPid, const std::function<void(qint64)>& tick = {})
{
    Run r;
    QProcess index;
    index.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    const double cpuBefore = bench::reapedChildrenCpuSeconds();
    const double anvilBefore = bench::processCpuSeconds(anvilPid);
    QElapsedTimer t;
    t.start();
    index.start(QStringLiteral(FORKSCOPE_BINARY), QStringList{QStringLiteral("index")} + args);
    while (index.state() != QProcess::NotRunning) {
        r.peakKiB = std::max(r.peakKiB, bench::peakRssKiB(index.processId()));
        if (tick)
            tick(t.elapsed());
        index.waitForFinished(50);
    }
    r.secs = t.elapsed() / 1000.0;
    r.anvilCpu = bench::processCpuSeconds(anvilPid) - anvilBefore;
    r.cpu = bench::reapedChildrenCpuSeconds() - cpuBefore;
    r.ok = index.exitStatus() == QProcess::NormalExit && index.exitCode() == 0;
    if (!r.ok)
        std::fprintf(stderr, "forkscope index failed (%d): %s\n", index.exitCode(),
                     index.readAllStandardOutput().right(2000).constData());
    return r;
}

QStringList commonArgs(const QString& rpcUrl, const QString& dbPath, int batchSize)
{
    return {QStringLiteral("--rpc"),        rpcUrl,
            QStringLiteral("--db"),         dbPath,
            QStringLiteral("--env"),        QStringLiteral("bench"),
            QStringLiteral("--batch-size"), QString::number(batchSize)};
}

qint64 databaseBytes(const QString& path)
{
    return QFileInfo(path).size() + QFileInfo(path + QStringLiteral("-wal")).size();
}

// One value from the synced file (read-only), or -1.
qint64 count(const QString& dbPath, const QString& sql)
{
    store::Database::Options ro;
    ro.readOnly = true;
    QSqlQuery q = store::Database::open(dbPath, ro)->run(sql);
    return q.next() ? q.value(0).toLongLong() : -1;
}

void printSync(const char* what, const Run& r, qint64 events, const QString& dbPath)
{
    const int cores = std::max(1, QThread::idealThreadCount());
    const qint64 bytes = databaseBytes(dbPath);
    std::printf("%s: %.2f s, %.0f events/s, peak RSS %.1f MiB; CPU: indexer %.2f s + anvil %.2f s "
                "= %.0f%% of %d cores; database %.1f MiB (%.0f bytes/event)\n",
                what, r.secs, double(events) / r.secs, double(r.peakKiB) / 1024.0, r.cpu,
                r.anvilCpu, 100.0 * (r.cpu + r.anvilCpu) / (r.secs * cores), cores,
                double(bytes) / (1 << 20), double(bytes) / double(events));
}

double median(QList<qint64> v)
{
    if (v.isEmpty())
        return 0;
    std::sort(v.begin(), v.end());
    const qsizetype n = v.size();
    return n % 2 ? double(v[n / 2]) : (double(v[n / 2 - 1]) + double(v[n / 2])) / 2.0;
}

// Adds the workload's other token to the plain environment in `dbPath` while anvil mines a
// block every `intervalSecs` (interval mining) holding a spray of each plain token sent the
// interval before, and prints its time to join and the head's lag while it was pending.
bool addContract(bench::Workload& w, const bench::WorkloadShape& shape, const QString& dbPath,
                 int intervalSecs)
{
    QStringList args = commonArgs(w.devnet->url().toString(), dbPath, shape.batchSize);
    for (const QString& c : w.contracts + QStringList{w.added->address().toHex()})
        args << QStringLiteral("--contract") << c;
    args << QStringLiteral("--exit-when-synced");
    store::Database::Options ro;
    ro.readOnly = true;
    const auto db = store::Database::open(dbPath, ro);
    rpc::EthClient eth(*w.rpc);
    const QString added = w.added->address().toHex().toLower();
    QList<qint64> lags;
    qint64 joinedMs = -1, nextSendMs = 0;
    quint64 offset = 1u << 30; // holders cycle anyway; any start will do
    const std::uint64_t headBefore = eth.blockNumber();
    const double anvilBefore = bench::processCpuSeconds(w.devnet->processId());
    // anvil mines on its own clock, so a slow sample never delays a block.
    w.rpc->callBlocking(QStringLiteral("evm_setAutomine"), {false});
    w.rpc->callBlocking(QStringLiteral("evm_setIntervalMining"), {intervalSecs});
    const Run r = runIndex(args, w.devnet->processId(), [&](qint64 ms) {
        if (ms >= nextSendMs) {
            for (const auto& t : w.tokens) {
                w.rpc->callBlocking(QStringLiteral("eth_sendTransaction"),
                                    {t.txRequest(lab::DemoToken::sprayCalldata(
                                        quint64(shape.perTx), offset, quint64(shape.holders)))});
                offset += quint64(shape.perTx);
            }
            nextSendMs += intervalSecs * 1000;
        }
        if (joinedMs >= 0)
            return;
        const qint64 head = qint64(eth.blockNumber());
        QSqlQuery cp = db->run(QStringLiteral(
            "SELECT max(block_number) FROM indexer_checkpoints WHERE environment_id = 'bench'"));
        QSqlQuery src = db->run(
            QStringLiteral("SELECT state FROM contract_sources WHERE contract = ?"), {added});
        if (src.next() && src.value(0).toString() == QLatin1String("joined")) {
            joinedMs = ms;
            return;
        }
        if (cp.next() && !cp.value(0).isNull())
            lags << head - cp.value(0).toLongLong();
    });
    w.rpc->callBlocking(QStringLiteral("evm_setIntervalMining"), {0});
    w.rpc->callBlocking(QStringLiteral("evm_setAutomine"), {true});
    const qint64 minedBlocks = qint64(eth.blockNumber() - headBefore);
    if (!r.ok)
        return false;
    if (joinedMs < 0) {
        // --exit-when-synced exits within a round of the join, which may fall between two
        // samples: then the exit is when it had joined.
        QSqlQuery src = db->run(
            QStringLiteral("SELECT state FROM contract_sources WHERE contract = ?"), {added});
        if (!src.next() || src.value(0).toString() != QLatin1String("joined")) {
            std::fprintf(stderr, "the added contract %s never joined\n", qPrintable(added));
            return false;
        }
        joinedMs = qint64(r.secs * 1000);
    }
    const double joinSecs = joinedMs / 1000.0;
    std::printf("add a contract (%lld Transfer events) to the plain environment, a block mined "
                "every %d s with %d Transfers (%lld blocks in %.1f s):\n",
                static_cast<long long>(w.addedEvents), intervalSecs, shape.tokens * shape.perTx,
                static_cast<long long>(minedBlocks), r.secs);
    std::printf("  joined after %.2f s: %.0f events/s of its backfill; the run exited after "
                "%.2f s\n",
                joinSecs, double(w.addedEvents) / joinSecs, r.secs);
    std::printf(
        "  head lag while it was pending (node head - environment checkpoint, %lld "
        "samples): max %lld blocks, median %.1f\n",
        static_cast<long long>(lags.size()),
        lags.isEmpty() ? 0LL : static_cast<long long>(*std::max_element(lags.begin(), lags.end())),
        median(lags));
    std::printf("  CPU: indexer %.2f s, anvil %.2f s (its mining of the new blocks included); "
                "peak RSS %.1f MiB\n",
                r.cpu, bench::processCpuSeconds(w.devnet->processId()) - anvilBefore,
                double(r.peakKiB) / 1024.0);
    const qint64 stored = count(
        dbPath,
        QStringLiteral("SELECT count(*) FROM transfer_events WHERE contract = '%1'").arg(added));
    std::printf(
        "  stored Transfers of the added contract: %lld (its mints and sprays: %lld); "
        "its backfill started at block %lld\n",
        static_cast<long long>(stored), static_cast<long long>(w.addedEvents),
        static_cast<long long>(count(
            dbPath, QStringLiteral("SELECT start_block FROM contract_sources WHERE contract = '%1'")
                        .arg(added))));
    return true;
}

double threadCpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

// The best of three full reads of `sql` (a sum over every row's columns, so each one is
// built): its wall and CPU seconds and the rows it read.
struct ReadTime
{
    double secs = 1e9, cpu = 0;
    qint64 rows = -1;
};
ReadTime timeRead(QSqlDatabase& db, const QString& sql)
{
    ReadTime best;
    for (int i = 0; i < 3; ++i) {
        QElapsedTimer t;
        const double cpu = threadCpuSeconds();
        t.start();
        QSqlQuery q(db);
        if (!q.exec(sql) || !q.next()) {
            std::fprintf(stderr, "%s: %s\n", qPrintable(sql), qPrintable(q.lastError().text()));
            return {};
        }
        const double secs = t.nsecsElapsed() / 1e9;
        if (secs < best.secs)
            best = {secs, threadCpuSeconds() - cpu, q.value(0).toLongLong()};
    }
    return best;
}

// What the `transfer_events` view's clause that hides a pending source's rows above its
// checkpoint costs a full read, on a copy of the factory's file: the view as it is, the same
// columns without the clause, and the view again once the factory is recorded as an added
// source still pending at the middle block (its children's later Transfers hidden).
void viewCost(const QString& factoryDb, const QString& factoryHex)
{
    const QString copy = factoryDb + QStringLiteral(".view-cost");
    QFile::remove(copy);
    if (!QFile::copy(factoryDb, copy))
        return;
    {
        QSqlDatabase db =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("view-cost"));
        db.setDatabaseName(copy);
        db.open();
        QSqlQuery q(db);
        q.exec(QStringLiteral("SELECT sql FROM sqlite_master WHERE name = 'transfer_events'"));
        q.next();
        const QString view = q.value(0).toString();
        const qsizetype cut = view.indexOf(QLatin1String(" AND NOT EXISTS"));
        q.exec(QStringLiteral("CREATE TEMP VIEW uncut_transfer_events") +
               view.mid(view.indexOf(QLatin1String(" AS SELECT")),
                        cut - view.indexOf(QLatin1String(" AS SELECT"))));
        const QString read = QStringLiteral(
            "SELECT count(*), sum(length(tx_hash) + length(contract) + length(from_addr) + "
            "length(to_addr) + length(value)) FROM %1");
        const ReadTime plainView = timeRead(db, read.arg(QStringLiteral("transfer_events")));
        const ReadTime uncut = timeRead(db, read.arg(QStringLiteral("uncut_transfer_events")));
        q.exec(QStringLiteral("SELECT max(block_number) / 2 FROM block_store"));
        q.next();
        const qint64 mid = q.value(0).toLongLong();
        q.exec(QStringLiteral(
                   "INSERT INTO source_store (environment_id, chain_id, address, start_block, "
                   "block_number, block_hash, state, added_at, factory_rule) SELECT "
                   "environment_id, chain_id, X'%1', 0, block_number, block_hash, 'pending', "
                   "'now', 'bench' FROM block_store WHERE block_number = %2")
                   .arg(factoryHex.mid(2))
                   .arg(mid));
        const ReadTime pending = timeRead(db, read.arg(QStringLiteral("transfer_events")));
        std::printf("transfer_events read in full (best of 3), wall / CPU:\n"
                    "  without the pending-source clause: %.3f / %.3f s (%lld rows)\n"
                    "  the view, no source pending:       %.3f / %.3f s (%lld rows)\n"
                    "  the view, the factory pending at block %lld: %.3f / %.3f s (%lld rows)\n",
                    uncut.secs, uncut.cpu, static_cast<long long>(uncut.rows), plainView.secs,
                    plainView.cpu, static_cast<long long>(plainView.rows),
                    static_cast<long long>(mid), pending.secs, pending.cpu,
                    static_cast<long long>(pending.rows));
    }
    QSqlDatabase::removeDatabase(QStringLiteral("view-cost"));
    QFile::remove(copy);
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.addHelpOption();
    const bench::WorkloadOptions workload(QStringLiteral("forkscope index --batch-size."));
    workload.addTo(p);
    const QCommandLineOption childrenOpt(
        QStringLiteral("factory-children"),
        QStringLiteral("Children of the factory, created evenly over the blocks; their "
                       "Transfers are as many as the tokens' (0: no factory sync)."),
        QStringLiteral("N"), QStringLiteral("1000"));
    const QCommandLineOption addedOpt(
        QStringLiteral("add-contract-events"),
        QStringLiteral("Transfers of the token added to the plain environment after its sync "
                       "(0: no addition)."),
        QStringLiteral("N"), QStringLiteral("10000"));
    const QCommandLineOption intervalOpt(
        QStringLiteral("head-interval"),
        QStringLiteral("While the contract is added, a block of the plain tokens' Transfers "
                       "every N seconds."),
        QStringLiteral("N"), QStringLiteral("1"));
    const QCommandLineOption viewCostOpt(
        QStringLiteral("view-cost"),
        QStringLiteral("After the factory sync, time full reads of transfer_events with and "
                       "without a pending factory."));
    p.addOptions({childrenOpt, addedOpt, intervalOpt, viewCostOpt});
    p.process(app);
    bench::WorkloadShape shape = workload.read(p);
    shape.factoryChildren = std::max(0, p.value(childrenOpt).toInt());
    shape.addedEvents = std::max(0, p.value(addedOpt).toInt());
    const int intervalSecs = std::max(1, p.value(intervalOpt).toInt());

    bench::Workload w = bench::Workload::build(shape);
    const QString url = w.devnet->url().toString();
    const qint64 anvilPid = w.devnet->processId();
    QTemporaryDir dir;
    const QString plainDb = dir.filePath(QStringLiteral("plain.sqlite"));
    QStringList plainArgs = commonArgs(url, plainDb, shape.batchSize);
    for (const QString& c : w.contracts)
        plainArgs << QStringLiteral("--contract") << c;
    const Run plain =
        runIndex(plainArgs + QStringList{QStringLiteral("--exit-when-synced")}, anvilPid);
    if (!plain.ok)
        return 1;
    printSync("plain sync", plain, w.events, plainDb);

    if (w.factory) {
        const QString factoryDb = dir.filePath(QStringLiteral("factory.sqlite"));
        const QStringList args =
            commonArgs(url, factoryDb, shape.batchSize) +
            QStringList{
                QStringLiteral("--factory"),         w.factory->address().toHex(),
                QStringLiteral("--factory-event"),   lab::DemoFactory::pairCreatedDeclaration(),
                QStringLiteral("--child-arg"),       QStringLiteral("pair"),
                QStringLiteral("--exit-when-synced")};
        const Run factory = runIndex(args, anvilPid);
        if (!factory.ok)
            return 1;
        printSync("factory sync", factory, w.factoryEvents, factoryDb);
        std::printf("  stored: %lld children, %lld Transfers (the node has %d children, %lld "
                    "Transfers)\n",
                    static_cast<long long>(
                        count(factoryDb, QStringLiteral("SELECT count(*) FROM factory_children"))),
                    static_cast<long long>(
                        count(factoryDb, QStringLiteral("SELECT count(*) FROM transfer_events"))),
                    shape.factoryChildren, static_cast<long long>(w.factoryEvents));
        if (p.isSet(viewCostOpt))
            viewCost(factoryDb, w.factory->address().toHex());
    }
    std::fflush(stdout);
    if (w.added && !addContract(w, shape, plainDb, intervalSecs))
        return 1;
    return 0;
}
