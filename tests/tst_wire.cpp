// The fetcher/receiver wire: provider limit wordings, completeness under silent and
// announced caps, suspected truncation, and the receiver-owned cursor (a re-sent batch is
// corrected by expectedFromBlock, never applied twice).
#include "IndexerLab.h"
#include "chain/LogsBloom.h"
#include "indexer/Indexer.h"
#include "lab/FaultProxy.h"
#include "store/Database.h"
#include "store/SqliteIndexStore.h"
#include "wire/LogFetcher.h"
#include "wire/ProviderLimit.h"
#include "wire/SuspectedTruncationError.h"

#include <QtTest>
#include <memory>

using namespace forkscope;

class TestWire : public QObject
{
    Q_OBJECT
private slots:
    void providerLimits_data();
    void providerLimits();
    void addressLimits_data();
    void addressLimits();
    void silentCapIsHalvedUntilComplete_data();
    void silentCapIsHalvedUntilComplete();
    void equalRepliesAreProvenByOneWiderReply();
    void announcedCapIsSplit_data();
    void announcedCapIsSplit();
    void aRangeIsAskedInPartsOfAboutLogsPerCall();
    void aRefusedPartIsNotAskedAgain();
    void aLoneBlockIsProvenByItsNeighbours();
    void singleBlockOnTheCapIsProvenOrRefused_data();
    void singleBlockOnTheCapIsProvenOrRefused();
    void resentBatchIsCorrectedNotDoubled();
    void aBatchWhoseHeadersStopLinkingKeepsItsLinkedPrefix();
    void decodedArgumentsOfABatchAreBounded();
    void headerBloomIsTheBloomOfTheBlocksLogs();
};

void TestWire::providerLimits_data()
{
    // clang-format off
    QTest::addColumn<QString>("message");
    QTest::addColumn<bool>("isLimit");
    QTest::addColumn<qint64>("suggestedTo"); // -1: none
    QTest::addColumn<qint64>("maxBlocks");   // -1: none
    QTest::newRow("geth/infura") << "query returned more than 10000 results. Try with this block range [0x1, 0x2f]."
                                 << true << qint64(0x2f) << qint64(-1);
    QTest::newRow("alchemy")
        << "Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters, this block range should work: [0x3c49a5, 0x3c4a19]"
        << true << qint64(0x3c4a19) << qint64(2000);
    QTest::newRow("range too large") << "block range too large" << true << qint64(-1) << qint64(-1);
    QTest::newRow("max range") << "exceed maximum block range: 5000" << true << qint64(-1) << qint64(5000);
    QTest::newRow("max is 1k") << "range is too large, max is 1k blocks" << true << qint64(-1) << qint64(1000);
    QTest::newRow("not a limit: rate") << "rate limited, slow down" << false << qint64(-1) << qint64(-1);
    QTest::newRow("not a limit: method") << "the method eth_getLogs does not exist" << false << qint64(-1) << qint64(-1);
    // clang-format on
}

void TestWire::providerLimits()
{
    QFETCH(QString, message);
    QFETCH(bool, isLimit);
    QFETCH(qint64, suggestedTo);
    QFETCH(qint64, maxBlocks);
    const auto limit = wire::parseProviderLimit(message);
    QCOMPARE(limit.has_value(), isLimit);
    if (!limit)
        return;
    QCOMPARE(limit->suggestedTo ? qint64(*limit->suggestedTo) : -1, suggestedTo);
    QCOMPARE(limit->maxBlocks ? qint64(*limit->maxBlocks) : -1, maxBlocks);
}

void TestWire::addressLimits_data()
{
    // clang-format off
    QTest::addColumn<QString>("message");
    QTest::addColumn<bool>("isLimit");
    QTest::addColumn<qint64>("maxAddresses"); // -1: not named
    QTest::newRow("geth") << "exceed max addresses" << true << qint64(-1);
    QTest::newRow("erigon") << "query exceeds the maximum of 1000 addresses or topics per search position"
                            << true << qint64(1000);
    QTest::newRow("too many") << "too many addresses in filter (max 30)" << true << qint64(-1);
    QTest::newRow("not one: results") << "query returned more than 10000 results" << false << qint64(-1);
    QTest::newRow("not one: range") << "block range too large" << false << qint64(-1);
    // clang-format on
}

void TestWire::addressLimits()
{
    QFETCH(QString, message);
    QFETCH(bool, isLimit);
    QFETCH(qint64, maxAddresses);
    const auto limit = wire::parseAddressLimit(message);
    QCOMPARE(limit.has_value(), isLimit);
    if (limit)
        QCOMPARE(limit->maxAddresses ? qint64(*limit->maxAddresses) : -1, maxAddresses);
}

namespace {
// Fetches [from, head] batch after batch and checks each is complete against the node.
int fetchAllAndCheck(test::IndexerLab& lab, wire::LogFetcher& fetcher, int* batches,
                     int* logCalls = nullptr)
{
    const auto head = lab.eth().blockNumber();
    std::uint64_t from = 0;
    int halvings = 0;
    *batches = 0;
    while (from <= head) {
        const wire::WireBatch b = fetcher.fetch(from, head, head);
        ++*batches;
        halvings += b.halvings;
        if (logCalls)
            *logCalls += b.logCalls;
        rpc::LogFilter f;
        f.fromBlock = b.fromBlock;
        f.toBlock = b.toBlock;
        f.addresses = lab.contracts();
        const auto truth = lab.eth().getLogs(f);
        if (truth.size() != b.logs.size())
            return -1; // incomplete: a batch must hold every log of its range
        from = b.toBlock + 1;
    }
    return halvings;
}
// A LogFetcher talking to the lab's anvil through a proxy that caps eth_getLogs.
struct CappedFetch
{
    CappedFetch(test::IndexerLab& lab, lab::FaultProxy::CapMode mode, std::uint64_t fetcherCap,
                qint64 logsPerCall)
        : proxy(lab.devnet().url())
    {
        proxy.listen();
        proxy.setLogCap(50, mode);
        client = std::make_unique<rpc::JsonRpcClient>(proxy.url());
        eth = std::make_unique<rpc::EthClient>(*client);
        wire::FetchSpec spec;
        spec.contracts = lab.contracts();
        spec.logCap = fetcherCap;
        spec.logsPerCall = logsPerCall;
        fetcher = std::make_unique<wire::LogFetcher>(*eth, spec);
    }
    lab::FaultProxy proxy;
    std::unique_ptr<rpc::JsonRpcClient> client;
    std::unique_ptr<rpc::EthClient> eth;
    std::unique_ptr<wire::LogFetcher> fetcher;
};

// Each cap is met by one call per range, and by a range asked in parts (of about 100 logs,
// over the cap of 50): a part on the cap is asked again on its own and halved.
void addCallSizes()
{
    QTest::addColumn<qint64>("logsPerCall");
    QTest::newRow("one call per range") << qint64(0);
    QTest::newRow("parts of about 100 logs") << qint64(100);
}
// An Indexer receiving batches for `env` into the lab's file, with the fetch spec that
// matches it. The receiver goes before the database (members are destroyed in reverse):
// its prepared statements would keep SQLite from closing the connection (leaked, as
// LeakSanitizer reports).
struct Receiver
{
    std::unique_ptr<store::Database> db;
    std::unique_ptr<store::SqliteIndexStore> store;
    std::unique_ptr<indexer::Indexer> indexer;
    wire::FetchSpec spec;
    void close()
    {
        indexer.reset();
        store.reset();
        db.reset();
    }
};

Receiver receiverFor(test::IndexerLab& lab, const QString& env)
{
    Receiver r;
    r.db = store::Database::open(lab.dbPath());
    indexer::IndexerConfig config;
    config.rpcUrl = lab.devnet().url();
    config.environmentId = env;
    config.contracts = lab.contracts();
    r.store = std::make_unique<store::SqliteIndexStore>(*r.db);
    r.indexer = std::make_unique<indexer::Indexer>(config, *r.store, lab.eth());
    r.indexer->prepare();
    r.spec.context = r.indexer->wireContext();
    r.spec.contracts = lab.contracts();
    return r;
}

} // namespace

void TestWire::silentCapIsHalvedUntilComplete_data()
{
    addCallSizes();
}

void TestWire::silentCapIsHalvedUntilComplete()
{
    QFETCH(qint64, logsPerCall);
    test::IndexerLab lab;
    lab.deployToken("AAA");
    lab.deployToken("BBB");
    lab.sprayAll(30, 20, 50); // 1,200 transfers over 30 blocks
    CappedFetch capped(lab, lab::FaultProxy::CapMode::Silent, 50, logsPerCall);
    int batches = 0;
    int calls = 0;
    const int halvings = fetchAllAndCheck(lab, *capped.fetcher, &batches, &calls);
    // Complete batches (fetchAllAndCheck compares each with the node), and ranges split
    // to get them.
    QVERIFY2(halvings > 0, "the cap never made the fetcher halve");
    QVERIFY(batches > 0);
    if (logsPerCall > 0)
        QVERIFY2(calls > batches, "no range was asked in parts");
}

// A chain whose ranges all hold as many logs: each reply is as large as the largest seen, so
// a silent cap could have cut it. One reply of a wider range, larger than them, proves the
// cap is above them all: the ranges after it are trusted without being split in halves.
void TestWire::equalRepliesAreProvenByOneWiderReply()
{
    test::IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(40, 10, 20); // 40 blocks of 10 transfers
    const std::uint64_t head = lab.eth().blockNumber();
    const std::uint64_t first = head - 39;
    wire::FetchSpec spec;
    spec.contracts = lab.contracts();
    spec.logsPerCall = 0; // one call per range
    wire::LogFetcher fetcher(lab.eth(), spec);
    qint64 proofs = 0;
    for (std::uint64_t from = first + 4; from + 3 <= head; from += 4) {
        const wire::WireBatch b = fetcher.fetch(from, from + 3, head);
        QCOMPARE(b.toBlock, from + 3);
        QCOMPARE(b.logs.size(), qsizetype(40));
        QCOMPARE(b.halvings, 0);
        proofs += b.completeness.widerProofs;
    }
    QCOMPARE(proofs, qint64(1));
    QCOMPARE(spec.capacity->largest(), qint64(80)); // the wider reply: two ranges' logs
}

void TestWire::announcedCapIsSplit_data()
{
    addCallSizes();
}

void TestWire::announcedCapIsSplit()
{
    QFETCH(qint64, logsPerCall);
    test::IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(20, 20, 50);
    // Fetcher cap 0: only the announced errors limit us here.
    CappedFetch capped(lab, lab::FaultProxy::CapMode::Announced, 0, logsPerCall);
    int batches = 0;
    int calls = 0;
    QVERIFY(fetchAllAndCheck(lab, *capped.fetcher, &batches, &calls) > 0);
    QVERIFY(capped.proxy.cappedReplies() >= 3); // all three wordings were met and understood
    if (logsPerCall > 0)
        QVERIFY2(calls > batches, "no range was asked in parts");
}

void TestWire::aRangeIsAskedInPartsOfAboutLogsPerCall()
{
    test::IndexerLab lab;
    lab.deployToken("AAA");
    lab.deployToken("BBB");
    lab.sprayAll(30, 20, 50); // 1,200 transfers over 30 blocks
    const auto head = lab.eth().blockNumber();
    lab.mine(8); // and then eight blocks without a log
    wire::FetchSpec spec;
    spec.contracts = lab.contracts();
    // What one call returns, to compare the parts with: the same logs in the same order.
    spec.logsPerCall = 0;
    const wire::WireBatch whole = wire::LogFetcher(lab.eth(), spec).fetch(0, head, head);
    QCOMPARE(whole.logCalls, 1);
    QVERIFY(whole.logs.size() >= 1200); // and the mints
    const auto sameAsWhole = [&](const wire::WireBatch& b) {
        if (b.toBlock != whole.toBlock || b.logs.size() != whole.logs.size())
            return false;
        for (qsizetype i = 0; i < whole.logs.size(); ++i)
            if (std::tie(b.logs[i].blockNumber, b.logs[i].logIndex, b.logs[i].transactionHash) !=
                std::tie(whole.logs[i].blockNumber, whole.logs[i].logIndex,
                         whole.logs[i].transactionHash))
                return false;
        return true;
    };
    const auto freshFetcher = [&](qint64 logsPerCall) {
        spec.logsPerCall = logsPerCall;
        spec.logsPerBlock = wire::FetchSpec().logsPerBlock; // nothing seen yet
        return std::make_unique<wire::LogFetcher>(lab.eth(), spec);
    };

    // Before any range is seen the logs per block are unknown: four parts by blocks (sent
    // together, read in order), never one call of the whole range.
    QVERIFY(sameAsWhole(freshFetcher(100)->fetch(0, head, head)));
    auto fetcher = freshFetcher(100);
    QCOMPARE(fetcher->fetch(0, head, head).logCalls, int(wire::FetchSpec::kMaxCallsPerRange));
    // Two blocks are two parts while nothing is known; once about 40 logs a block are seen,
    // two blocks (about 80 logs) are one call.
    fetcher = freshFetcher(100);
    QCOMPARE(fetcher->fetch(head - 1, head, head).logCalls, 2);
    QCOMPARE(fetcher->fetch(head - 1, head, head).logCalls, 1);
    // Then about 100 logs a call, but never more than four calls for a range.
    const wire::WireBatch parts = fetcher->fetch(0, head, head);
    QCOMPARE(parts.logCalls, int(wire::FetchSpec::kMaxCallsPerRange));
    QVERIFY(sameAsWhole(parts));
    // A range seen to hold no logs is known to be sparse, not unknown: one call.
    fetcher = freshFetcher(100);
    QCOMPARE(fetcher->fetch(head + 1, head + 8, head + 8).logCalls, 4);
    QCOMPARE(fetcher->fetch(head + 1, head + 8, head + 8).logCalls, 1);
    // logsPerCall 0 is one call per range, known or not.
    QCOMPARE(freshFetcher(0)->fetch(0, head, head).logCalls, 1);
}

void TestWire::aRefusedPartIsNotAskedAgain()
{
    test::IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(30, 10, 50);
    const auto head = lab.eth().blockNumber();
    CappedFetch f(lab, lab::FaultProxy::CapMode::Silent, 10000, 100);
    f.proxy.setLogCap(0, lab::FaultProxy::CapMode::Silent); // no cap: only the refusal
    // Nothing is known yet, so the range goes out in four parts by blocks; the second is
    // refused with a rate limit. That is node trouble for the indexer's backoff, not a
    // provider limit to split around: the part is not asked again at once.
    const std::uint64_t perPart = (head + 1 + 3) / 4;
    f.proxy.setRefuseLogsFrom(qint64(perPart));
    try {
        f.fetcher->fetch(0, head, head);
        QFAIL("a refused part was taken for an answer");
    } catch (const rpc::RpcException& e) {
        QVERIFY2(e.error().message.contains(QStringLiteral("rate limited")),
                 qPrintable(e.error().toString()));
    }
    QCOMPARE(f.proxy.refusedLogCalls(), 1);
    // Once the node answers again, the same range comes back whole.
    f.proxy.setRefuseLogsFrom(-1);
    QCOMPARE(f.fetcher->fetch(0, head, head).toBlock, head);
}

void TestWire::aLoneBlockIsProvenByItsNeighbours()
{
    // A quiet chain, a node that serves no receipts and cuts nothing: the first reply of
    // each size can still not be told from a cut one, and only a larger reply around the
    // block can vouch for it. The mint's block has no log below it, but blocks above it do.
    test::IndexerLab lab;
    auto& token = lab.deployToken("AAA"); // its mint: the chain's only log for a while
    lab.mine(10);
    token.spray(3, 0, 3);
    lab.mine(5);
    const auto head = lab.eth().blockNumber();
    CappedFetch f(lab, lab::FaultProxy::CapMode::Silent, 10000, 0);
    f.proxy.setLogCap(0, lab::FaultProxy::CapMode::Silent); // no cap at all
    f.proxy.setNoReceipts(true);
    // One block at a time, as a follower at the head asks: each block with logs is the
    // largest reply so far when it comes.
    for (std::uint64_t n = 0; n <= head; ++n) {
        const wire::WireBatch b = f.fetcher->fetch(n, n, head);
        QCOMPARE(b.toBlock, n);
        rpc::LogFilter all;
        all.fromBlock = all.toBlock = n;
        all.addresses = lab.contracts();
        QCOMPARE(b.logs.size(), lab.eth().getLogs(all).size());
    }
}

void TestWire::singleBlockOnTheCapIsProvenOrRefused_data()
{
    QTest::addColumn<bool>("receipts");
    QTest::newRow("receipts served") << true;
    QTest::newRow("no receipts") << false;
}

void TestWire::singleBlockOnTheCapIsProvenOrRefused()
{
    // One block holds more logs than the provider returns in any reply (a silent cap of 50,
    // every query cut, by range or by hash): no reply can vouch for it. Its receipts, proven
    // against the header's receipts root, give every log; without them, the fetcher stops.
    QFETCH(bool, receipts);
    test::IndexerLab lab;
    auto& token = lab.deployToken("AAA");
    token.spray(60, 0, 60); // one block with 60 transfers
    const auto block = lab.eth().blockNumber();
    CappedFetch capped(lab, lab::FaultProxy::CapMode::Silent, 10000, 0);
    capped.proxy.setNoReceipts(!receipts);
    try {
        wire::WireBatch last;
        for (std::uint64_t from = 0; from <= block; from = last.toBlock + 1)
            last = capped.fetcher->fetch(from, block, block);
        QVERIFY2(receipts, "a block on the cap was accepted");
        QCOMPARE(last.toBlock, block);
        QCOMPARE(std::count_if(last.logs.cbegin(), last.logs.cend(),
                               [block](const auto& l) { return l.blockNumber == block; }),
                 60);
        QCOMPARE(last.completeness.learnedCap, std::optional<qint64>(50));
        QVERIFY(last.completeness.receiptTruncations > 0);
    } catch (const wire::SuspectedTruncationError& e) {
        QVERIFY2(!receipts, qPrintable(e.message()));
        QCOMPARE(e.block, block);
        QVERIFY(e.message().contains(QStringLiteral("block %1").arg(block)));
        QVERIFY(e.message().contains(QStringLiteral("eth_getBlockReceipts")));
    }
}

void TestWire::resentBatchIsCorrectedNotDoubled()
{
    test::IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(6, 5, 10);
    Receiver r = receiverFor(lab, QStringLiteral("wire"));
    indexer::Indexer* receiver = r.indexer.get();
    QCOMPARE(receiver->expectedFromBlock(), 0u);

    wire::FetchSpec spec = r.spec;
    wire::LogFetcher fetcher(lab.eth(), spec);
    const auto head = lab.eth().blockNumber();
    const wire::WireBatch first = fetcher.fetch(0, 3, head);
    const auto a = receiver->accept(first);
    QVERIFY2(a.accepted, qPrintable(a.reason));
    QCOMPARE(a.expectedFromBlock, 4u);
    const qint64 logs = lab.count("SELECT count(*) FROM logs");

    // The acknowledgement was lost; the fetcher sends the same batch again.
    const auto again = receiver->accept(first);
    QVERIFY(!again.accepted);
    QCOMPARE(again.expectedFromBlock, 4u); // "start from here"
    QCOMPARE(lab.count("SELECT count(*) FROM logs"), logs);

    // A batch for another configuration is refused too.
    wire::FetchSpec other = spec;
    other.context.config = "another-abi";
    QVERIFY(!receiver->accept(wire::LogFetcher(lab.eth(), other).fetch(4, head, head)).accepted);

    // It re-sends from where the receiver said, and that is applied.
    const auto next = receiver->accept(fetcher.fetch(again.expectedFromBlock, head, head));
    QVERIFY2(next.accepted, qPrintable(next.reason));
    QCOMPARE(next.expectedFromBlock, head + 1);
    r.close();
    const QStringList problems = lab.verify("wire");
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
}

// The head changed while a range was fetched: from some header on, the batch no longer
// links. The receiver commits the linked prefix with exactly its logs (leaving out the later
// blocks' logs, which the fetcher asks for again from where it says) and calls it neither a
// reorg nor a failure; the rest then comes in the next batch, every log once.
void TestWire::aBatchWhoseHeadersStopLinkingKeepsItsLinkedPrefix()
{
    test::IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(6, 5, 10);
    Receiver r = receiverFor(lab, QStringLiteral("prefix"));
    indexer::Indexer* receiver = r.indexer.get();
    wire::LogFetcher fetcher(lab.eth(), r.spec);
    const auto head = lab.eth().blockNumber();
    wire::WireBatch batch = fetcher.fetch(0, head, head);
    QCOMPARE(batch.toBlock, head);
    // Break the chain at a block with later blocks' logs after it in the batch.
    const std::uint64_t breakAt = head - 2;
    QVERIFY(std::any_of(batch.logs.cbegin(), batch.logs.cend(),
                        [&](const chain::LogEntry& l) { return l.blockNumber > breakAt; }));
    batch.headers[qsizetype(breakAt)].parentHash = chain::Hash32::fromHex(
        QStringLiteral("0x") + QString(64, QLatin1Char('7')), QStringLiteral("test"));

    const auto a = receiver->accept(batch);
    QVERIFY2(a.accepted, qPrintable(a.reason));
    QCOMPARE(a.expectedFromBlock, breakAt);
    QCOMPARE(lab.count("SELECT max(block_number) FROM blocks"), qint64(breakAt) - 1);
    const auto below = [&](std::uint64_t upTo) {
        return qint64(lab.eth().getLogs({0, upTo, lab.contracts(), {}, {}}).size());
    };
    QCOMPARE(lab.count("SELECT count(*) FROM logs"), below(breakAt - 1));
    QCOMPARE(lab.count("SELECT count(*) FROM reorg_events"), 0);

    const auto next = receiver->accept(fetcher.fetch(a.expectedFromBlock, head, head));
    QVERIFY2(next.accepted, qPrintable(next.reason));
    QCOMPARE(next.expectedFromBlock, head + 1);
    QCOMPARE(lab.count("SELECT count(*) FROM logs"), below(head));
    r.close();
    const QStringList problems = lab.verify("prefix");
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
}

void TestWire::decodedArgumentsOfABatchAreBounded()
{
    // Each log's decoding is bounded on its own; a batch of many logs is bounded too: it
    // ends before the block that passed the budget (whole blocks only), and a first block
    // over the budget alone keeps its remaining logs raw.
    test::IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(6, 10, 10); // 6 blocks of 10 Transfers, about 250 bytes of args each
    const auto head = lab.eth().blockNumber();
    wire::FetchSpec spec;
    spec.contracts = lab.contracts();
    spec.registry = std::make_shared<const abi::EventRegistry>(abi::EventRegistry::fromFile(
        QStringLiteral(FORKSCOPE_SOURCE_DIR "/resources/contracts/DemoToken.json")));
    spec.decodeBudgetBytes = 4000; // about a block and a half
    wire::LogFetcher fetcher(lab.eth(), spec);
    const wire::WireBatch b = fetcher.fetch(0, head, head);
    QVERIFY2(b.toBlock < head, qPrintable(QString::number(b.toBlock)));
    QCOMPARE(b.decodings.size(), b.logs.size());
    QCOMPARE(b.headers.last().number, b.toBlock);
    QVERIFY(b.halvings > 0);
    rpc::LogFilter f;
    f.fromBlock = 0;
    f.toBlock = b.toBlock;
    f.addresses = lab.contracts();
    QCOMPARE(b.logs.size(), lab.eth().getLogs(f).size()); // whole blocks, nothing lost
    for (const auto& d : b.decodings)
        QCOMPARE(d.status, abi::EventDecoding::Status::Decoded);

    spec.decodeBudgetBytes = 500; // less than one block
    const wire::WireBatch one = wire::LogFetcher(lab.eth(), spec).fetch(b.toBlock, head, head);
    QCOMPARE(one.toBlock, b.toBlock);
    QCOMPARE(one.decodings.size(), one.logs.size());
    QVERIFY(one.decodings.first().status == abi::EventDecoding::Status::Decoded);
    QCOMPARE(one.decodings.last().status, abi::EventDecoding::Status::Failed);
    QVERIFY2(one.decodings.last().error.contains("the bound per batch"),
             qPrintable(one.decodings.last().error));
}

void TestWire::headerBloomIsTheBloomOfTheBlocksLogs()
{
    // The bloom Forkscope computes from a block's every log is the one the header commits
    // to (anvil computes it as every client does), and each log's address and topics test
    // positive in it while an address that logged nothing (almost surely) does not.
    test::IndexerLab lab;
    lab.deployToken("AAA");
    lab.deployToken("BBB");
    lab.sprayAll(3, 4, 6);
    const auto head = lab.eth().blockNumber();
    int checked = 0;
    for (const auto& h : lab.eth().blocksByNumber(0, head)) {
        rpc::LogFilter all;
        all.blockHash = h->hash;
        const auto logs = lab.eth().getLogs(all);
        QCOMPARE(chain::bloom::of(logs), h->logsBloom);
        for (const auto& log : logs) {
            QVERIFY(chain::bloom::mayContain(h->logsBloom, log.address.toByteArray()));
            for (const auto& t : log.topics)
                QVERIFY(chain::bloom::mayContain(h->logsBloom, t.toByteArray()));
        }
        if (!logs.isEmpty())
            ++checked;
        else
            QVERIFY(h->logsBloom.isZero());
    }
    QVERIFY(checked >= 3);
    const auto nobody = chain::Address::fromHex("0x00000000000000000000000000000000deadbeef", "x");
    int admits = 0;
    for (const auto& h : lab.eth().blocksByNumber(0, head))
        admits += chain::bloom::mayContain(h->logsBloom, nobody.toByteArray()) ? 1 : 0;
    QCOMPARE(admits, 0);
}

QTEST_GUILESS_MAIN(TestWire)
#include "tst_wire.moc"
