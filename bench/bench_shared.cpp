// Shared-backfill benchmark: the same workload as forkscope_bench_index, synced
// into PostgreSQL by 1, 2 and 3 `forkscope index --db postgresql://... --exit-when-synced`
// processes at once (each into a fresh database of one throwaway cluster), next to one
// SQLite sync. Prints events/s, each process's peak RSS, the database size, and the CPU
// the indexer processes, the PostgreSQL server and anvil spent, from which the figure for
// a machine with more cores is projected.
//
//   build/bench/forkscope_bench_shared [--blocks 2000] [--per-tx 17] [--tokens 3]
//                                      [--holders 5000] [--batch-size 200]
//                                      [--processes 1,2,3]
#include "BenchWorkload.h"
#include "ProcessStats.h"
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
// RSS every 50 ms (the last sample before each exits holds its totals).
SyncFigures runAll(const QStringList& args, int processes)
{
    SyncFigures f;
    std::vector<std::unique_ptr<QProcess>> procs;
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < processes; ++i) {
        procs.push_back(std::make_unique<QProcess>());
        procs.back()->setProcessChannelMode(QProcess::ForwardedErrorChannel);
        procs.back()->start(QStringLiteral(FORKSCOPE_BINARY), args);
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
    p.process(app);
    const bench::WorkloadShape shape = workload.read(p);

    bench::Workload w = bench::Workload::build(shape);
    std::printf("workload: %lld events in %llu blocks, built in %.0f s\n",
                static_cast<long long>(w.events), static_cast<unsigned long long>(w.head + 1),
                w.buildSecs);
    QStringList common{QStringLiteral("index"),        QStringLiteral("--rpc"),
                       w.devnet->url().toString(),     QStringLiteral("--env"),
                       QStringLiteral("bench"),        QStringLiteral("--exit-when-synced"),
                       QStringLiteral("--batch-size"), QString::number(shape.batchSize)};
    for (const QString& c : w.contracts)
        common << QStringLiteral("--contract") << c;
    const qint64 anvilPid = w.devnet->processId();

    {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("bench.sqlite"));
        const double anvilBefore = bench::processCpuSeconds(anvilPid);
        const SyncFigures s = runAll(common + QStringList{QStringLiteral("--db"), path}, 1);
        if (!s.ok)
            return 1;
        const qint64 bytes =
            QFileInfo(path).size() + QFileInfo(path + QStringLiteral("-wal")).size();
        std::printf("SQLite, 1 process: %.2f s, %.0f events/s, peak RSS %s, database %.1f MiB "
                    "(%.0f bytes/event); CPU: indexer %.2f s, anvil %.2f s\n",
                    s.secs, double(w.events) / s.secs, qPrintable(rssList(s.peakRssKiB)),
                    double(bytes) / (1 << 20), double(bytes) / double(w.events), s.indexerCpu,
                    bench::processCpuSeconds(anvilPid) - anvilBefore);
        std::fflush(stdout);
    }

    lab::PgLab cluster;
    lab::PgLab::Options options;
    options.settings = p.values(settingOpt);
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
        const QByteArray dbName = "bench_" + QByteArray::number(processes);
        admin->exec(QByteArray("CREATE DATABASE " + dbName).constData());
        QString url = cluster.url();
        url = url.left(url.lastIndexOf(QLatin1Char('/')) + 1) + QString::fromLatin1(dbName);
        const double anvilBefore = bench::processCpuSeconds(anvilPid);
        const double serverBefore = bench::processCpuSeconds(postmaster, true);
        const SyncFigures s = runAll(common + QStringList{QStringLiteral("--db"), url}, processes);
        if (!s.ok)
            return 1;
        const double anvilCpu = bench::processCpuSeconds(anvilPid) - anvilBefore;
        const double serverCpu = bench::processCpuSeconds(postmaster, true) - serverBefore;
        auto db = store::pg::PgConnection::open(url);
        const qint64 bytes = db->exec("SELECT pg_database_size(current_database())").int64(0, 0);
        const qint64 logs = db->exec("SELECT count(*) FROM logs").int64(0, 0);
        const double cpuPerEvent = 1e6 * (s.indexerCpu + serverCpu) / double(w.events);
        std::printf("PostgreSQL, %d process%s: %.2f s, %.0f events/s, peak RSS %s, database "
                    "%.1f MiB (%.0f bytes/event), %lld logs visible; CPU: indexers %.2f s, "
                    "server %.2f s, anvil %.2f s (%.1f us of indexer and server CPU per "
                    "event)\n",
                    processes, processes == 1 ? "" : "es", s.secs, double(w.events) / s.secs,
                    qPrintable(rssList(s.peakRssKiB)), double(bytes) / (1 << 20),
                    double(bytes) / double(w.events), static_cast<long long>(logs), s.indexerCpu,
                    serverCpu, anvilCpu, cpuPerEvent);
        std::fflush(stdout);
    }
    return 0;
}
