// Shared-backfill benchmark: the same workload as forkscope_bench_index, synced
// into PostgreSQL by 1, 2 and 3 `forkscope index --db postgresql://... --exit-when-synced`
// processes at once (each into a fresh database of one throwaway cluster), next to one
// SQLite sync. Prints events/s, each process's peak RSS, the database size, and the CPU
// the indexer processes, the PostgreSQL server and anvil spent, from which the figure for
// a machine with more cores is projected.
//
//   build/bench/forkscope_bench_shared [--blocks 2000] [--per-tx 17] [--tokens 3]
//                                      [--holders 5000] [--batch-size 200]
//                                      [--processes 1,2,3] [--count-calls]
//                                      [--pg-statements N] [--against BINARY]...
#include "BenchWorkload.h"
#include "ProcessStats.h"
#include "concurrency/WorkerThread.h"
#include "lab/FaultProxy.h"
#include "lab/FaultProxyThread.h"
#include "lab/PgLab.h"
#include "store/pg/PgConnection.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>
#include <cstdio>
#include <memory>
#include <vector>

using namespace forkscope;

namespace {

struct SyncFigures
{
    double secs = 0;
    double indexerCpu = 0;
    QList<qint64> peakRssKiB; // per process
    bool ok = true;
};

// Runs `processes` copies of `args` at once and waits for all, sampling their CPU and peak
// RSS every 50 ms (the last sample before each exits holds its totals), and `server`'s
// children's CPU if given.
SyncFigures runAll(const QString& binary, const QStringList& args, int processes,
                   bench::ChildrenCpu* server = nullptr)
{
    SyncFigures f;
    std::vector<std::unique_ptr<QProcess>> procs;
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < processes; ++i) {
        procs.push_back(std::make_unique<QProcess>());
        procs.back()->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        procs.back()->start(binary, args);
        procs.back()->waitForStarted();
    }
    std::vector<qint64> pids, rss(std::size_t(processes), 0);
    std::vector<double> cpu(std::size_t(processes), 0);
    for (const auto& p : procs)
        pids.push_back(p->processId());
    for (bool running = true; running;) {
        running = false;
        for (std::size_t i = 0; i < procs.size(); ++i) {
            if (procs[i]->state() == QProcess::NotRunning)
                continue;
            running = true;
            rss[i] = std::max(rss[i], bench::peakRssKiB(pids[i]));
            cpu[i] = std::max(cpu[i], bench::processCpuSeconds(pids[i]));
        }
        if (server)
            server->sample();
        if (running)
            QThread::msleep(50);
        for (const auto& p : procs)
            p->waitForFinished(0); // lets QProcess notice an exit
    }
    f.secs = double(t.nsecsElapsed()) / 1e9;
    for (std::size_t i = 0; i < procs.size(); ++i) {
        f.indexerCpu += cpu[i];
        f.peakRssKiB << rss[i];
        if (procs[i]->exitCode() != 0) {
            std::fprintf(stderr, "forkscope index failed (%d): %s\n", procs[i]->exitCode(),
                         procs[i]->readAllStandardOutput().constData());
            f.ok = false;
        }
    }
    return f;
}

QString rssList(const QList<qint64>& kib)
{
    QStringList parts;
    for (qint64 k : kib)
        parts << QString::number(double(k) / 1024.0, 'f', 1);
    return parts.join(QStringLiteral(", ")) + QStringLiteral(" MiB");
}

// What the indexers asked the node during one sync, as the counting proxy saw it: the
// calls per method and the blocks the eth_getLogs calls spanned, since `before`.
void printCalls(const lab::FaultProxy::CallCounts& before, const lab::FaultProxy::CallCounts& after)
{
    QStringList parts;
    qint64 total = 0;
    for (auto it = after.calls.cbegin(); it != after.calls.cend(); ++it) {
        const qint64 n = it.value() - before.calls.value(it.key());
        if (n == 0)
            continue;
        total += n;
        parts << QStringLiteral("%1 %2").arg(it.key()).arg(n);
    }
    std::printf("  RPC calls: %lld (%s); eth_getLogs spanned %lld blocks\n",
                static_cast<long long>(total), qPrintable(parts.join(QStringLiteral(", "))),
                static_cast<long long>(after.logsBlocks - before.logsBlocks));
}

// The statements the server spent most time on in this database, with their calls, rows
// and the time JIT compilation took of it.
void printStatements(store::pg::PgConnection& db, int top)
{
    const auto r = db.run("bench_statements",
                          "SELECT round(total_exec_time::numeric, 0), calls, rows, "
                          "round((jit_generation_time + jit_inlining_time + "
                          "jit_optimization_time + jit_emission_time)::numeric, 0), "
                          "left(regexp_replace(query, '\\s+', ' ', 'g'), 100) FROM "
                          "pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE "
                          "datname = current_database()) ORDER BY total_exec_time DESC LIMIT $1",
                          {QByteArray::number(top)});
    for (int i = 0; i < r.rows(); ++i)
        std::printf("  %7s ms %7s calls %9s rows %5s ms JIT  %s\n", r.text(i, 0).constData(),
                    r.text(i, 1).constData(), r.text(i, 2).constData(), r.text(i, 3).constData(),
                    r.text(i, 4).constData());
}

// The postmaster's pid: the first line of postmaster.pid in the data directory.
qint64 postmasterPid(const lab::PgLab& cluster)
{
    QFile f(QDir(cluster.directory()).filePath(QStringLiteral("data/postmaster.pid")));
    if (!f.open(QIODevice::ReadOnly))
        return 0;
    return f.readLine().trimmed().toLongLong();
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.addHelpOption();
    const bench::WorkloadOptions workload(QStringLiteral("Blocks per range (--batch-size)."));
    workload.addTo(p);
    const QCommandLineOption processesOpt(
        QStringLiteral("processes"),
        QStringLiteral("Process counts to measure, in turn (default 1,2,3)."),
        QStringLiteral("LIST"), QStringLiteral("1,2,3"));
    p.addOption(processesOpt);
    const QCommandLineOption settingOpt(
        QStringLiteral("pg-setting"),
        QStringLiteral("A server setting for the cluster, NAME=VALUE (repeatable), e.g. "
                       "shared_buffers=1GB or autovacuum=off."),
        QStringLiteral("NAME=VALUE"));
    p.addOption(settingOpt);
    const QCommandLineOption countOpt(
        QStringLiteral("count-calls"),
        QStringLiteral("Sends the indexers' requests through a proxy that counts them per "
                       "method (it costs CPU the figures then include)."));
    p.addOption(countOpt);
    const QCommandLineOption statementsOpt(
        QStringLiteral("pg-statements"),
        QStringLiteral("After each PostgreSQL sync, prints the N statements the server spent "
                       "most time on (pg_stat_statements)."),
        QStringLiteral("N"));
    p.addOption(statementsOpt);
    const QCommandLineOption againstOpt(
        QStringLiteral("against"),
        QStringLiteral("Measures each sync with this build's forkscope, then with BINARY (e.g. a "
                       "copy of an earlier build), on the same workload. Repeatable: each "
                       "BINARY in turn (the same one twice measures it twice)."),
        QStringLiteral("BINARY"));
    p.addOption(againstOpt);
    p.process(app);
    QStringList binaries{QStringLiteral(FORKSCOPE_BINARY)};
    binaries << p.values(againstOpt);
    // Each figure's line names the build it measured when there are two.
    const auto label = [&](int i) {
        return binaries.size() == 1 ? QString()
                                    : (i == 0 ? QStringLiteral(" [this build]")
                                              : QStringLiteral(" [%1]").arg(binaries[i]));
    };
    const int statements = p.value(statementsOpt).toInt();
    const bench::WorkloadShape shape = workload.read(p);

    bench::Workload w = bench::Workload::build(shape);
    std::printf("workload: %lld events in %llu blocks, built in %.0f s\n",
                static_cast<long long>(w.events), static_cast<unsigned long long>(w.head + 1),
                w.buildSecs);
    concurrency::WorkerThread proxyThread(QStringLiteral("forkscope-bench-proxy"));
    lab::FaultProxy* proxy = nullptr;
    if (p.isSet(countOpt)) {
        proxyThread.start(new QObject); // the proxy is deleted when the thread finishes
        proxy = lab::startFaultProxyOn(proxyThread.thread(), w.devnet->url());
        proxy->setCountCalls(true);
    }
    const auto calls = [proxy] {
        return proxy ? proxy->callCounts() : lab::FaultProxy::CallCounts{};
    };
    QStringList common{QStringLiteral("index"),
                       QStringLiteral("--rpc"),
                       (proxy ? proxy->url() : w.devnet->url()).toString(),
                       QStringLiteral("--env"),
                       QStringLiteral("bench"),
                       QStringLiteral("--exit-when-synced"),
                       QStringLiteral("--batch-size"),
                       QString::number(shape.batchSize)};
    for (const QString& c : w.contracts)
        common << QStringLiteral("--contract") << c;
    const qint64 anvilPid = w.devnet->processId();

    for (int i = 0; i < binaries.size(); ++i) {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bench.sqlite"));
        const double anvilBefore = bench::processCpuSeconds(anvilPid);
        const lab::FaultProxy::CallCounts callsBefore = calls();
        const SyncFigures s =
            runAll(binaries[i], common + QStringList{QStringLiteral("--db"), path}, 1);
        if (!s.ok)
            return 1;
        const qint64 bytes =
            QFileInfo(path).size() + QFileInfo(path + QStringLiteral("-wal")).size();
        std::printf("SQLite, 1 process%s: %.2f s, %.0f events/s, peak RSS %s, database %.1f MiB "
                    "(%.0f bytes/event); CPU: indexer %.2f s, anvil %.2f s\n",
                    qPrintable(label(i)), s.secs, double(w.events) / s.secs,
                    qPrintable(rssList(s.peakRssKiB)), double(bytes) / (1 << 20),
                    double(bytes) / double(w.events), s.indexerCpu,
                    bench::processCpuSeconds(anvilPid) - anvilBefore);
        if (proxy)
            printCalls(callsBefore, calls());
        std::fflush(stdout);
    }

    lab::PgLab cluster;
    lab::PgLab::Options options;
    options.settings = p.values(settingOpt);
    if (statements > 0)
        options.settings << QStringLiteral("shared_preload_libraries=pg_stat_statements");
    try {
        cluster.start(options);
    } catch (const lab::PgLabError& e) {
        std::fprintf(stderr, "forkscope_bench_shared: %s\n", qPrintable(e.message()));
        return 2;
    }
    auto admin = store::pg::PgConnection::open(cluster.url());
    for (const QString& setting : options.settings)
        std::printf("server setting: %s\n", qPrintable(setting));
    const qint64 postmaster = postmasterPid(cluster);
    for (const QString& n : p.value(processesOpt).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        const int processes = std::max(1, n.toInt());
        for (int i = 0; i < binaries.size(); ++i) {
            const QByteArray dbName =
                "bench_" + QByteArray::number(processes) + "_" + QByteArray::number(i);
            admin->exec(QByteArray("CREATE DATABASE " + dbName).constData());
            QString url = cluster.url();
            url = url.left(url.lastIndexOf(QLatin1Char('/')) + 1) + QString::fromLatin1(dbName);
            if (statements > 0) {
                auto db = store::pg::PgConnection::open(url);
                db->exec("CREATE EXTENSION pg_stat_statements");
                db->exec("SELECT pg_stat_statements_reset()");
            }
            const double anvilBefore = bench::processCpuSeconds(anvilPid);
            bench::ChildrenCpu server(postmaster);
            const lab::FaultProxy::CallCounts callsBefore = calls();
            const SyncFigures s = runAll(
                binaries[i], common + QStringList{QStringLiteral("--db"), url}, processes, &server);
            if (!s.ok)
                return 1;
            const double anvilCpu = bench::processCpuSeconds(anvilPid) - anvilBefore;
            const double serverCpu = server.seconds();
            auto db = store::pg::PgConnection::open(url);
            const qint64 bytes =
                db->exec("SELECT pg_database_size(current_database())").int64(0, 0);
            const qint64 logs = db->exec("SELECT count(*) FROM logs").int64(0, 0);
            const double cpuPerEvent = 1e6 * (s.indexerCpu + serverCpu) / double(w.events);
            std::printf("PostgreSQL, %d process%s%s: %.2f s, %.0f events/s, peak RSS %s, "
                        "database %.1f MiB (%.0f bytes/event), %lld logs visible; CPU: indexers "
                        "%.2f s, server %.2f s, anvil %.2f s (%.1f us of indexer and server CPU "
                        "per event)\n",
                        processes, processes == 1 ? "" : "es", qPrintable(label(i)), s.secs,
                        double(w.events) / s.secs, qPrintable(rssList(s.peakRssKiB)),
                        double(bytes) / (1 << 20), double(bytes) / double(w.events),
                        static_cast<long long>(logs), s.indexerCpu, serverCpu, anvilCpu,
                        cpuPerEvent);
            if (proxy)
                printCalls(callsBefore, calls());
            if (statements > 0)
                printStatements(*db, statements);
            std::fflush(stdout);
        }
    }
    return 0;
}
