#include "SharedIndexCommand.h"
#include "CommandLine.h"
#include "LocalApiServer.h"
#include "UnixSignalWatcher.h"
#include "api/LiveMetrics.h"
#include "concurrency/WorkerThread.h"
#include "coord/CoordinationErrors.h"
#include "health/NodeHealthMonitor.h"
#include "indexer/IndexerErrors.h"
#include "indexer/SharedBackfill.h"
#include "indexer/SharedHeadFollower.h"
#include "outbox/JsonLinesSink.h"
#include "outbox/SharedOutboxDelivery.h"
#include "outbox/WebhookSink.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"
#include "rpc/RpcError.h"
#include "store/StoreError.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContract.h"
#include "wire/ReplyMismatchError.h"
#include "wire/SuspectedTruncationError.h"

#include <QCoreApplication>
#include <QHostInfo>
#include <QScopeGuard>
#include <cstdio>

namespace forkscope::app {

namespace {
// The local API of a shared index's process: the same methods and metrics as for a file,
// read from the shared index's views, with node health on its own thread for the head and
// the node states ("forked" judged against the shared index's blocks). Throws what
// connecting to the node or the database throws; an error() of the server is returned.
QString startSharedLocalApi(const IndexOptionsResult& parsed, api::LiveMetrics& live,
                            concurrency::WorkerThread& healthThread,
                            std::unique_ptr<LocalApiServer>& server)
{
    const indexer::IndexerConfig& config = *parsed.config;
    rpc::JsonRpcClient client(config.rpcUrl);
    client.setTimeout(config.rpcTimeout);
    const std::uint64_t chainId = rpc::EthClient(client).chainId();
    // The views the API reads exist once the contract does; every index process ensures it.
    store::pg::ensurePgContract(*store::pg::PgConnection::open(config.dbPath));
    live.setIndexedNode(config.rpcUrl.toString());
    health::NodeHealthMonitor::Config hc;
    hc.nodes = parsed.nodes.isEmpty() ? QList<QUrl>{config.rpcUrl} : parsed.nodes;
    hc.interval = parsed.checkInterval;
    hc.dbPath = config.dbPath;
    hc.environmentId = config.environmentId;
    hc.chainId = chainId;
    auto* monitor = new health::NodeHealthMonitor(hc);
    QObject::connect(monitor, &health::NodeHealthMonitor::healthAvailable, monitor,
                     [&live](const health::HealthSnapshot& h) { live.setHealth(h); });
    healthThread.start(monitor, &health::NodeHealthMonitor::start);
    server = std::make_unique<LocalApiServer>(parsed.metricsPort, config.dbPath,
                                              config.environmentId, chainId, config.sourceId, live);
    if (!server->error().isEmpty())
        return server->error();
    std::printf("api: http://127.0.0.1:%u/metrics and JSON-RPC on http://127.0.0.1:%u/\n",
                unsigned(server->port()), unsigned(server->port()));
    std::fflush(stdout);
    return {};
}
} // namespace

int runSharedIndexCommand(const IndexOptionsResult& parsed)
{
    indexer::IndexerConfig config = *parsed.config;
    if (config.contracts.isEmpty()) {
        printError(QStringLiteral("--contract: a shared backfill needs the contracts to index"));
        return ExitUsage;
    }

    indexer::SharedBackfill::Options options;
    config.stopToken = std::make_shared<concurrency::StopToken>();
    options.indexer = config;
    options.owner = QStringLiteral("%1/%2")
                        .arg(QHostInfo::localHostName())
                        .arg(QCoreApplication::applicationPid());
    options.lease = parsed.rangeLease;
    // SIGINT/SIGTERM: the blocking waits on the node end at once; the range in hand is
    // given back or left to its lease, and nothing half-written is committed.
    UnixSignalWatcher signalWatcher;
    QObject::connect(&signalWatcher, &UnixSignalWatcher::terminationRequested,
                     [token = config.stopToken](int) { token->requestStop(); });
    const auto say = [](const QString& line) {
        std::printf("%s\n", qPrintable(line));
        std::fflush(stdout);
    };
    std::printf("shared backfill of %s into %s as %s\n", qPrintable(config.environmentId),
                qPrintable(QUrl(config.dbPath).toString(QUrl::RemovePassword)),
                qPrintable(options.owner));
    std::fflush(stdout);
    api::LiveMetrics live;
    concurrency::WorkerThread healthThread(QStringLiteral("forkscope-health"));
    std::unique_ptr<LocalApiServer> apiServer;
    const auto stopHealth = qScopeGuard([&healthThread] {
        healthThread.stop([](QObject* m) { static_cast<health::NodeHealthMonitor*>(m)->stop(); });
    });
    try {
        // Every process ensures the contract again (SharedSession); this one says what it
        // restored, if anything.
        if (const QString restored =
                store::pg::ensurePgContract(*store::pg::PgConnection::open(config.dbPath));
            !restored.isEmpty())
            printError(QStringLiteral("warning: ") + restored);
        if (parsed.metricsPort != 0) {
            if (const QString error = startSharedLocalApi(parsed, live, healthThread, apiServer);
                !error.isEmpty()) {
                printError(QStringLiteral("--metrics-port: %1").arg(error));
                return ExitFailure;
            }
        }
        // The outbox goes out one process at a time (whichever holds the outbox lock), the
        // others waiting to take over: from the first range on, rows at or below the
        // checkpoint are final (the backfill stops --confirmations below the head).
        std::unique_ptr<outbox::OutboxSink> sink;
        if (!parsed.webhook.isEmpty())
            sink = std::make_unique<outbox::WebhookSink>(parsed.webhook, parsed.webhookTimeout,
                                                         parsed.webhookBatch);
        else if (!parsed.outboxFile.isEmpty())
            sink = std::make_unique<outbox::JsonLinesSink>(parsed.outboxFile);
        std::optional<outbox::SharedOutboxDelivery> delivery;
        const auto deliverer = [&](qint64 chainId) -> outbox::SharedOutboxDelivery* {
            if (sink && !delivery)
                delivery.emplace(config.dbPath, config.environmentId, chainId, options.owner, *sink,
                                 config.stopToken);
            return delivery ? &*delivery : nullptr;
        };
        options.betweenRanges = [&](qint64 chainId) {
            if (auto* d = deliverer(chainId)) {
                const qint64 before = d->result().delivered;
                d->deliverPending(say);
                if (d->result().delivered > before)
                    say(QStringLiteral("outbox: %1 rows delivered so far, during the backfill")
                            .arg(d->result().delivered));
            }
        };
        indexer::SharedBackfill backfill(options);
        const indexer::SharedBackfillResult r = backfill.run(say);
        if (!r.started) {
            say(QStringLiteral("stopped before the backfill started"));
            return ExitOk;
        }
        std::printf("%s: checkpoint %lld of target %lld; this process stored %lld ranges "
                    "(%lld blocks, %lld logs), took over %lld, lost %lld\n",
                    r.stopped                 ? "stopped"
                    : r.checkpoint < r.target ? "backfilled"
                                              : "synced",
                    static_cast<long long>(r.checkpoint), static_cast<long long>(r.target),
                    static_cast<long long>(r.rangesDone), static_cast<long long>(r.blocks),
                    static_cast<long long>(r.logs), static_cast<long long>(r.takeovers),
                    static_cast<long long>(r.lostRanges));
        std::fflush(stdout);
        if (r.stopped)
            return ExitOk;
        deliverer(r.chainId);
        // The head follower (whichever process holds the head lock), delivering between
        // rounds; until `untilCheckpoint` if given, else until stopped.
        const auto follow = [&](std::optional<qint64> untilCheckpoint) {
            indexer::SharedHeadFollower::Options o{
                config, options.owner, {}, std::nullopt, untilCheckpoint};
            if (delivery)
                o.betweenRounds = [&] { delivery->deliverPending(say); };
            return indexer::SharedHeadFollower(o).run(say);
        };
        if (config.exitWhenSynced && r.checkpoint < r.target) {
            // Every range done, yet the checkpoint stops below the target: the checkpoint's
            // own block left the node's chain during the backfill. The head follower rolls
            // that back (a reorg, recorded) and indexes on to the target; then this exits.
            say(QStringLiteral("checkpoint %1 is below the target %2: block %1 is no longer "
                               "the node's (a reorg during the backfill); rolling back and "
                               "indexing on to the target")
                    .arg(r.checkpoint)
                    .arg(r.target));
            const indexer::SharedFollowResult f = follow(r.target);
            if (config.stopToken->stopRequested()) {
                std::printf("stopped: checkpoint below the target %lld\n",
                            static_cast<long long>(r.target));
                return ExitOk;
            }
            std::printf("synced: the target %lld reached after %lld rollback(s) and %lld "
                        "block(s) indexed again\n",
                        static_cast<long long>(r.target), static_cast<long long>(f.reorgs),
                        static_cast<long long>(f.blocks));
            std::fflush(stdout);
        }
        if (!config.exitWhenSynced) {
            // Backfill complete: from here one process follows the head; the others stand by.
            const indexer::SharedFollowResult f = follow(std::nullopt);
            std::printf("stopped: this process followed %lld blocks (%lld logs), rolled back "
                        "%lld reorgs and met %lld absence suspicions%s\n",
                        static_cast<long long>(f.blocks), static_cast<long long>(f.logs),
                        static_cast<long long>(f.reorgs),
                        static_cast<long long>(f.absenceSuspicions), f.led ? "" : " (it stood by)");
            if (delivery)
                std::printf("outbox: this process delivered %lld rows\n",
                            static_cast<long long>(delivery->result().delivered));
            std::fflush(stdout);
            return ExitOk;
        }
        if (!delivery)
            return ExitOk;
        const outbox::SharedDeliveryResult d = delivery->run(say);
        std::printf("outbox %s: this process delivered %lld rows to %s (%lld retried, %lld "
                    "refused)\n",
                    d.stopped ? "stopped" : "delivered", static_cast<long long>(d.delivered),
                    qPrintable(sink->describe()), static_cast<long long>(d.retries),
                    static_cast<long long>(d.failed));
        std::fflush(stdout);
        return ExitOk;
    } catch (const store::StoreError& e) {
        printError(e.message());
    } catch (const coord::CoordinationError& e) {
        printError(e.message());
    } catch (const indexer::IndexerError& e) {
        printError(QString::fromUtf8(e.what()));
    } catch (const rpc::RpcException& e) {
        printError(QString::fromUtf8(e.what()));
    } catch (const std::exception& e) {
        printError(QString::fromUtf8(e.what()));
    }
    return ExitFailure;
}

} // namespace forkscope::app
