// Outbox delivery rate to a sink that fails half the time.
//
// Fills a fresh database with --rows pending outbox rows (transfer-sized payloads, 3 per
// block, all at or below the safe height), then runs the product's own OutboxThread (the
// dispatcher thread `forkscope index` runs) against a loopback webhook that answers 503 to
// --fail-rate of its requests (seeded, or strictly alternating), and prints the rows per
// second until every row is delivered or --max-seconds pass. Modes: one row per request,
// each --batch size of rows per request (--webhook-batch), and a JSON Lines file (no
// failures: the file sink's own rate, one fsync per batch).
//
//   build/bench/forkscope_bench_outbox [--rows 3000] [--fail-rate 0.5] [--pattern random|alternate]
//                                      [--seed 1] [--batch 100,500] [--modes single,batch,file]
//                                      [--max-seconds 60]
#include "FlappingWebhook.h"
#include "outbox/OutboxQueue.h"
#include "outbox/OutboxThread.h"
#include "store/Database.h"
#include "store/OpenStore.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>

using namespace forkscope;
using bench::FlappingWebhook;

namespace {

const QString kEnv = QStringLiteral("bench");
constexpr std::uint64_t kChain = 31337;

// `rows` pending rows, 3 per block, with payloads shaped like the indexer's transfers.
std::uint64_t seed(const QString& path, int rows)
{
    auto db = store::Database::open(path);
    store::WriteTransaction tx(*db);
    db->run(QStringLiteral("INSERT INTO environments (environment_id, chain_id, genesis_hash, "
                           "rpc_url, created_at) VALUES (?, ?, '0x00', 'http://bench', ?)"),
            {kEnv, qint64(kChain), store::nowUtc()});
    const QByteArray hash = "0x" + QByteArray(64, 'a');
    const QByteArray address = "0x" + QByteArray(40, 'b');
    std::uint64_t block = 0;
    for (int i = 0; i < rows; ++i) {
        block = std::uint64_t(i / 3 + 1);
        const QByteArray b = QByteArray::number(block);
        const QByteArray logIndex = QByteArray::number(i % 3);
        const QByteArray payload = "{\"type\":\"transfer\",\"chainId\":31337,\"blockNumber\":" + b +
                                   ",\"blockHash\":\"" + hash + "\",\"logIndex\":" + logIndex +
                                   ",\"txHash\":\"" + hash + "\",\"contract\":\"" + address +
                                   "\",\"from\":\"" + address + "\",\"to\":\"" + address +
                                   "\",\"value\":\"" + QByteArray::number(1000 + i) + "\"}";
        db->runCached(QStringLiteral("INSERT INTO outbox (environment_id, chain_id, block_number, "
                                     "event_key, payload) VALUES (?, ?, ?, ?, ?)"),
                      {kEnv, qint64(kChain), qint64(block),
                       QString::fromLatin1("transfer:" + b + ':' + hash + ':' + logIndex),
                       QString::fromLatin1(payload)});
    }
    tx.commit();
    return block;
}

struct Figures
{
    qint64 delivered = 0;
    double secs = 0;
};

// Runs one OutboxThread until `rows` are delivered or `maxSecs` pass, serving the webhook
// on this thread's event loop meanwhile.
Figures run(const QString& dbPath, std::uint64_t safe, const QUrl& webhook, const QString& file,
            int batch, int rows, int maxSecs)
{
    QElapsedTimer clock;
    clock.start();
    outbox::OutboxThread thread(
        [dbPath] { return store::openOutboxQueue(dbPath, kEnv, kChain); }, webhook, file,
        std::chrono::milliseconds(5000),
        [](const QString& m) { std::fprintf(stderr, "outbox: %s\n", qPrintable(m)); }, batch);
    thread.setSafeHeight(safe);
    QEventLoop loop;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
        if (thread.delivered() >= rows || clock.elapsed() >= qint64(maxSecs) * 1000)
            loop.quit();
    });
    poll.start(5);
    loop.exec();
    return {thread.delivered(), double(clock.nsecsElapsed()) / 1e9};
}

} // namespace

int main(int argc, char** argv)
{
    QCoreApplication app(argc, argv);
    QCommandLineParser p;
    p.addHelpOption();
    const QCommandLineOption rowsOpt(QStringLiteral("rows"),
                                     QStringLiteral("Outbox rows to deliver (default 3000)."),
                                     QStringLiteral("N"), QStringLiteral("3000"));
    const QCommandLineOption failOpt(
        QStringLiteral("fail-rate"),
        QStringLiteral("Share of requests answered 503 (default 0.5)."), QStringLiteral("R"),
        QStringLiteral("0.5"));
    const QCommandLineOption patternOpt(
        QStringLiteral("pattern"),
        QStringLiteral(
            "random (seeded) or alternate (every other request fails; ignores --fail-rate)."),
        QStringLiteral("P"), QStringLiteral("random"));
    const QCommandLineOption seedOpt(QStringLiteral("seed"),
                                     QStringLiteral("Seed of the random failures (default 1)."),
                                     QStringLiteral("S"), QStringLiteral("1"));
    const QCommandLineOption batchOpt(
        QStringLiteral("batch"),
        QStringLiteral("Rows per request in batch mode, comma-separated (default 100,500)."),
        QStringLiteral("LIST"), QStringLiteral("100,500"));
    const QCommandLineOption modesOpt(QStringLiteral("modes"),
                                      QStringLiteral("Comma-separated: single, batch, file."),
                                      QStringLiteral("LIST"), QStringLiteral("single,batch,file"));
    const QCommandLineOption maxOpt(QStringLiteral("max-seconds"),
                                    QStringLiteral("Stop a mode after this long (default 60)."),
                                    QStringLiteral("S"), QStringLiteral("60"));
    p.addOptions({rowsOpt, failOpt, patternOpt, seedOpt, batchOpt, modesOpt, maxOpt});
    p.process(app);
    const int rows = std::max(1, p.value(rowsOpt).toInt());
    const double failRate = std::clamp(p.value(failOpt).toDouble(), 0.0, 0.99);
    const bool alternate = p.value(patternOpt) == QLatin1String("alternate");
    const quint32 seedValue = p.value(seedOpt).toUInt();
    QList<int> batches;
    for (const QString& b : p.value(batchOpt).split(QLatin1Char(','), Qt::SkipEmptyParts))
        batches << std::clamp(b.toInt(), 1, 500);
    const int maxSecs = std::max(1, p.value(maxOpt).toInt());

    std::printf("outbox delivery, %d rows; webhook failing %s\n", rows,
                alternate ? "every other request"
                          : qPrintable(QStringLiteral("%1% of requests at random (seed %2)")
                                           .arg(failRate * 100)
                                           .arg(seedValue)));
    std::printf("%-22s %9s %8s %10s %9s %8s %6s\n", "mode", "delivered", "secs", "rows/s",
                "requests", "failed", "dupes");
    // One run per mode and batch size: (label, rows per request; 0 = the JSON Lines file).
    QList<QPair<QString, int>> runs;
    for (const QString& mode : p.value(modesOpt).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        if (mode == QLatin1String("single"))
            runs.append({QStringLiteral("webhook, 1 row/request"), 1});
        else if (mode == QLatin1String("batch"))
            for (int b : batches)
                runs.append({QStringLiteral("webhook, batch %1").arg(b), b});
        else if (mode == QLatin1String("file"))
            runs.append({QStringLiteral("JSON Lines file"), 0});
        else
            std::fprintf(stderr, "unknown mode %s (single, batch, file)\n", qPrintable(mode));
    }
    for (const auto& [label, perRequest] : runs) {
        QTemporaryDir dir;
        const QString dbPath = dir.filePath(QStringLiteral("bench.sqlite"));
        const std::uint64_t safe = seed(dbPath, rows);
        FlappingWebhook hook(alternate ? FlappingWebhook::Pattern::Alternate
                                       : FlappingWebhook::Pattern::Random,
                             failRate, seedValue);
        const Figures f =
            perRequest == 0
                ? run(dbPath, safe, {}, dir.filePath(QStringLiteral("out.jsonl")), 1, rows, maxSecs)
                : run(dbPath, safe, hook.url(), {}, perRequest, rows, maxSecs);
        std::printf("%-22s %9lld %8.2f %10.1f %9lld %8lld %6lld\n", qPrintable(label),
                    static_cast<long long>(f.delivered), f.secs, double(f.delivered) / f.secs,
                    static_cast<long long>(hook.requests),
                    static_cast<long long>(hook.failedRequests),
                    static_cast<long long>(hook.duplicateRows));
        std::fflush(stdout);
    }
    return 0;
}
