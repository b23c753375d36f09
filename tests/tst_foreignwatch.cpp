// Watching another indexer from the app, the engine's side: a foreign Transfer table written
// here from a real anvil's logs into a SQLite file and into a throwaway PostgreSQL database
// (the target's store as a data row), watched by engine::ForeignWatchService against the
// node. Its lag, then findings appearing as rows are deleted or altered, and clean again
// once they are right; settled findings counted once however many checks follow; a target
// or a node that cannot be read said so, never a clean state; one finding's block read back
// next to the chain's Transfers.
#include "ForeignTableWriter.h"
#include "IndexerLab.h"
#include "engine/EngineHost.h"
#include "engine/ForeignWatchService.h"
#include "lab/PgLab.h"

#include <QSignalSpy>
#include <QtTest>

using namespace forkscope;
using foreign::ForeignFinding;
using foreign::ForeignWatchSnapshot;
using test::ForeignTableRow;

namespace {

// The service's answers come from its own thread; the relay hands them to this one.
class Relay : public QObject
{
    Q_OBJECT
signals:
    void snapshot(const forkscope::foreign::ForeignWatchSnapshot& s);
    void block(const forkscope::foreign::ForeignBlockView& v);
};

qint64 countOf(const ForeignWatchSnapshot& s, ForeignFinding::Kind kind)
{
    return s.counts[std::size_t(kind)];
}

} // namespace

class TestForeignWatch : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void lagThenFindingsThenClean_data();
    void lagThenFindingsThenClean();
    void settledFindingsAreCountedOnce_data();
    void settledFindingsAreCountedOnce();
    void aCheckThatCannotRunSaysSo_data();
    void aCheckThatCannotRunSaysSo();
    void aBadSpecIsRefused();
    void theEngineWatchesAgainstItsNode();

private:
    QString dbOf(const QString& backend) const
    {
        return backend == QLatin1String("sqlite")
                   ? m_lab->tempPath(QStringLiteral("foreign.sqlite"))
                   : m_cluster.url();
    }
    foreign::ForeignWatchSpec spec(const QString& db, std::uint64_t recheck) const
    {
        foreign::ForeignWatchSpec s;
        s.target = db;
        s.query = QStringLiteral("SELECT * FROM transfers");
        s.intervalMs = 150;
        s.recheckBlocks = recheck;
        return s;
    }
    // Starts a service watching `spec` against `node` (the lab's anvil by default).
    void watch(const foreign::ForeignWatchSpec& spec, const QUrl& node = {});
    // The next snapshot that `pred` accepts; fails the test after `timeoutMs`.
    ForeignWatchSnapshot waitFor(const std::function<bool(const ForeignWatchSnapshot&)>& pred,
                                 int timeoutMs = 20000);

    std::unique_ptr<test::IndexerLab> m_lab;
    lab::PgLab m_cluster;
    QString m_token;
    QList<ForeignTableRow> m_rows;
    std::uint64_t m_head = 0;
    // Per test.
    std::unique_ptr<engine::ForeignWatchService> m_service;
    std::unique_ptr<Relay> m_relay;
    std::unique_ptr<QSignalSpy> m_snapshots;
    quint64 m_nextId = 1;
    quint64 m_id = 0;
};

void TestForeignWatch::initTestCase()
{
    m_lab = std::make_unique<test::IndexerLab>();
    m_token = m_lab->deployToken(QStringLiteral("AAA")).address().toHex();
    m_lab->sprayAll(5, 3, 5);
    m_head = m_lab->eth().blockNumber();
    m_rows = test::nodeTransferRows(m_lab->eth(), m_token);
    QVERIFY(m_rows.size() >= 10);
    QCOMPARE(m_rows.last().block, m_head);
    m_cluster.start();
}

void TestForeignWatch::watch(const foreign::ForeignWatchSpec& spec, const QUrl& node)
{
    m_service.reset();
    m_relay = std::make_unique<Relay>();
    m_service = std::make_unique<engine::ForeignWatchService>();
    Relay* relay = m_relay.get();
    connect(m_service.get(), &engine::ForeignWatchService::snapshotAvailable, relay,
            &Relay::snapshot, Qt::QueuedConnection);
    connect(m_service.get(), &engine::ForeignWatchService::blockAvailable, relay, &Relay::block,
            Qt::QueuedConnection);
    m_snapshots = std::make_unique<QSignalSpy>(relay, &Relay::snapshot);
    m_service->start();
    m_id = m_nextId++;
    m_service->watch(m_id, spec, node.isEmpty() ? m_lab->devnet().url() : node,
                     {chain::Address::fromHex(m_token, QStringLiteral("token"))});
}

ForeignWatchSnapshot
TestForeignWatch::waitFor(const std::function<bool(const ForeignWatchSnapshot&)>& pred,
                          int timeoutMs)
{
    QDeadlineTimer deadline(timeoutMs);
    ForeignWatchSnapshot last;
    while (!deadline.hasExpired()) {
        while (!m_snapshots->isEmpty()) {
            last = m_snapshots->takeFirst().at(0).value<ForeignWatchSnapshot>();
            if (last.id == m_id && pred(last))
                return last;
        }
        m_snapshots->wait(int(std::max<qint64>(1, deadline.remainingTime())));
    }
    qWarning("last snapshot: %s: %s, %lld findings",
             qPrintable(foreign::watchStateName(last.state)), qPrintable(last.problem),
             static_cast<long long>(last.findingCount()));
    return {};
}

void TestForeignWatch::lagThenFindingsThenClean_data()
{
    QTest::addColumn<QString>("backend");
    QTest::newRow("sqlite") << QStringLiteral("sqlite");
    QTest::newRow("postgresql") << QStringLiteral("postgresql");
}

void TestForeignWatch::lagThenFindingsThenClean()
{
    QFETCH(QString, backend);
    const QString db = dbOf(backend);
    // An indexer two blocks behind, every row it has right.
    QList<ForeignTableRow> behind;
    for (const auto& r : m_rows)
        if (r.block + 2 <= m_head)
            behind << r;
    test::writeGenericTable(db, QStringLiteral("transfers"), behind);
    watch(spec(db, 100));
    ForeignWatchSnapshot s = waitFor([](const auto& s) { return s.checkRan(); });
    QCOMPARE(s.state, ForeignWatchSnapshot::State::Watching);
    QCOMPARE(s.labHead, std::optional(m_head));
    QCOMPARE(s.foreignHead, std::optional(behind.last().block));
    QVERIFY(*s.lag() >= 2);
    QCOMPARE(s.findingCount(), 0);
    QCOMPARE(s.auditedTo, s.foreignHead);

    // Caught up; then a row deleted and another altered: both found, and named.
    test::writeGenericTable(db, QStringLiteral("transfers"), m_rows);
    s = waitFor([&](const auto& s) { return s.lag() == std::optional<std::uint64_t>(0); });
    QCOMPARE(s.findingCount(), 0);
    QList<ForeignTableRow> tampered = m_rows;
    const ForeignTableRow deleted = tampered.takeAt(3);
    tampered[5].value = QStringLiteral("999999");
    const ForeignTableRow altered = tampered[5];
    test::writeGenericTable(db, QStringLiteral("transfers"), tampered);
    s = waitFor([](const auto& s) { return s.findingCount() > 0; });
    QCOMPARE(s.state, ForeignWatchSnapshot::State::Watching);
    QCOMPARE(countOf(s, ForeignFinding::Kind::Missing), 1);
    QCOMPARE(countOf(s, ForeignFinding::Kind::Altered), 1);
    QCOMPARE(s.findingCount(), 2);
    QCOMPARE(s.findings.size(), 2);
    QStringList named;
    for (const ForeignFinding& f : s.findings)
        named << QStringLiteral("%1@%2:%3")
                     .arg(foreign::kindName(f.kind))
                     .arg(f.block)
                     .arg(f.logIndex.value_or(999));
    QVERIFY2(
        named.contains(QStringLiteral("missing@%1:%2").arg(deleted.block).arg(deleted.logIndex)),
        qPrintable(named.join(QLatin1Char(' '))));
    QVERIFY2(
        named.contains(QStringLiteral("altered@%1:%2").arg(altered.block).arg(altered.logIndex)),
        qPrintable(named.join(QLatin1Char(' '))));

    // The altered row's block, read back: its row next to the chain's Transfer.
    QSignalSpy blocks(m_relay.get(), &Relay::block);
    m_service->requestBlock(m_id, altered.block);
    QVERIFY(blocks.wait(10000));
    const auto view = blocks.first().at(0).value<foreign::ForeignBlockView>();
    QVERIFY2(view.error.isEmpty(), qPrintable(view.error));
    QCOMPARE(view.block, altered.block);
    QString stored, chain;
    for (const auto& e : view.rows)
        if (e.logIndex == altered.logIndex)
            stored = e.value;
    for (const auto& e : view.chain)
        if (e.logIndex == altered.logIndex)
            chain = e.value;
    QCOMPARE(stored, QStringLiteral("999999"));
    QCOMPARE(chain, m_rows[6].value);

    // Put right: clean again.
    test::writeGenericTable(db, QStringLiteral("transfers"), m_rows);
    s = waitFor([](const auto& s) { return s.checkRan() && s.findingCount() == 0; });
    QCOMPARE(s.findings.size(), 0);
    m_service->stopWatching(m_id);
    s = waitFor([](const auto& s) { return s.final(); });
    QCOMPARE(s.state, ForeignWatchSnapshot::State::Stopped);
}

void TestForeignWatch::settledFindingsAreCountedOnce_data()
{
    lagThenFindingsThenClean_data();
}

void TestForeignWatch::settledFindingsAreCountedOnce()
{
    QFETCH(QString, backend);
    const QString db = dbOf(backend);
    // A row of an early block missing and one of block head - 2, a window of one block:
    // both blocks settle at the first check and their findings stay counted once, check
    // after check; also once the indexer rolls its table back below them (its highest
    // block drops): settled blocks are not audited again.
    const std::uint64_t late = m_head - 2;
    QList<ForeignTableRow> rows = m_rows;
    const ForeignTableRow early = rows.takeAt(1);
    QVERIFY(early.block < late);
    const qsizetype lateAt =
        std::find_if(rows.cbegin(), rows.cend(), [&](const auto& r) { return r.block == late; }) -
        rows.cbegin();
    QVERIFY(lateAt < rows.size());
    rows.removeAt(lateAt);
    test::writeGenericTable(db, QStringLiteral("transfers"), rows);
    watch(spec(db, 1));
    ForeignWatchSnapshot s;
    for (int check = 0; check < 3; ++check) {
        s = waitFor([](const auto& s) { return s.checkRan(); });
        QCOMPARE(s.state, ForeignWatchSnapshot::State::Watching);
        QCOMPARE(countOf(s, ForeignFinding::Kind::Missing), 2);
        QCOMPARE(s.findingCount(), 2);
        QCOMPARE(s.findings.size(), 2);
        QCOMPARE(s.findings.first().block, late); // newest first
        QCOMPARE(s.findings.last().block, early.block);
        QCOMPARE(s.auditedTo, std::optional(m_head));
    }
    QList<ForeignTableRow> rolledBack;
    for (const auto& r : rows)
        if (r.block <= late)
            rolledBack << r;
    test::writeGenericTable(db, QStringLiteral("transfers"), rolledBack);
    s = waitFor([&](const auto& s) { return s.foreignHead == std::optional(late); });
    for (int check = 0; check < 3; ++check) {
        QCOMPARE(s.findingCount(), 2);
        QCOMPARE(s.lag(), std::optional<std::uint64_t>(2));
        s = waitFor([](const auto& s) { return s.checkRan(); });
    }
}

void TestForeignWatch::aCheckThatCannotRunSaysSo_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("what"); // "target", "node" or "query"
    QTest::addColumn<int>("state");
    using S = ForeignWatchSnapshot::State;
    for (const QString& backend : {QStringLiteral("sqlite"), QStringLiteral("postgresql")}) {
        QTest::addRow("%s, target unreachable", qPrintable(backend))
            << backend << QStringLiteral("target") << int(S::TargetUnreachable);
        QTest::addRow("%s, node unreachable", qPrintable(backend))
            << backend << QStringLiteral("node") << int(S::NodeUnreachable);
        QTest::addRow("%s, query fails", qPrintable(backend))
            << backend << QStringLiteral("query") << int(S::QueryFailed);
    }
}

void TestForeignWatch::aCheckThatCannotRunSaysSo()
{
    QFETCH(QString, backend);
    QFETCH(QString, what);
    QFETCH(int, state);
    QString db = dbOf(backend);
    test::writeGenericTable(db, QStringLiteral("transfers"), m_rows);
    if (what == QLatin1String("target"))
        db = backend == QLatin1String("sqlite")
                 ? m_lab->tempPath(QStringLiteral("no-such.sqlite"))
                 : QStringLiteral("postgresql://postgres@127.0.0.1:1/nothing");
    foreign::ForeignWatchSpec s = spec(db, 100);
    if (what == QLatin1String("query"))
        s.query = QStringLiteral("SELECT * FROM no_such_table");
    watch(s, what == QLatin1String("node") ? QUrl(QStringLiteral("http://127.0.0.1:1")) : QUrl());
    const ForeignWatchSnapshot got = waitFor([](const auto& s) { return s.checks >= 2; });
    QCOMPARE(int(got.state), state);
    QVERIFY(!got.checkRan());
    QVERIFY(!got.problem.isEmpty());
    QCOMPARE(got.failedChecks, got.checks);
    QVERIFY(!got.lastCheckRan.isValid());
    // No heights and no range: nothing that could read as a clean, caught-up indexer.
    QVERIFY(!got.foreignHead);
    QVERIFY(!got.lag());
    QVERIFY(!got.auditedTo);
    QVERIFY2(!got.problem.contains(QStringLiteral("password")), qPrintable(got.problem));
}

void TestForeignWatch::aBadSpecIsRefused()
{
    foreign::ForeignWatchSpec s = spec(m_lab->tempPath(QStringLiteral("foreign.sqlite")), 5);
    s.preset = QStringLiteral("ponder"); // and a query: one of them
    watch(s);
    const ForeignWatchSnapshot got = waitFor([](const auto&) { return true; });
    QCOMPARE(got.state, ForeignWatchSnapshot::State::Refused);
    QCOMPARE(got.problem, QStringLiteral("give a query or a preset (one of them)"));
    QVERIFY(got.final());
}

// Through EngineApi, as the window asks: refused before the engine has a node; then
// watched against the node the engine indexes from, with the environment's contracts; a
// finding's block read back; the watch ended with the engine.
void TestForeignWatch::theEngineWatchesAgainstItsNode()
{
    const QString db = dbOf(QStringLiteral("sqlite"));
    test::writeGenericTable(db, QStringLiteral("transfers"), m_rows);
    engine::EngineHost host;
    QSignalSpy snapshots(&host, &engine::EngineApi::foreignWatchAvailable);
    QSignalSpy blocks(&host, &engine::EngineApi::foreignBlockAvailable);
    const auto next = [&](quint64 id,
                          const std::function<bool(const ForeignWatchSnapshot&)>& pred) {
        QDeadlineTimer deadline(20000);
        while (!deadline.hasExpired()) {
            while (!snapshots.isEmpty()) {
                const auto s = snapshots.takeFirst().at(0).value<ForeignWatchSnapshot>();
                if (s.id == id && pred(s))
                    return s;
            }
            snapshots.wait(int(std::max<qint64>(1, deadline.remainingTime())));
        }
        return ForeignWatchSnapshot{};
    };
    foreign::ForeignWatchSpec w = spec(db, 12);
    const quint64 early = host.watchForeignIndexer(w);
    const ForeignWatchSnapshot refused = next(early, [](const auto&) { return true; });
    QCOMPARE(refused.state, ForeignWatchSnapshot::State::Refused);
    QVERIFY2(refused.problem.startsWith(QStringLiteral("the engine has no node yet")),
             qPrintable(refused.problem));

    engine::EngineConfig config;
    config.managedDevnet = false;
    config.rpcUrl = m_lab->devnet().url();
    config.dbPath = m_lab->tempPath(QStringLiteral("engine.sqlite"));
    config.contracts = {m_token};
    config.indexing = false;
    QSignalSpy statuses(&host, &engine::EngineApi::statusAvailable);
    host.start(config);
    QTRY_VERIFY_WITH_TIMEOUT(
        !statuses.isEmpty() &&
            !statuses.last().at(0).value<engine::EngineStatus>().environmentId.isEmpty(),
        20000);
    const quint64 id = host.watchForeignIndexer(w);
    QVERIFY(id != early);
    ForeignWatchSnapshot s = next(id, [](const auto& s) { return s.checkRan() || s.final(); });
    QVERIFY2(s.state == ForeignWatchSnapshot::State::Watching, qPrintable(s.problem));
    QCOMPARE(s.node, m_lab->devnet().url().toString());
    QCOMPARE(s.contracts, QStringList{m_token});
    QCOMPARE(s.labHead, std::optional(m_head));
    QCOMPARE(s.findingCount(), 0);

    host.requestForeignBlock(id, m_rows.first().block);
    QVERIFY(blocks.wait(10000));
    const auto view = blocks.first().at(0).value<foreign::ForeignBlockView>();
    QVERIFY2(view.error.isEmpty(), qPrintable(view.error));
    QCOMPARE(view.watchId, id);
    QVERIFY(!view.rows.isEmpty());
    QCOMPARE(view.rows.size(), view.chain.size());

    host.shutdown();
    s = next(id, [](const auto& s) { return s.final(); });
    QCOMPARE(s.state, ForeignWatchSnapshot::State::Stopped);
    QCOMPARE(s.problem, QStringLiteral("the engine stopped"));
    QVERIFY(host.waitForStopped(20000));
    bool sawWorker = false;
    for (const auto& worker : host.workerStats())
        if (worker.name == QLatin1String("forkscope-foreign")) {
            sawWorker = true;
            QCOMPARE(worker.stats.maxDepth, 1); // checks never nested
            QVERIFY(worker.stats.stepsCompleted >= 1);
        }
    QVERIFY(sawWorker);
}

QTEST_GUILESS_MAIN(TestForeignWatch)
#include "tst_foreignwatch.moc"
