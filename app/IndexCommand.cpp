#include "IndexCommand.h"
#include "CommandLine.h"
#include "IndexOptions.h"
#include "TroubleDeadline.h"
#include "UnixSignalWatcher.h"
#include "abi/EventRegistry.h"
#include "chain/ChainParseError.h"
#include "indexer/AbsenceCheck.h"
#include "indexer/Indexer.h"
#include "indexer/IndexerErrors.h"
#include "rpc/EthClient.h"
#include "store/Database.h"
#include "store/DatabaseFiles.h"
#include "text/Count.h"
#include "wire/SuspectedTruncationError.h"

#include "LocalApiServer.h"
#include "api/LiveMetrics.h"
#include "engine/IndexingService.h"
#include "health/NodeHealthMonitor.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QScopeGuard>
#include <QThread>
#include <QTimer>
#include <cstdio>

namespace forkscope::app {

namespace {

// At most one progress line per second (the contract), plus one loud line per
// reorg and one per state change.
class ProgressPrinter
{
public:
    // The first window starts with indexing (counters at zero), so a sync shorter than a
    // second still reports what it did instead of "0 blocks/s".
    ProgressPrinter()
    {
        m_clock.start();
        m_troubleClock.start();
    }

    void maybePrint(const indexer::IndexerStatus& s, bool force = false)
    {
        using State = indexer::IndexerStatus::State;
        const bool trouble = s.state == State::NodeUnreachable || s.state == State::NodeBehind ||
                             s.state == State::NodeInconsistent ||
                             s.state == State::WaitingForStart;
        if (trouble && !s.message.isEmpty() &&
            (s.state != m_lastState || s.timeouts != m_lastTimeouts ||
             s.inconsistencies != m_lastInconsistencies) &&
            (s.state != m_lastState || m_troubleClock.elapsed() >= 1000)) {
            // Once per state change, and at most once a second while the trouble goes on
            // (so a node that keeps timing out is visible, not a silent "starting").
            QString counts;
            if (s.timeouts > 0)
                counts += QStringLiteral(" [%1 so far]")
                              .arg(text::count(s.timeouts, QStringLiteral("timeout"),
                                               QStringLiteral("timeouts")));
            if (s.inconsistencies > 0)
                counts +=
                    QStringLiteral(" [%1 so far]")
                        .arg(text::count(s.inconsistencies, QStringLiteral("inconsistent answer"),
                                         QStringLiteral("inconsistent answers")));
            std::printf("state: %s: %s%s\n", qPrintable(indexer::IndexerStatus::stateName(s.state)),
                        qPrintable(s.message), qPrintable(counts));
            std::fflush(stdout);
            m_troubleClock.restart();
            m_lastTimeouts = s.timeouts;
            m_lastInconsistencies = s.inconsistencies;
        }
        m_lastState = s.state;
        const qint64 ms = m_clock.elapsed();
        if (!force && ms < 1000)
            return;
        const double secs = std::max<double>(ms, 1) / 1000.0;
        const auto lag = s.lag();
        std::printf("head %s checkpoint %s lag %s | %.0f blocks/s %.0f logs/s | %s\n",
                    s.head ? qPrintable(QString::number(*s.head)) : "?",
                    s.checkpoint ? qPrintable(QString::number(*s.checkpoint)) : "none",
                    lag ? qPrintable(QString::number(*lag)) : "unknown",
                    double(s.blocksCommitted - m_lastBlocks) / secs,
                    double(s.logsCommitted - m_lastLogs) / secs,
                    qPrintable(indexer::IndexerStatus::stateName(s.state)));
        std::fflush(stdout);
        m_clock.restart();
        m_lastBlocks = s.blocksCommitted;
        m_lastLogs = s.logsCommitted;
    }

private:
    QElapsedTimer m_clock;
    qint64 m_lastBlocks = 0;
    qint64 m_lastLogs = 0;
    indexer::IndexerStatus::State m_lastState = indexer::IndexerStatus::State::Starting;
    QElapsedTimer m_troubleClock;
    qint64 m_lastTimeouts = 0;
    qint64 m_lastInconsistencies = 0;
};

// The final lines of a run that reached the head (--exit-when-synced).
void printSyncedSummary(const indexer::IndexerStatus& s, const indexer::IndexerConfig& config)
{
    if (!config.abiPath.isEmpty())
        std::printf(
            "abi: %s decoded, %lld unmatched or anonymous (kept raw), %lld failed "
            "to decode (kept raw, logs.decode_error)\n",
            qPrintable(text::count(s.abiDecoded, QStringLiteral("log"), QStringLiteral("logs"))),
            static_cast<long long>(s.abiUnmatched), static_cast<long long>(s.abiFailures));
    if (s.decodeFailures > 0)
        std::printf("note: %s the Transfer topic but did not decode; kept raw in "
                    "logs (decode_error), not counted as transfers\n",
                    qPrintable(s.decodeFailures == 1
                                   ? QStringLiteral("1 log carried")
                                   : QStringLiteral("%1 logs carried").arg(s.decodeFailures)));
    std::printf("synced: checkpoint %llu at head %llu (%lld range halvings, %lld failed fetches "
                "retried, %lld rejected batches, %lld absence suspicions, %lld timeouts, %lld "
                "inconsistent answers)\n",
                static_cast<unsigned long long>(s.checkpoint.value_or(0)),
                static_cast<unsigned long long>(s.head.value_or(0)),
                static_cast<long long>(s.truncationHalvings),
                static_cast<long long>(s.fetchFailures), static_cast<long long>(s.rejectedBatches),
                static_cast<long long>(s.absenceSuspicions), static_cast<long long>(s.timeouts),
                static_cast<long long>(s.inconsistencies));
    const wire::CompletenessStats& c = s.completeness;
    std::printf(
        "completeness: %lld block blooms checked, %lld last blocks recounted, %lld "
        "receipt proofs; %lld bloom false positives; truncations found and fetched "
        "again: %lld by bloom, %lld by recount, %lld by receipts, %lld by splitting%s\n",
        static_cast<long long>(c.bloomChecks), static_cast<long long>(c.recounts),
        static_cast<long long>(c.receiptProofs), static_cast<long long>(c.falsePositives),
        static_cast<long long>(c.bloomTruncations), static_cast<long long>(c.recountTruncations),
        static_cast<long long>(c.receiptTruncations), static_cast<long long>(c.splitTruncations),
        c.learnedCap
            ? qPrintable(QStringLiteral(" (the node caps results at %1 logs)").arg(*c.learnedCap))
            : "");
    std::fflush(stdout);
}

} // namespace

int runIndexCommand(const QStringList& arguments)
{
    const IndexOptionsResult parsed = parseIndexOptions(arguments);
    if (parsed.helpRequested) {
        std::fputs(qPrintable(parsed.helpText), stdout);
        return ExitOk;
    }
    if (!parsed.config) {
        printError(parsed.error);
        return ExitUsage;
    }
    indexer::IndexerConfig config = *parsed.config;
    config.rangeLease = parsed.rangeLease;
    // Files read or written next to the database must not be the database: a raw open and
    // close of it drops the process's SQLite locks, and appending to it destroys it.
    for (const auto& [flag, path] :
         {std::pair{"--abi", config.abiPath}, std::pair{"--outbox-file", parsed.outboxFile}})
        if (store::isDatabaseFile(path, config.dbPath)) {
            printError(QStringLiteral("%1 %2 is the database (or one of its files); pass "
                                      "another file")
                           .arg(QLatin1String(flag), path));
            return ExitUsage;
        }
    if (!config.abiPath.isEmpty()) {
        try {
            const auto registry = abi::EventRegistry::fromFile(config.abiPath);
            if (registry.eventCount() == 0) {
                printError(QStringLiteral("--abi %1 declares no events").arg(config.abiPath));
                return ExitUsage;
            }
        } catch (const abi::AbiError& e) {
            printError(QStringLiteral("--abi: %1").arg(e.message()));
            return ExitUsage;
        }
    }

    // The indexer, node health and the outbox run in the IndexingService, as in the app, on
    // either store; this thread only prints what it reports and decides when to exit.
    engine::IndexingOptions options;
    options.indexer = config;
    options.healthNodes = parsed.nodes;
    options.healthInterval = parsed.checkInterval;
    options.healthTimeout =
        std::min(std::chrono::milliseconds(2000),
                 std::max(parsed.checkInterval, std::chrono::milliseconds(500)));
    options.lagThreshold = parsed.lagThreshold;
    options.readyRatio = parsed.readyRatio;
    options.webhook = parsed.webhook;
    options.outboxFile = parsed.outboxFile;
    options.webhookTimeout = parsed.webhookTimeout;
    options.webhookBatch = parsed.webhookBatch;
    options.retryIncompleteAfter = parsed.retryIncomplete;
    const bool sink = !parsed.webhook.isEmpty() || !parsed.outboxFile.isEmpty();
    engine::IndexingService service(options);

    QEventLoop loop;
    int exitCode = ExitOk;
    bool finishing = false;
    // Ends the run: the service stops (its blocking waits end at once), then the loop.
    const auto finish = [&](int code) {
        if (finishing)
            return;
        finishing = true;
        exitCode = code;
        service.requestStop();
    };
    UnixSignalWatcher signalWatcher;
    QObject::connect(&signalWatcher, &UnixSignalWatcher::terminationRequested, &loop,
                     [&](int) { finish(ExitOk); });
    QObject::connect(&service, &engine::IndexingService::stopped, &loop, &QEventLoop::quit,
                     Qt::QueuedConnection);
    QObject::connect(&service, &engine::IndexingService::reorged, &loop,
                     [](const indexer::RollbackResult& r, const QString& reason) {
                         std::printf("REORG (%s): %s\n", qPrintable(reason),
                                     qPrintable(r.summary()));
                         std::fflush(stdout);
                     });
    QObject::connect(&service, &engine::IndexingService::absence, &loop,
                     [](const QList<quint64>& blocks, bool contradicted) {
                         indexer::AbsenceFinding finding{{}, contradicted};
                         for (auto b : blocks)
                             finding.blocks << std::uint64_t(b);
                         std::printf("%s\n", qPrintable(indexer::describeAbsence(finding)));
                         std::fflush(stdout);
                     });
    QObject::connect(&service, &engine::IndexingService::nodeStateChanged, &loop,
                     [](const QString& url, int from, int to) {
                         if (from == to)
                             std::printf("node %s: %s\n", qPrintable(url),
                                         qPrintable(health::nodeStateName(health::NodeState(to))));
                         else
                             std::printf("node %s: %s -> %s\n", qPrintable(url),
                                         qPrintable(health::nodeStateName(health::NodeState(from))),
                                         qPrintable(health::nodeStateName(health::NodeState(to))));
                         std::fflush(stdout);
                     });
    QObject::connect(&service, &engine::IndexingService::logMessage, &loop,
                     [](const QString& level, const QString& text) {
                         // Outbox trouble goes to stderr as before, and what opening the
                         // database restored; who does what among the writers of a shared
                         // database (the head, the outbox, ranges taken over) to stdout; the
                         // rest is in the state lines or the final error.
                         if (level == QLatin1String("error") &&
                             text.startsWith(QLatin1String("outbox: ")))
                             printError(text);
                         else if (level == QLatin1String("warning") &&
                                  text.startsWith(QLatin1String("database ")))
                             printError(QStringLiteral("warning: ") + text);
                         else if (level == QLatin1String("info")) {
                             std::printf("%s\n", qPrintable(text));
                             std::fflush(stdout);
                         }
                     });
    api::LiveMetrics live;
    live.setIndexedNode(config.rpcUrl.toString());
    QObject::connect(&service, &engine::IndexingService::healthAvailable, &loop,
                     [&live](const health::HealthSnapshot& h) { live.setHealth(h); });
    std::unique_ptr<LocalApiServer> apiServer;
    ProgressPrinter progress;
    TroubleDeadline trouble(parsed.giveUpAfter);
    QString incomplete;          // the block not fetched whole, said once while retried
    QElapsedTimer incompleteFor; // since it was first said
    indexer::IndexerStatus last;
    QObject::connect(
        &service, &engine::IndexingService::snapshotAvailable, &loop,
        [&](const engine::IndexingSnapshot& snap) {
            if (finishing)
                return;
            const indexer::IndexerStatus& s = snap.status;
            last = s;
            live.setIndexer(s);
            if (!snap.fatal.isEmpty()) {
                const bool retried = snap.halt == engine::IndexingSnapshot::Halt::Truncation &&
                                     parsed.retryIncomplete.count() > 0;
                if (!retried) {
                    printError(snap.fatal);
                    finish(ExitFailure);
                } else if (incomplete != snap.fatal) {
                    incomplete = snap.fatal;
                    incompleteFor.start();
                    printError(QStringLiteral("%1; trying the node again every %2 ms")
                                   .arg(snap.fatal)
                                   .arg(parsed.retryIncomplete.count()));
                } else if (config.exitWhenSynced && parsed.giveUpAfter.count() > 0 &&
                           incompleteFor.hasExpired(parsed.giveUpAfter.count())) {
                    printError(QStringLiteral("gave up after %1 ms of data incomplete "
                                              "(--give-up-after-ms): %2")
                                   .arg(parsed.giveUpAfter.count())
                                   .arg(snap.fatal));
                    finish(ExitFailure);
                }
                return;
            }
            incomplete.clear();
            if (parsed.metricsPort && !apiServer && snap.chainId != 0) {
                apiServer = std::make_unique<LocalApiServer>(parsed.metricsPort, config.dbPath,
                                                             config.environmentId, snap.chainId,
                                                             config.sourceId, live);
                if (!apiServer->error().isEmpty()) {
                    printError(QStringLiteral("--metrics-port: %1").arg(apiServer->error()));
                    finish(ExitFailure);
                    return;
                }
                std::printf(
                    "api: http://127.0.0.1:%u/metrics and JSON-RPC on http://127.0.0.1:%u/\n",
                    unsigned(apiServer->port()), unsigned(apiServer->port()));
                std::fflush(stdout);
            }
            progress.maybePrint(s);
            if (!config.exitWhenSynced)
                return;
            if (s.state == indexer::IndexerStatus::State::WaitingForStart) {
                // Nothing indexed and nothing to index yet: not "synced". Exit 1 rather than
                // wait: a script asked to catch up now, and a mistyped start block would
                // otherwise hang it for as long as the chain takes to get there.
                printError(QStringLiteral("--from-block %1 is above the node's head %2: nothing "
                                          "indexed, not synced; run without --exit-when-synced "
                                          "to wait for the chain to reach it")
                               .arg(config.fromBlock)
                               .arg(s.head.value_or(0)));
                finish(ExitFailure);
                return;
            }
            if (const auto giveUp = trouble.observe(s)) {
                printError(*giveUp);
                finish(ExitFailure);
                return;
            }
            if (s.state != indexer::IndexerStatus::State::Synced || !snap.nodeHeadsSampled)
                return;
            // With a sink, "synced" also means every row at or below the safe height went
            // out (or was refused for good); without a gate yet, wait for it.
            if (sink && (!snap.safeHeight || snap.outboxPendingAtOrBelowSafe != 0))
                return;
            if (sink)
                std::printf("outbox: %s delivered to %s, %lld refused\n",
                            qPrintable(text::count(snap.outboxDelivered, QStringLiteral("row"),
                                                   QStringLiteral("rows"))),
                            qPrintable(snap.outboxSink),
                            static_cast<long long>(snap.outboxRefused));
            progress.maybePrint(s, true);
            printSyncedSummary(s, config);
            finish(ExitOk);
        });
    service.start();
    loop.exec();
    if (exitCode == ExitOk && !config.exitWhenSynced)
        progress.maybePrint(last, true);
    return exitCode;
}

} // namespace forkscope::app
