// forkscope_bench_stop: how long Stop takes in the middle of a backfill. The
// engine indexes the 100k workload (2,000 blocks, ~102,000 Transfers) from an external
// node; at 10%, 40% and 70% of the head, EngineHost::shutdown() is called on this (the
// GUI's) thread. Printed: how long shutdown() took to return, and how long until every
// worker had finished. Figures only, never asserted.
#include "BenchWorkload.h"
#include "engine/EngineHost.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>

using namespace forkscope;

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.addHelpOption();
    const QCommandLineOption blocksOpt(
        QStringLiteral("blocks"), QStringLiteral("Blocks of transfers for the backfill."),
        QStringLiteral("N"), QString::number(bench::WorkloadShape{}.blocks));
    p.addOption(blocksOpt);
    p.process(app);
    bench::WorkloadShape shape;
    shape.blocks = std::max(1, p.value(blocksOpt).toInt());
    bench::Workload work = bench::Workload::build(shape);
    std::printf("workload: %lld Transfers in %d blocks (head %llu), built in %.1f s\n",
                static_cast<long long>(work.events), shape.blocks,
                static_cast<unsigned long long>(work.head), work.buildSecs);

    for (const double at : {0.1, 0.4, 0.7}) {
        QTemporaryDir dir;
        engine::EngineHost host;
        engine::EngineConfig config;
        config.managedDevnet = false;
        config.rpcUrl = work.devnet->url();
        config.contracts = work.contracts;
        config.dbPath = dir.filePath(QStringLiteral("stop-bench.sqlite"));
        const quint64 target = quint64(double(work.head) * at);
        QEventLoop loop;
        quint64 reached = 0;
        QObject::connect(&host, &engine::EngineHost::statusAvailable, &loop,
                         [&](const engine::EngineStatus& s) {
                             reached = s.checkpoint.value_or(0);
                             if (reached >= target)
                                 loop.quit();
                         });
        QTimer::singleShot(300000, &loop, &QEventLoop::quit);
        host.start(config);
        loop.exec();
        QElapsedTimer t;
        t.start();
        host.shutdown();
        const double returned = double(t.nsecsElapsed()) / 1e6;
        const bool joined = host.waitForStopped(30000);
        const double done = double(t.nsecsElapsed()) / 1e6;
        std::printf("stop at checkpoint %llu of %llu (%.0f%%): shutdown() returned in %.2f ms, "
                    "workers %s after %.1f ms\n",
                    static_cast<unsigned long long>(reached),
                    static_cast<unsigned long long>(work.head),
                    100.0 * double(reached) / double(std::max<quint64>(1, work.head)), returned,
                    joined ? "joined" : "NOT joined", done);
        std::fflush(stdout);
    }
    return 0;
}
