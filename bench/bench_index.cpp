// Full-sync benchmark: builds a workload on a managed anvil (by default 2,000 blocks,
// 3 tokens, 17 Transfers per token per block = 102,000 events over 5,000 holders), then
// times `forkscope index --exit-when-synced` over it and prints events/s and peak RSS.
//
//   build/bench/forkscope_bench_index [--blocks N] [--per-tx N] [--tokens N]
//                                      [--holders N] [--batch-size N] [--runs N]
//                                      [--latency-ms N] [--against OTHER_FORKSCOPE]
//                                      [--timeline BIN_MS]
//
// --against alternates this build's forkscope with another binary (a copy of an earlier
// build) run by run on the one workload, and with --runs prints each one's min / median /
// max: the machine's speed drifts within minutes, so only alternated runs compare builds.
#include "BenchWorkload.h"
#include "CpuTimeline.h"
#include "ProcessStats.h"
#include "RunSeries.h"
#include "concurrency/WorkerThread.h"
#include "lab/FaultProxy.h"
#include "lab/FaultProxyThread.h"
#include "rpc/EthClient.h"
#include "store/Database.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QThread>
#include <cstdio>
#include <sys/resource.h>

using namespace forkscope;

using bench::processCpuSeconds;

namespace {
// The synced Transfers as `forkscope audit` reads another indexer's table.
const QString kOwnTransfersQuery = QStringLiteral(
    "SELECT t.block_number, t.log_index, t.tx_hash, b.block_hash, t.contract, "
    "t.from_addr AS \"from\", t.to_addr AS \"to\", t.value FROM transfer_events t JOIN blocks b "
    "ON b.environment_id = t.environment_id AND b.chain_id = t.chain_id AND b.block_number = "
    "t.block_number");
} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.addHelpOption();
    const bench::WorkloadOptions workload(QStringLiteral("forkscope index --batch-size."));
    workload.addTo(p);
    const QCommandLineOption runsOpt(
        QStringLiteral("runs"),
        QStringLiteral("Measure ceiling and full sync N times on one workload."),
        QStringLiteral("N"), QStringLiteral("1"));
    p.addOption(runsOpt);
    const QCommandLineOption verifyOpt(
        QStringLiteral("verify"),
        QStringLiteral(
            "Completeness modes to sync with, in turn, after each ceiling (forkscope index "
            "--verify): e.g. none,default,receipts."),
        QStringLiteral("MODES"), QStringLiteral("default"));
    p.addOption(verifyOpt);
    const QCommandLineOption auditOpt(
        QStringLiteral("audit"),
        QStringLiteral(
            "After each sync, time `forkscope verify` of the whole database against "
            "the node, in each mode in turn: default, receipts (with --receipts); report times "
            "`forkscope report` with its invariant check instead; foreign times `forkscope "
            "audit` of the synced Transfers as another indexer's table."),
        QStringLiteral("MODES"));
    p.addOption(auditOpt);
    const QCommandLineOption latencyOpt(
        QStringLiteral("latency-ms"),
        QStringLiteral("Sync through a proxy that delays every reply by N ms, as a remote node's "
                       "round trip does (the ceiling stays direct)."),
        QStringLiteral("N"), QStringLiteral("0"));
    p.addOption(latencyOpt);
    const QCommandLineOption againstOpt(
        QStringLiteral("against"),
        QStringLiteral("Alternate run by run with this other forkscope binary (e.g. a copy of "
                       "an earlier build): odd runs sync with this build's, even runs with it. "
                       "With --runs, each one's figures are summarised at the end."),
        QStringLiteral("BINARY"));
    p.addOption(againstOpt);
    const QCommandLineOption timelineOpt(
        QStringLiteral("timeline"),
        QStringLiteral("After each sync, print where the cores went: CPU ms of each of its "
                       "threads and of anvil, and the idle ms, per bin of MS milliseconds."),
        QStringLiteral("MS"), QStringLiteral("0"));
    p.addOption(timelineOpt);
    p.process(app);
    const int timelineBinMs = p.value(timelineOpt).toInt();
    const QString against = p.value(againstOpt);
    if (!against.isEmpty() && !QFileInfo(against).isExecutable()) {
        std::fprintf(stderr, "forkscope_bench_index: --against %s is not an executable file\n",
                     qPrintable(against));
        return 2;
    }
    const bench::WorkloadShape shape = workload.read(p);

    bench::Workload w = bench::Workload::build(shape);
    lab::Devnet& devnet = *w.devnet;
    rpc::JsonRpcClient& rpc = *w.rpc;
    const QList<lab::DemoToken>& list = w.tokens;
    QStringList contractArgs;
    for (const QString& c : w.contracts)
        contractArgs << QStringLiteral("--contract") << c;
    const auto head = w.head;
    const qint64 events = w.events;
    QElapsedTimer t;
    double childCpuBefore = 0; // RUSAGE_CHILDREN sums every waited-for child
    // The CPU of the children waited for since the last call: the index and verify
    // processes are the only ones.
    const auto childCpuSince = [&] {
        rusage ru{};
        getrusage(RUSAGE_CHILDREN, &ru);
        const double cpuSoFar = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                                double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
        const double since = cpuSoFar - childCpuBefore;
        childCpuBefore = cpuSoFar;
        return since;
    };
    const int runs = std::max(1, p.value(runsOpt).toInt());
    bench::RunSeries series;
    QString binary = QStringLiteral(FORKSCOPE_BINARY); // the one this run syncs with
    // The proxy answers on its own thread: this one blocks while it polls the sync's process.
    const int latencyMs = std::max(0, p.value(latencyOpt).toInt());
    const std::unique_ptr<lab::FaultProxyThread> proxy =
        latencyMs > 0 ? std::make_unique<lab::FaultProxyThread>(devnet.url(), latencyMs) : nullptr;
    const QString syncUrl = (proxy ? proxy->url() : devnet.url()).toString();
    // The audits ask the node through a proxy that counts their calls.
    concurrency::WorkerThread countingThread(QStringLiteral("forkscope-bench-count"));
    countingThread.start(new QObject); // the proxy is deleted when the thread finishes
    lab::FaultProxy* countingProxy = lab::startFaultProxyOn(countingThread.thread(), devnet.url());
    countingProxy->setCountCalls(true);
    const auto measure = [&]() -> bool {
        // The raw ceiling: pull every log (eth_getLogs, 10-block chunks) and every header
        // (batches of 50) with one request in flight, parsing into chain types, storing nothing.
        rpc::EthClient eth(rpc);
        QList<chain::Address> addresses;
        for (const auto& tok : list)
            addresses << tok.address();
        const double selfCpuBefore = processCpuSeconds(QCoreApplication::applicationPid());
        const double anvilCpuBeforeCeiling = processCpuSeconds(devnet.processId());
        t.start();
        qint64 pulledLogs = 0;
        for (std::uint64_t from = 0; from <= head; from += 10) {
            rpc::LogFilter f;
            f.fromBlock = from;
            f.toBlock = std::min<std::uint64_t>(head, from + 9);
            f.addresses = addresses;
            pulledLogs += eth.getLogs(f).size();
        }
        const double logSecs = t.elapsed() / 1000.0;
        t.restart();
        for (std::uint64_t from = 0; from <= head; from += 50)
            eth.blocksByNumber(from, std::min<std::uint64_t>(head, from + 49));
        const double headerSecs = t.elapsed() / 1000.0;
        const double ceilingSecs = logSecs + headerSecs;
        // What the ceiling's work costs: the same pull and parse is inside every full sync.
        const double ceilingOwnCpu =
            processCpuSeconds(QCoreApplication::applicationPid()) - selfCpuBefore;
        const double ceilingAnvilCpu =
            processCpuSeconds(devnet.processId()) - anvilCpuBeforeCeiling;
        std::printf(
            "raw ceiling: %lld logs in %.2f s + %llu headers in %.2f s = %.2f s, %.0f events/s "
            "(one request in flight, no storage)\n",
            static_cast<long long>(pulledLogs), logSecs, static_cast<unsigned long long>(head + 1),
            headerSecs, ceilingSecs, double(events) / ceilingSecs);
        std::printf("CPU during the ceiling: fetch and parse %.2f s + anvil %.2f s\n",
                    ceilingOwnCpu, ceilingAnvilCpu);

        // forkscope with `args`, behind the command line in the environment variable `wrap`
        // if it is set (a profiler).
        const auto startForkscope = [&binary](QProcess& process, const char* wrap,
                                              const QStringList& args) {
            const QStringList w =
                qEnvironmentVariable(wrap).split(QLatin1Char(' '), Qt::SkipEmptyParts);
            if (w.isEmpty())
                process.start(binary, args);
            else
                process.start(w.first(), w.mid(1) + QStringList{binary} + args);
        };

        // A command that reads the synced file and asks the node: `forkscope verify` (every
        // block and log, "default" or "receipts"), or the report with its invariant check
        // ("report": every stored row against the node's).
        const auto audit = [&](const QString& dbPath, const QString& mode) -> bool {
            QProcess command;
            command.setProcessChannelMode(QProcess::ForwardedErrorChannel);
            QTemporaryDir out;
            const QString auditRpc = countingProxy->url().toString();
            QStringList args{QStringLiteral("--db"),  dbPath,
                             QStringLiteral("--env"), QStringLiteral("bench"),
                             QStringLiteral("--rpc"), auditRpc};
            if (mode == QLatin1String("foreign"))
                args = QStringList{QStringLiteral("audit"),
                                   QStringLiteral("--target"),
                                   dbPath,
                                   QStringLiteral("--rpc"),
                                   auditRpc,
                                   QStringLiteral("--query"),
                                   kOwnTransfersQuery} +
                       contractArgs;
            else if (mode == QLatin1String("report"))
                args = QStringList{QStringLiteral("report"), QStringLiteral("--format"),
                                   QStringLiteral("json"), QStringLiteral("--out"),
                                   out.filePath(QStringLiteral("report.json"))} +
                       args;
            else
                args.prepend(QStringLiteral("verify"));
            const lab::FaultProxy::CallCounts callsBefore = countingProxy->callCounts();
            if (mode == QLatin1String("receipts"))
                args << QStringLiteral("--receipts");
            const QString name =
                QStringLiteral("forkscope ") + args.first() +
                (mode == QLatin1String("receipts") ? QStringLiteral(" --receipts") : QString());
            const double anvilCpuBefore = processCpuSeconds(devnet.processId());
            t.restart();
            // FORKSCOPE_BENCH_AUDIT_WRAP="perf record -g -o /tmp/audit.data" profiles it.
            startForkscope(command, "FORKSCOPE_BENCH_AUDIT_WRAP", args);
            qint64 peakKiB = 0;
            while (command.state() != QProcess::NotRunning) {
                peakKiB = std::max(peakKiB, bench::peakRssKiB(command.processId()));
                command.waitForFinished(50);
            }
            const double secs = t.elapsed() / 1000.0;
            const double anvilCpu = processCpuSeconds(devnet.processId()) - anvilCpuBefore;
            const double cpu = childCpuSince();
            const QByteArray said = command.readAllStandardOutput();
            const lab::FaultProxy::CallCounts callsAfter = countingProxy->callCounts();
            qint64 calls = 0;
            for (auto it = callsAfter.calls.cbegin(); it != callsAfter.calls.cend(); ++it)
                calls += it.value() - callsBefore.calls.value(it.key());
            if (command.exitCode() != 0) {
                std::fprintf(stderr, "%s failed (%d): %s\n", qPrintable(name), command.exitCode(),
                             said.right(2000).constData());
                return false;
            }
            std::printf("audit (%s): %.2f s, %.0f events/s, peak RSS %.1f MiB; CPU: forkscope "
                        "%.2f s + anvil %.2f s\n",
                        qPrintable(name), secs, double(events) / secs, double(peakKiB) / 1024.0,
                        cpu, anvilCpu);
            std::printf("  calls to the node: %lld, %.1f per 1,000 blocks\n",
                        static_cast<long long>(calls), double(calls) * 1000.0 / double(head + 1));
            for (const QByteArray& line : said.split('\n'))
                if (line.startsWith("verdict:"))
                    std::printf("  %s\n", line.left(120).constData());
            if (mode == QLatin1String("report")) {
                QFile f(out.filePath(QStringLiteral("report.json")));
                f.open(QIODevice::ReadOnly);
                const QJsonObject inv = QJsonDocument::fromJson(f.readAll())
                                            .object()
                                            .value(QStringLiteral("invariants"))
                                            .toObject();
                std::printf("  invariants: %s\n",
                            qPrintable(inv.value(QStringLiteral("summary")).toString().left(200)));
            }
            return true;
        };
        const QStringList audits = p.value(auditOpt).split(QLatin1Char(','), Qt::SkipEmptyParts);

        const auto syncWith = [&](const QString& mode) -> bool {
            QTemporaryDir dir;
            QProcess index;
            index.setProcessChannelMode(QProcess::ForwardedErrorChannel);
            QStringList args{QStringLiteral("index"),
                             QStringLiteral("--rpc"),
                             syncUrl,
                             QStringLiteral("--db"),
                             dir.filePath(QStringLiteral("bench.sqlite")),
                             QStringLiteral("--env"),
                             QStringLiteral("bench"),
                             QStringLiteral("--exit-when-synced"),
                             QStringLiteral("--batch-size"),
                             QString::number(shape.batchSize),
                             QStringLiteral("--verify"),
                             mode};
            const double anvilCpuBefore = processCpuSeconds(devnet.processId());
            t.restart();
            // FORKSCOPE_BENCH_WRAP="perf record -g -o /tmp/perf.data" profiles the indexer.
            startForkscope(index, "FORKSCOPE_BENCH_WRAP", args + contractArgs);
            // This run's own peak, sampled while it runs: RUSAGE_CHILDREN's ru_maxrss is the
            // largest of all children so far, so with --runs it repeated the first run's peak.
            // (Under FORKSCOPE_BENCH_WRAP it is the wrapper's, unless the wrapper execs.)
            const qint64 pid = index.processId();
            qint64 peakKiB = 0;
            bench::CpuTimeline timeline(pid, devnet.processId(), "anvil", timelineBinMs);
            while (index.state() != QProcess::NotRunning) {
                peakKiB = std::max(peakKiB, bench::peakRssKiB(pid));
                if (timelineBinMs > 0)
                    timeline.sample(t.elapsed());
                index.waitForFinished(50);
            }
            const double secs = t.elapsed() / 1000.0;
            const double anvilCpu = processCpuSeconds(devnet.processId()) - anvilCpuBefore;
            if (index.exitCode() != 0) {
                std::fprintf(stderr, "forkscope index failed (%d): %s\n", index.exitCode(),
                             index.readAllStandardOutput().constData());
                return false;
            }
            const double cpu = childCpuSince();
            std::printf(
                "full sync (--verify %s): %.2f s, %.0f events/s, %.0f blocks/s, peak RSS %.1f MiB "
                "(batch size %d)\n",
                qPrintable(mode), secs, double(events) / secs, double(head) / secs,
                double(peakKiB) / 1024.0, shape.batchSize);
            // What the completeness proofs asked of the node: one call per recount, one per
            // bloom suspect, one per receipts proof.
            for (const QByteArray& line : index.readAllStandardOutput().split('\n'))
                if (line.startsWith("completeness:"))
                    std::printf("  %s\n", line.constData());
            // Anvil shares the cores: what both used says how much of the machine the sync had.
            const int cores = std::max(1, QThread::idealThreadCount());
            std::printf("CPU during the sync: indexer %.2f s + anvil %.2f s = %.0f%% of %d cores\n",
                        cpu, anvilCpu, 100.0 * (cpu + anvilCpu) / (secs * cores), cores);
            if (latencyMs > 0)
                std::printf("ratio: none (the sync's replies were each delayed %d ms, the "
                            "ceiling's were not)\n",
                            latencyMs);
            else
                std::printf("ratio: full sync at %.0f%% of the raw ceiling (target 80%%)\n",
                            100.0 * ceilingSecs / secs);
            if (timelineBinMs > 0)
                timeline.print(cores);
            const QString label = QStringLiteral("%1 (--verify %2)").arg(binary, mode);
            series.add(label, QStringLiteral("sync s"), secs);
            if (latencyMs == 0)
                series.add(label, QStringLiteral("ratio"), ceilingSecs / secs);
            series.add(label, QStringLiteral("indexer CPU s"), cpu);
            series.add(label, QStringLiteral("anvil CPU s"), anvilCpu);
            series.add(label, QStringLiteral("peak RSS MiB"), double(peakKiB) / 1024.0);
            // What the sync wrote: the committing thread's work grows with these bytes.
            const QString dbPath = dir.filePath(QStringLiteral("bench.sqlite"));
            const qint64 dbBytes =
                QFileInfo(dbPath).size() + QFileInfo(dbPath + QStringLiteral("-wal")).size();
            std::printf("database: %.1f MiB (%.0f bytes/event)", double(dbBytes) / (1 << 20),
                        double(dbBytes) / double(events));
            try {
                store::Database::Options ro;
                ro.readOnly = true;
                auto db = store::Database::open(dbPath, ro);
                QSqlQuery q = db->run(QStringLiteral(
                    "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 8"));
                std::printf(", largest:");
                while (q.next())
                    std::printf(" %s %.1f MiB", qPrintable(q.value(0).toString()),
                                q.value(1).toDouble() / (1 << 20));
            } catch (const std::exception& e) {
                std::printf(" (per table: %s)", e.what());
            }
            std::printf("\n");
            for (const QString& a : audits)
                if (!audit(dbPath, a))
                    return false;
            return true;
        };
        for (const QString& mode : p.value(verifyOpt).split(QLatin1Char(','), Qt::SkipEmptyParts))
            if (!syncWith(mode))
                return false;
        return true;
    };
    for (int run = 1; run <= runs; ++run) {
        binary = !against.isEmpty() && run % 2 == 0 ? against : QStringLiteral(FORKSCOPE_BINARY);
        if (runs > 1)
            std::printf("--- run %d of %d (%s)\n", run, runs, qPrintable(binary));
        if (!measure())
            return 1;
        std::fflush(stdout);
    }
    if (runs > 1) {
        std::printf("--- summary\n");
        series.print();
    }
    return 0;
}
