// GUI benchmark (issue: the desktop monitor). Three figures:
//  1. replot time of the four panels, each series holding 86,400 points (24 h at 1/s), at
//     the follow-live zoom (5 min) and zoomed out to the whole day;
//  2. the longest GUI-thread stall while the engine backfills the indexer workload
//     (default 2,000 blocks, ~102,000 Transfers) with the main window open: a 2 ms
//     heartbeat timer on the GUI thread records the largest gap between its ticks;
//  3. the Fork tree tab on 10,000 synthetic reorgs over 1M blocks: opening, panning, and the
//     whole chain zoomed out (ForkTreeBench.cpp).
//
//   QT_QPA_PLATFORM=offscreen build/bench/forkscope_bench_gui [--blocks N] [--skip-backfill]
//                                                             [--forktree-only]
#include "BenchWorkload.h"
#include "ForkTreeBench.h"
#include "MainWindow.h"
#include "engine/EngineHost.h"
#include "panels/PlotPanel.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <qcustomplot.h>

using namespace forkscope;

namespace {

void replotBench(ui::MainWindow& w)
{
    // Fill every series of every panel with 24 h of samples, as a day-long session would.
    const double t0 = double(QDateTime::currentSecsSinceEpoch()) - ui::PlotPanel::kMaxPoints;
    int series = 0;
    for (ui::PlotPanel* p : w.panels()) {
        QCustomPlot* plot = p->plot();
        if (plot->graphCount() == 0)
            p->addSeries(QStringLiteral("bench"), Qt::darkGreen);
        for (int g = 0; g < plot->graphCount(); ++g) {
            QVector<double> keys(ui::PlotPanel::kMaxPoints), values(ui::PlotPanel::kMaxPoints);
            for (int i = 0; i < ui::PlotPanel::kMaxPoints; ++i) {
                keys[i] = t0 + i;
                values[i] = 1000 + i / 10 + (i % 7);
            }
            plot->graph(g)->setData(keys, values, true);
            ++series;
        }
    }
    QApplication::processEvents();
    std::printf("replot: 4 panels, %d series x %d points\n", series, ui::PlotPanel::kMaxPoints);
    for (const bool wholeDay : {false, true}) {
        for (ui::PlotPanel* p : w.panels()) {
            p->setFollowLive(!wholeDay);
            if (wholeDay)
                p->plot()->xAxis->setRange(t0, t0 + ui::PlotPanel::kMaxPoints);
            else
                p->plot()->xAxis->setRange(t0 + ui::PlotPanel::kMaxPoints -
                                               ui::PlotPanel::kLiveWindowSecs,
                                           t0 + ui::PlotPanel::kMaxPoints + 5);
        }
        constexpr int kRounds = 30;
        std::vector<double> totals;
        for (int r = 0; r < kRounds; ++r) {
            QElapsedTimer t;
            t.start();
            for (ui::PlotPanel* p : w.panels())
                p->plot()->replot(QCustomPlot::rpImmediateRefresh);
            totals.push_back(double(t.nsecsElapsed()) / 1e6);
        }
        std::sort(totals.begin(), totals.end());
        std::printf("  %s: all four panels replotted in median %.2f ms, max %.2f ms (%d rounds; "
                    "target < 16 ms)\n",
                    wholeDay ? "whole 24 h in view" : "follow-live 5 min view",
                    totals[totals.size() / 2], totals.back(), kRounds);
    }
}

} // namespace

int main(int argc, char** argv)
{
    QApplication app(argc, argv);
    QCommandLineParser p;
    p.addHelpOption();
    const QCommandLineOption blocksOpt(
        QStringLiteral("blocks"), QStringLiteral("Blocks of transfers for the backfill."),
        QStringLiteral("N"), QString::number(bench::WorkloadShape{}.blocks));
    const QCommandLineOption skipOpt(QStringLiteral("skip-backfill"),
                                     QStringLiteral("Only the replot figure."));
    const QCommandLineOption forkTreeOpt(QStringLiteral("forktree-only"),
                                         QStringLiteral("Only the fork tree figures."));
    p.addOptions({blocksOpt, skipOpt, forkTreeOpt});
    p.process(app);
    bench::runForkTreeBench(10000, 1000000);
    if (p.isSet(forkTreeOpt))
        return 0;

    {
        engine::EngineHost idle; // never started: the window only needs a host to connect to
        ui::MainWindow w(&idle);
        w.resize(1400, 900);
        w.show();
        replotBench(w);
    }
    if (p.isSet(skipOpt))
        return 0;

    bench::WorkloadShape shape; // the index benchmark's workload, only --blocks varies
    shape.blocks = std::max(1, p.value(blocksOpt).toInt());
    bench::Workload work = bench::Workload::build(shape);
    QTemporaryDir dir;
    engine::EngineHost host;
    ui::MainWindow w(&host);
    w.resize(1400, 900);
    w.show();
    engine::EngineConfig config;
    config.managedDevnet = false;
    config.rpcUrl = work.devnet->url();
    config.contracts = work.contracts;
    config.dbPath = dir.filePath(QStringLiteral("gui-bench.sqlite"));
    config.indexer.rpcTimeout = std::chrono::milliseconds(60000);

    // The heartbeat: if the GUI thread is busy (or blocked), its ticks come late.
    QElapsedTimer wall;
    QElapsedTimer sinceTick;
    double maxGapMs = 0;
    std::vector<double> gaps;
    std::vector<std::pair<double, double>> bigGaps; // (seconds since start, gap ms)
    QTimer heartbeat;
    heartbeat.setTimerType(Qt::PreciseTimer);
    heartbeat.setInterval(2);
    QObject::connect(&heartbeat, &QTimer::timeout, [&] {
        const double gap = double(sinceTick.nsecsElapsed()) / 1e6;
        sinceTick.restart();
        gaps.push_back(gap);
        if (gap > 20)
            bigGaps.push_back({wall.elapsed() / 1000.0, gap});
        maxGapMs = std::max(maxGapMs, gap);
    });
    qint64 snapshots = 0;
    bool synced = false;
    QObject::connect(
        &host, &engine::EngineHost::statusAvailable, [&](const engine::EngineStatus& s) {
            ++snapshots;
            if (s.checkpoint && *s.checkpoint >= work.head && !synced) {
                synced = true;
                std::printf(
                    "backfill: %llu blocks, %lld events indexed in %.2f s with the window open\n",
                    static_cast<unsigned long long>(work.head), static_cast<long long>(work.events),
                    wall.elapsed() / 1000.0);
                QTimer::singleShot(500, &app, &QCoreApplication::quit);
            }
        });
    QTimer::singleShot(0, [&] {
        wall.start();
        sinceTick.start();
        heartbeat.start();
        host.start(config);
    });
    QTimer::singleShot(600000, &app, &QCoreApplication::quit);
    QApplication::exec();
    heartbeat.stop();
    host.shutdown();
    if (!synced) {
        std::fprintf(stderr, "backfill did not finish within 10 minutes\n");
        return 1;
    }
    std::sort(gaps.begin(), gaps.end());
    std::printf(
        "GUI thread during the backfill: %zu heartbeats, %lld snapshots received; gap between 2 ms "
        "ticks: median %.1f ms, p99 %.1f ms, longest stall %.1f ms (target < 50 ms)\n",
        gaps.size(), static_cast<long long>(snapshots), gaps[gaps.size() / 2],
        gaps[gaps.size() * 99 / 100], maxGapMs);
    for (const auto& [at, gap] : bigGaps)
        std::printf("  gap over 20 ms: %.1f ms at %.2f s\n", gap, at);
    return 0;
}
