// Pure engine rules behind the desktop app: table pages (sorting, filtering, paging in
// SQL), the lag panel's ETA and durations, and what saved settings mean for the engine.
#include "config/AppSettings.h"
#include "engine/ReadService.h"
#include "engine/ReindexMatch.h"
#include "engine/SettingsToConfig.h"
#include "engine/SummaryReader.h"
#include "engine/SyncProgress.h"
#include "engine/TableQuery.h"
#include "outbox/SafeHeight.h"
#include "store/ContractReader.h"
#include "store/Database.h"
#include "store/ReorgEventStore.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace forkscope;
using engine::TableRequest;

namespace {
engine::TablePage fetchPage(store::Database& db, const QString& env, const engine::TableRequest& r)
{
    store::SqliteContractReader reader(db);
    return engine::TableQuery::fetch(reader, env, r);
}
} // namespace

class TestEngineUnits : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void reindexedTransfers_data();
    void reindexedTransfers();
    void tokenReadsPerPageAreBounded();
    void safeHeight_data();
    void safeHeight();
    void transferPages_data();
    void transferPages();
    void pagingCoversEveryRowOnce();
    void filterIsLiteralNotAPattern();
    void balancesSortNumerically();
    void otherEnvironmentsAreInvisible();
    void eta_data();
    void eta();
    void humanDuration_data();
    void humanDuration();
    void settingsMapToTheEngine();
    void aSummaryReadsOneCommittedState();

private:
    QTemporaryDir m_dir;
    std::unique_ptr<store::Database> m_db;
    void insertTransfer(const char* env, int block, int logIndex, int tx, const QString& contract,
                        const QString& from, const QString& to, const QString& value);
    QStringList column(const engine::TablePage& page, int c) const
    {
        QStringList out;
        for (const auto& r : page.rows)
            out << r.value(c);
        return out;
    }
};

// Where the transfers page puts its columns (engine::tableColumns).
const int kLogIndex = int(engine::tableColumns(TableRequest::Kind::Transfers).indexOf("log"));
const int kValue = int(engine::tableColumns(TableRequest::Kind::Transfers).indexOf("value"));

static QString addr(int i)
{
    return QStringLiteral("0x%1").arg(i, 40, 16, QLatin1Char('0'));
}

// A Transfer as contract v4 stores it: a log whose topics name the parties (its
// transfer_events row is a view of that log).
void TestEngineUnits::insertTransfer(const char* env, int block, int logIndex, int tx,
                                     const QString& contract, const QString& from,
                                     const QString& to, const QString& value)
{
    const auto topic = [](const QString& address) -> QString {
        return "0x000000000000000000000000" + address.mid(2);
    };
    m_db->run("INSERT INTO log_store (environment_id, chain_id, block_number, log_index, "
              "block_hash, tx_hash, address, topic0, topic1, topic2, data, transfer_value) VALUES "
              "(?, 31337, ?, ?, zeroblob(32), forkscope_unhex(?), forkscope_unhex(?), "
              "forkscope_unhex(?), forkscope_unhex(?), forkscope_unhex(?), zeroblob(32), ?)",
              {QString::fromLatin1(env), block, logIndex,
               QStringLiteral("0x%1").arg(tx, 64, 16, QLatin1Char('0')), contract,
               "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef", topic(from),
               topic(to), value});
}

void TestEngineUnits::initTestCase()
{
    m_db = store::Database::open(m_dir.filePath("units.sqlite"));
    m_db->beginWrite();
    // 30 transfers in env "a" over blocks 1..10 (3 per block), values 1, 10, 100, ... so text
    // order and numeric order differ; a twin row in env "b" that must never show up.
    for (int i = 0; i < 30; ++i) {
        const QString value = QStringLiteral("1") + QString(i % 7, QLatin1Char('0'));
        insertTransfer("a", 1 + i / 3, i % 3, i, addr(0xAA), addr(i % 5), addr(100 + i % 4), value);
    }
    insertTransfer("b", 1, 0, 999, addr(0xAA), addr(1), addr(2), "5");
    for (const auto& [holder, balance] : QList<std::pair<int, QString>>{
             {1, "9"}, {2, "10"}, {3, "100000000000000000000"}, {4, "0"}, {5, "-5"}, {6, "11"}})
        m_db->run("INSERT INTO balance_store (environment_id, chain_id, contract, holder, "
                  "balance, updated_at_block, transfer_sides) VALUES ('a', 31337, "
                  "forkscope_unhex(?), forkscope_unhex(?), ?, 10, 1)",
                  {addr(0xAA), addr(holder), balance});
    m_db->commit();
}

void TestEngineUnits::transferPages_data()
{
    // clang-format off
    QTest::addColumn<int>("sortColumn");
    QTest::addColumn<bool>("descending");
    QTest::addColumn<QString>("filter");
    QTest::addColumn<int>("rows");
    QTest::addColumn<QString>("first"); // first cell of the sort column

    QTest::newRow("newest block first") << 0 << true << QString() << 30 << "10";
    QTest::newRow("oldest block first") << 0 << false << QString() << 30 << "1";
    QTest::newRow("largest value first (numeric, not text)")
        << kValue << true << QString() << 30 << "1000000";
    QTest::newRow("smallest value first") << kValue << false << QString() << 30 << "1";
    QTest::newRow("filter by sender") << 0 << true << addr(3) << 6 << "10";
    QTest::newRow("filter is case-insensitive")
        << 0 << true << addr(0xAA).toUpper().replace("0X", "0x") << 30 << "10";
    QTest::newRow("filter by receiver, part of it")
        << 0 << true << QStringLiteral("0000000067") << 7 << "10";
    QTest::newRow("nothing matches") << 0 << true << QStringLiteral("0xdeadbeef") << 0 << QString();
    QTest::newRow("unknown sort column falls back to block")
        << 42 << true << QString() << 30 << "10";
    // clang-format on
}

void TestEngineUnits::transferPages()
{
    QFETCH(int, sortColumn);
    QFETCH(bool, descending);
    QFETCH(QString, filter);
    QFETCH(int, rows);
    QFETCH(QString, first);
    TableRequest r;
    r.kind = TableRequest::Kind::Transfers;
    r.sortColumn = sortColumn;
    r.descending = descending;
    r.filter = filter;
    r.limit = 100;
    r.ticket = 7;
    const auto page = fetchPage(*m_db, "a", r);
    QCOMPARE(page.rows.size(), rows);
    QCOMPARE(page.request.ticket, quint64(7));
    QVERIFY(page.atEnd);
    const int columns = int(engine::tableColumns(TableRequest::Kind::Transfers).size());
    QCOMPARE(page.rows.value(0).size() == 0 ? 0 : page.rows[0].size(), rows ? columns : 0);
    if (rows) {
        const int shown = sortColumn < columns ? sortColumn : 0;
        QCOMPARE(page.rows[0][shown], first);
    }
    for (const auto& row : page.rows)
        if (!filter.isEmpty())
            QVERIFY(row.join(' ').toLower().contains(filter.toLower()));
}

void TestEngineUnits::pagingCoversEveryRowOnce()
{
    TableRequest r;
    r.kind = TableRequest::Kind::Transfers;
    r.limit = 7;
    QSet<QString> seen;
    int pages = 0;
    for (;;) {
        r.offset = int(seen.size());
        const auto page = fetchPage(*m_db, "a", r);
        ++pages;
        for (const auto& row : page.rows)
            QVERIFY2(!seen.contains(row[0] + ":" + row[kLogIndex]), "a row came twice");
        for (const auto& row : page.rows)
            seen.insert(row[0] + ":" + row[kLogIndex]);
        if (page.atEnd)
            break;
        QCOMPARE(page.rows.size(), 7);
    }
    QCOMPARE(seen.size(), 30);
    QCOMPARE(pages, 5);
}

void TestEngineUnits::filterIsLiteralNotAPattern()
{
    TableRequest r;
    r.kind = TableRequest::Kind::Transfers;
    for (const QString& f :
         {QStringLiteral("%"), QStringLiteral("_"), QStringLiteral("'; DROP TABLE logs; --")}) {
        r.filter = f;
        QCOMPARE(fetchPage(*m_db, "a", r).rows.size(), 0);
    }
    QCOMPARE(m_db->run("SELECT count(*) FROM logs").next(), true); // still there
}

void TestEngineUnits::balancesSortNumerically()
{
    TableRequest r;
    r.kind = TableRequest::Kind::Balances;
    r.sortColumn = 2;
    r.descending = true;
    const auto page = fetchPage(*m_db, "a", r);
    QCOMPARE(column(page, 2), (QStringList{"100000000000000000000", "11", "10", "9", "0", "-5"}));
    QCOMPARE(engine::tableColumns(TableRequest::Kind::Balances).size(), page.rows[0].size());
}

void TestEngineUnits::otherEnvironmentsAreInvisible()
{
    TableRequest r;
    r.kind = TableRequest::Kind::Transfers;
    const auto b = fetchPage(*m_db, "b", r);
    QCOMPARE(b.rows.size(), 1);
    QCOMPARE(b.rows[0][kValue], QStringLiteral("5"));
    QCOMPARE(fetchPage(*m_db, "nope", r).rows.size(), 0);
    r.kind = TableRequest::Kind::Backfill;
    QCOMPARE(fetchPage(*m_db, "a", r).rows.size(), 0);
}

void TestEngineUnits::eta_data()
{
    // clang-format off
    QTest::addColumn<quint64>("lag");
    QTest::addColumn<double>("rate");
    QTest::addColumn<double>("expected"); // -1: no ETA
    QTest::newRow("behind, committing") << quint64(500) << 50.0 << 10.0;
    QTest::newRow("caught up") << quint64(0) << 50.0 << -1.0;
    QTest::newRow("behind, not committing") << quint64(500) << 0.0 << -1.0;
    QTest::newRow("rate not a number") << quint64(5) << std::nan("") << -1.0;
    QTest::newRow("negative rate") << quint64(5) << -3.0 << -1.0;
    // clang-format on
}

void TestEngineUnits::eta()
{
    QFETCH(quint64, lag);
    QFETCH(double, rate);
    QFETCH(double, expected);
    const auto eta = engine::etaSeconds(lag, rate);
    if (expected < 0)
        QVERIFY(!eta);
    else
        QCOMPARE(*eta, expected);
}

void TestEngineUnits::humanDuration_data()
{
    // clang-format off
    QTest::addColumn<double>("seconds");
    QTest::addColumn<QString>("text");
    QTest::newRow("sub-second") << 0.4 << "0.4 s";
    QTest::newRow("seconds") << 42.0 << "42 s";
    QTest::newRow("minutes") << 185.0 << "3 min 05 s";
    QTest::newRow("hours") << 7800.0 << "2 h 10 min";
    QTest::newRow("days") << 200000.0 << "2 d 7 h";
    QTest::newRow("negative") << -1.0 << "unknown";
    QTest::newRow("infinite") << std::numeric_limits<double>::infinity() << "unknown";
    // clang-format on
}

void TestEngineUnits::humanDuration()
{
    QFETCH(double, seconds);
    QFETCH(QString, text);
    QCOMPARE(engine::humanDuration(seconds), text);
}

void TestEngineUnits::settingsMapToTheEngine()
{
    config::AppSettings s;
    engine::EngineConfig base;
    base.dbPath = "/tmp/x.sqlite";
    // No endpoints: the managed lab, with the policy settings applied.
    s.confirmations = "3";
    s.batchSize = "250";
    s.maxReorgDepth = "32";
    s.startBlock = "7";
    s.pollMs = "400";
    s.readyRatio = "0.5";
    s.webhook = "http://127.0.0.1:9/hook";
    s.abiPath = "/tmp/abi.json";
    auto c = engine::configFromSettings(s, base);
    QVERIFY(c.managedDevnet);
    QCOMPARE(c.dbPath, base.dbPath);
    QCOMPARE(c.indexer.confirmations, 3u);
    QCOMPARE(c.indexer.batchSize, 250u);
    QCOMPARE(c.indexer.maxReorgDepth, 32u);
    QCOMPARE(c.indexer.fromBlock, 7u);
    QCOMPARE(c.indexer.pollInterval.count(), 400);
    QCOMPARE(c.readyRatio, 0.5);
    QCOMPARE(c.webhook, QUrl("http://127.0.0.1:9/hook"));
    QCOMPARE(c.indexer.abiPath, QStringLiteral("/tmp/abi.json"));
    // Endpoints: the first is indexed, all are watched.
    s.endpoints = "http://a:8545\nhttp://b:8545\n";
    s.contracts = "0x00000000000000000000000000000000000000aa";
    c = engine::configFromSettings(s, base);
    QVERIFY(!c.managedDevnet);
    QCOMPARE(c.rpcUrl, QUrl("http://a:8545"));
    QCOMPARE(c.nodes.size(), 2);
    QCOMPARE(c.contracts, QStringList{"0x00000000000000000000000000000000000000aa"});
    QCOMPARE(c.indexer.environmentId, base.indexer.environmentId); // empty: the engine's "default"
    // A factory, as `index --factory ... --factory-event ... --child-arg ...` names it.
    s.factories = " 0x00000000000000000000000000000000000000bb PairCreated(address indexed "
                  "token0, address indexed token1, address pair, uint256) pair \n";
    c = engine::configFromSettings(s, base);
    QCOMPARE(c.factories.size(), 1);
    QCOMPARE(
        c.factories.first().arguments(),
        (QStringList{"--factory", "0x00000000000000000000000000000000000000bb", "--factory-event",
                     "PairCreated(address indexed token0, address indexed token1, address "
                     "pair, uint256)",
                     "--child-arg", "pair"}));
    s.factories.clear();
    s.environment = " usdc-v2 ";
    QCOMPARE(engine::configFromSettings(s, base).indexer.environmentId, QStringLiteral("usdc-v2"));
    s.endpoints.clear(); // the managed lab: a new environment each launch, whatever is saved
    QCOMPARE(engine::configFromSettings(s, base).indexer.environmentId, base.indexer.environmentId);
    s.endpoints = "http://a:8545\nhttp://b:8545\n";
    // A hand-edited, unparsable value keeps the default instead of becoming zero.
    s.batchSize = "lots";
    s.readyRatio = "2";
    c = engine::configFromSettings(s, base);
    QCOMPARE(c.indexer.batchSize, base.indexer.batchSize);
    QCOMPARE(c.readyRatio, base.readyRatio);
}

void TestEngineUnits::safeHeight_data()
{
    // clang-format off
    QTest::addColumn<qint64>("head");   // -1: unknown
    QTest::addColumn<int>("confirmations");
    QTest::addColumn<qint64>("ready");  // -1: no gate yet
    QTest::addColumn<qint64>("safe");   // -1: nothing is safe
    QTest::newRow("head minus confirmations") << 100LL << 6 << 100LL << 94LL;
    QTest::newRow("capped by the gate") << 100LL << 6 << 90LL << 90LL;
    QTest::newRow("no confirmations") << 100LL << 0 << 100LL << 100LL;
    QTest::newRow("head below confirmations") << 3LL << 6 << 3LL << -1LL;
    QTest::newRow("head exactly confirmations") << 6LL << 6 << 6LL << 0LL;
    QTest::newRow("no gate yet") << 100LL << 6 << -1LL << -1LL;
    QTest::newRow("no head") << -1LL << 6 << 100LL << -1LL;
    // clang-format on
}

void TestEngineUnits::safeHeight()
{
    QFETCH(qint64, head);
    QFETCH(int, confirmations);
    QFETCH(qint64, ready);
    QFETCH(qint64, safe);
    const auto opt = [](qint64 v) {
        return v < 0 ? std::nullopt : std::optional<std::uint64_t>(v);
    };
    QCOMPARE(outbox::safeHeight(opt(head), std::uint64_t(confirmations), opt(ready)), opt(safe));
}

void TestEngineUnits::reindexedTransfers_data()
{
    // Removed transfers "tx:from:value", the transfers above the fork now, and the answer
    // per removed transfer: n(o), s(ame transaction), o(ther transaction).
    QTest::addColumn<QStringList>("removed");
    QTest::addColumn<QStringList>("above");
    QTest::addColumn<QString>("expected");
    // clang-format off
    QTest::newRow("re-included as is") << QStringList{"t1:a:5", "t2:b:7"}
                                       << QStringList{"t1:a:5", "t2:b:7"} << "ss";
    QTest::newRow("gone") << QStringList{"t1:a:5"} << QStringList{} << "n";
    QTest::newRow("re-sent (lab keep): new hashes")
        << QStringList{"t1:a:5", "t2:a:5"} << QStringList{"t8:a:5", "t9:a:5"} << "oo";
    QTest::newRow("one stored transfer answers once")
        << QStringList{"t1:a:5", "t2:a:5"} << QStringList{"t9:a:5"} << "on";
    QTest::newRow("the same transaction is matched first")
        << QStringList{"t2:a:5", "t1:a:5"} << QStringList{"t1:a:5"} << "ns";
    QTest::newRow("another value is another transfer")
        << QStringList{"t1:a:5"} << QStringList{"t1:a:6"} << "n";
    // clang-format on
}

void TestEngineUnits::reindexedTransfers()
{
    QFETCH(QStringList, removed);
    QFETCH(QStringList, above);
    QFETCH(QString, expected);
    const auto parts = [](const QString& spec) { return spec.split(':'); };
    QList<engine::ReorgDiff::Item> items;
    for (const QString& r : removed) {
        engine::ReorgDiff::Item it;
        it.kind = "transfer_removed";
        it.txHash = parts(r)[0];
        it.contract = "0xtoken";
        it.from = parts(r)[1];
        it.to = "0xto";
        it.value = parts(r)[2];
        items << it;
    }
    engine::ReorgDiff::Item balance;
    balance.kind = "balance_changed";
    items << balance;
    QHash<QString, int> now;
    for (const QString& a : above)
        ++now[store::ReorgEventStore::transferKey(parts(a)[0], "0xtoken", parts(a)[1], "0xto",
                                                  parts(a)[2])];
    engine::markReindexed(items, now);
    QString got;
    for (qsizetype i = 0; i < removed.size(); ++i)
        got += "nso"[int(items[i].again)];
    QCOMPARE(got, expected);
    QCOMPARE(items.last().again, engine::ReorgDiff::Item::Again::No); // not a transfer
}

void TestEngineUnits::tokenReadsPerPageAreBounded()
{
    engine::TablePage page;
    page.request.kind = TableRequest::Kind::Balances; // token in column 0
    for (int i = 0; i < 30; ++i)
        page.rows << QStringList{QStringLiteral("0xt%1").arg(i % 12), "0xholder", "1", "5"};
    // Distinct, in page order, known ones skipped, at most `max`.
    QCOMPARE(engine::ReadService::tokensToRead(page, {"0xt0", "0xt2"}, 4),
             (QStringList{"0xt1", "0xt3", "0xt4", "0xt5"}));
    QCOMPARE(engine::ReadService::tokensToRead(page, {}, 100).size(), 12);
    QCOMPARE(engine::ReadService::tokensToRead(page, {}, engine::ReadService::kMaxTokenReadsPerPage)
                 .size(),
             engine::ReadService::kMaxTokenReadsPerPage);
    page.request.kind = TableRequest::Kind::Backfill; // no amounts: nothing to read
    QVERIFY(engine::ReadService::tokensToRead(page, {}, 100).isEmpty());
}

void TestEngineUnits::aSummaryReadsOneCommittedState()
{
    // The app shows a summary's checkpoint beside its outbox count: both must come from one
    // commit, even when the indexer commits the next batch while the summary is being read.
    const QString path = m_dir.filePath("summary.sqlite");
    const auto writer = store::Database::open(path);
    const auto commitBlock = [&](int block) {
        store::WriteTransaction tx(*writer);
        writer->run("INSERT INTO indexer_checkpoints (environment_id, chain_id, source_id, "
                    "block_number, block_hash, policy_version, generation, updated_at) VALUES "
                    "('s', 31337, 'default', ?, ?, 'p', 1, 'now') ON CONFLICT DO UPDATE SET "
                    "block_number = excluded.block_number, block_hash = excluded.block_hash",
                    {block, QStringLiteral("0x%1").arg(block, 64, 10, QLatin1Char('0'))});
        // Block b was mined 3 - b hours ago: the oldest pending row's age is its block's.
        writer->run("INSERT INTO block_store (environment_id, chain_id, block_number, "
                    "block_hash, parent_hash, block_timestamp) VALUES ('s', 31337, ?, "
                    "zeroblob(32), zeroblob(32), ?)",
                    {block, QDateTime::currentSecsSinceEpoch() - 3600 * (3 - block)});
        for (int i = 0; i < 3; ++i) // retraction-style rows: their own key and payload
            writer->run("INSERT INTO outbox_store (environment_id, chain_id, block_number, "
                        "event_key, payload) VALUES ('s', 31337, ?, ?, '{}')",
                        {block, QStringLiteral("k-%1-%2").arg(block).arg(i)});
        tx.commit();
    };
    commitBlock(1);
    store::Database::Options o;
    o.readOnly = true;
    const auto reader = store::Database::open(path, o);
    store::SqliteContractReader contract(*reader);

    int commitsMeanwhile = 0;
    const engine::DbSummary s = engine::readSummary(contract, "s", 31337, [&] {
        commitBlock(2);
        ++commitsMeanwhile;
    });
    QCOMPARE(commitsMeanwhile, 1);
    QCOMPARE(s.checkpoint, std::optional<quint64>(1));
    QCOMPARE(s.checkpointHash, QStringLiteral("0x%1").arg(1, 64, 10, QLatin1Char('0')));
    QCOMPARE(s.outboxPending, 3); // block 1's rows; block 2's came in a later commit
    QVERIFY(s.outboxOldestPendingAgeSecs);
    QVERIFY2(*s.outboxOldestPendingAgeSecs >= 7200 && *s.outboxOldestPendingAgeSecs < 7260,
             qPrintable(QString::number(*s.outboxOldestPendingAgeSecs)));

    const engine::DbSummary next = engine::readSummary(contract, "s", 31337);
    QCOMPARE(next.checkpoint, std::optional<quint64>(2));
    QCOMPARE(next.outboxPending, 6);
    QVERIFY(next.outboxOldestPendingAgeSecs && *next.outboxOldestPendingAgeSecs >= 7200);
    QVERIFY(!reader->inTransaction()); // the snapshot ended with the read
}

QTEST_GUILESS_MAIN(TestEngineUnits)
#include "tst_engine_units.moc"
