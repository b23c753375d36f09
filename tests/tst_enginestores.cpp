// The window's engine on either store, the store a data row: the same EngineHost, with
// its managed devnet, indexes the lab into a SQLite file or a PostgreSQL database, and the
// lab actions (a reorg, a lab reset, a forked replica, the invariant verdict) act and are
// checked the same way on both. What the engine wrote is read back here through the
// contract's surface of the row's store, not through the engine. Real anvil, real
// throwaway cluster.
#include "engine/DisplayState.h"
#include "engine/EngineHost.h"
#include "lab/PgLab.h"
#include "lab/ReorgTxMode.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"
#include "store/ReadOnlyStore.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace forkscope;
using V = engine::InvariantVerdict::State;

class TestEngineStores : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void theWindowsEngineIndexesTheManagedLab_data() { backends(); }
    void theWindowsEngineIndexesTheManagedLab();
    void aReorgInjectedThroughTheLabIsRolledBackAndItsDiffShown_data() { backends(); }
    void aReorgInjectedThroughTheLabIsRolledBackAndItsDiffShown();
    void aLabResetArchivesTheEnvironment_data() { backends(); }
    void aLabResetArchivesTheEnvironment();
    void aForkedReplicaShowsForkedAgainstTheStoredBlocks_data() { backends(); }
    void aForkedReplicaShowsForkedAgainstTheStoredBlocks();
    void anUnreachableDatabaseIsAFailureNotAnEmptyIndex_data();
    void anUnreachableDatabaseIsAFailureNotAnEmptyIndex();

private:
    // The data rows: each store, as the app's --db takes it.
    void backends()
    {
        QTest::addColumn<QString>("db");
        QTest::newRow("sqlite") << m_dir.filePath(QStringLiteral("app.sqlite"));
        QTest::newRow("postgresql") << m_cluster.url();
    }

    QTemporaryDir m_dir;
    lab::PgLab m_cluster;
};

namespace {

// The window's engine on `db` with its managed devnet and demo traffic (transfers to index).
struct App
{
    engine::EngineHost host;
    engine::EngineStatus last;
    QStringList log;
    explicit App(const QString& db, int nodes = 1)
    {
        QObject::connect(&host, &engine::EngineHost::statusAvailable, &host,
                         [this](const engine::EngineStatus& s) { last = s; });
        QObject::connect(
            &host, &engine::EngineHost::logMessage, &host,
            [this](const QString& level, const QString& t) { log << level + ": " + t; });
        engine::EngineConfig c;
        c.dbPath = db;
        c.labNodes = nodes;
        c.demoTraffic = true;
        c.demoInterval = std::chrono::milliseconds(300);
        c.demoTransfersPerTick = 3;
        c.indexer.pollInterval = std::chrono::milliseconds(100);
        host.start(c);
    }
    ~App()
    {
        host.shutdown();
        host.waitForStopped();
    }
    // Lab ready, and the environment indexed to at least `blocks`.
    bool indexed(quint64 blocks) const
    {
        return last.labReady && last.checkpoint.value_or(0) >= blocks;
    }
    // Demo traffic off and the checkpoint on the node's head: nothing moves any more.
    bool still(rpc::EthClient& node) const
    {
        return !last.demoTraffic && last.checkpoint && *last.checkpoint == node.blockNumber();
    }
    bool holds(const QString& action) const
    {
        return last.verdict.action.contains(action) && last.verdict.state == V::Holds;
    }
    QString logText() const { return log.join(QLatin1Char('\n')); }
};

// What the engine committed, read through the row's store itself.
qint64 count(const QString& db, const QString& sql, const QVariantList& args)
{
    const auto store = store::ReadOnlyStore::open(db);
    return store->reader().scalar(sql, args);
}

} // namespace

void TestEngineStores::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_cluster.start();
}

// The engine indexes its managed lab into the row's store: the checkpoint the window shows
// is the one stored there, a table page and a verified report are read from it, and the
// lab's verdict checks it against the node.
void TestEngineStores::theWindowsEngineIndexesTheManagedLab()
{
    QFETCH(QString, db);
    App app(db);
    QTRY_VERIFY2_WITH_TIMEOUT(app.indexed(6), qPrintable(app.logText()), 60'000);
    QCOMPARE(app.last.connection, engine::EngineStatus::Connection::Connected);
    QCOMPARE(app.last.dbPath, db);
    const QString env = app.last.environmentId;
    QVERIFY(env.startsWith(QStringLiteral("lab-")));
    // In the row's store, under the window's environment.
    QTRY_VERIFY_WITH_TIMEOUT(app.last.storedCheckpoint.has_value(), 10'000);
    QVERIFY(count(db,
                  QStringLiteral("SELECT block_number FROM indexer_checkpoints WHERE "
                                 "environment_id = ?"),
                  {env}) >= qint64(*app.last.storedCheckpoint));
    QTRY_VERIFY_WITH_TIMEOUT(
        count(db, QStringLiteral("SELECT count(*) FROM transfer_events WHERE environment_id = ?"),
              {env}) > 0,
        20'000);

    QSignalSpy pages(&app.host, &engine::EngineHost::tablePageAvailable);
    engine::TableRequest request;
    request.kind = engine::TableRequest::Kind::Transfers;
    request.limit = 3;
    app.host.requestTablePage(request);
    QVERIFY(pages.wait(10'000));
    const auto page = pages.first().first().value<engine::TablePage>();
    QVERIFY2(page.error.isEmpty(), qPrintable(page.error));
    QVERIFY(!page.rows.isEmpty());
    const QStringList columns = engine::tableColumns(engine::TableRequest::Kind::Transfers);
    QVERIFY(page.rows.first().at(columns.indexOf("tx hash")).startsWith(QStringLiteral("0x")));

    QSignalSpy reports(&app.host, &engine::EngineHost::reportAvailable);
    QSignalSpy failures(&app.host, &engine::EngineHost::reportFailed);
    const quint64 ticket = app.host.requestReport(QString(), true);
    QTRY_VERIFY_WITH_TIMEOUT(!reports.isEmpty() || !failures.isEmpty(), 30'000);
    QVERIFY2(failures.isEmpty(),
             failures.isEmpty() ? "" : qPrintable(failures.first().at(1).toString()));
    QCOMPARE(reports.first().at(0).toULongLong(), ticket);
    const auto report = reports.first().at(1).value<report::CheckpointReport>();
    QCOMPARE(report.environment.id, env);
    QCOMPARE(report.invariants.state, report::InvariantState::Hold);

    app.host.checkInvariants(QStringLiteral("a check on request"));
    QTRY_VERIFY2_WITH_TIMEOUT(app.holds(QStringLiteral("a check on request")),
                              qPrintable(app.last.verdict.summary + "\n" + app.logText()), 30'000);
}

// A reorg injected through the lab: the engine rolls it back in the row's store, the
// window lists it, and its diff names every Transfer the dropped blocks held.
void TestEngineStores::aReorgInjectedThroughTheLabIsRolledBackAndItsDiffShown()
{
    QFETCH(QString, db);
    App app(db);
    QTRY_VERIFY2_WITH_TIMEOUT(app.indexed(8), qPrintable(app.logText()), 60'000);
    rpc::JsonRpcClient rpc(QUrl(app.last.endpoint));
    rpc::EthClient node(rpc);
    app.host.setDemoTraffic(false, 3);
    QTRY_VERIFY_WITH_TIMEOUT(app.still(node), 20'000);
    const QString env = app.last.environmentId;
    const qint64 depth = 3;
    const qint64 fork = qint64(*app.last.checkpoint) - depth;
    const qint64 transfers = count(
        db,
        QStringLiteral(
            "SELECT count(*) FROM transfer_events WHERE environment_id = ? AND block_number > ?"),
        {env, fork});
    QVERIFY(transfers > 0);
    const qsizetype reorgsBefore = app.last.recentReorgs.size();

    app.host.injectReorg(int(depth), int(lab::ReorgTxMode::Drop));
    QTRY_VERIFY2_WITH_TIMEOUT(app.last.recentReorgs.size() > reorgsBefore,
                              qPrintable(app.logText()), 30'000);
    const engine::ReorgMark mark = app.last.recentReorgs.last();
    QCOMPARE(mark.forkBlock, fork);
    QCOMPARE(mark.depth, depth);
    // Rolled back in the store: the dropped blocks' Transfers are gone from it.
    QTRY_COMPARE_WITH_TIMEOUT(
        count(db,
              QStringLiteral("SELECT count(*) FROM transfer_events WHERE environment_id = ? AND "
                             "block_number > ?"),
              {env, fork}),
        qint64(0), 20'000);
    QTRY_VERIFY2_WITH_TIMEOUT(app.holds(QStringLiteral("inject reorg")),
                              qPrintable(app.last.verdict.summary + "\n" + app.logText()), 30'000);

    QSignalSpy diffs(&app.host, &engine::EngineHost::reorgDiffAvailable);
    app.host.requestReorgDiff(mark.id);
    QVERIFY(diffs.wait(10'000));
    const auto diff = diffs.first().first().value<engine::ReorgDiff>();
    QCOMPARE(diff.reorg.id, mark.id);
    QCOMPARE(diff.reorg.forkBlock, fork);
    qint64 removed = 0;
    for (const auto& item : diff.items)
        if (item.kind == QLatin1String("transfer_removed")) {
            ++removed;
            QVERIFY(item.blockNumber > fork);
            QCOMPARE(item.again, engine::ReorgDiff::Item::Again::No); // dropped, not re-mined
        }
    QCOMPARE(removed, transfers);
}

// A lab reset archives the live environment in the row's store, every row kept, and the
// engine indexes the reset chain into a new one, its verdict holding.
void TestEngineStores::aLabResetArchivesTheEnvironment()
{
    QFETCH(QString, db);
    App app(db);
    QTRY_VERIFY2_WITH_TIMEOUT(app.indexed(6), qPrintable(app.logText()), 60'000);
    rpc::JsonRpcClient rpc(QUrl(app.last.endpoint));
    rpc::EthClient node(rpc);
    app.host.setDemoTraffic(false, 3);
    QTRY_VERIFY_WITH_TIMEOUT(app.still(node), 20'000);
    const QString old = app.last.environmentId;
    const QString blocksOf = QStringLiteral("SELECT count(*) FROM blocks WHERE environment_id = ?");
    const qint64 blocks = count(db, blocksOf, {old});
    QVERIFY(blocks > 0);

    app.host.resetLab();
    QTRY_VERIFY2_WITH_TIMEOUT(app.last.labReady && !app.last.environmentId.isEmpty() &&
                                  app.last.environmentId != old,
                              qPrintable(app.logText()), 60'000);
    const QString fresh = app.last.environmentId;
    QVERIFY(count(db,
                  QStringLiteral("SELECT count(*) FROM environments WHERE environment_id = ? AND "
                                 "archived_at IS NOT NULL"),
                  {old}) == 1);
    QCOMPARE(count(db, blocksOf, {old}), blocks);
    QTRY_VERIFY2_WITH_TIMEOUT(app.holds(QStringLiteral("lab reset")),
                              qPrintable(app.last.verdict.summary + "\n" + app.logText()), 60'000);
    // The window lists both: the old one archived, the new one live.
    QTRY_VERIFY_WITH_TIMEOUT(
        std::any_of(app.last.environments.cbegin(), app.last.environments.cend(),
                    [&](const auto& e) { return e.id == old && !e.archivedAt.isEmpty(); }),
        10'000);
    QVERIFY(std::any_of(app.last.environments.cbegin(), app.last.environments.cend(),
                        [&](const auto& e) { return e.id == fresh && e.archivedAt.isEmpty(); }));
}

// Node health judges "forked" against the blocks in the row's store: the lab's forked
// replica is marked forked, the lab's own node caught up, and the indexer goes on.
void TestEngineStores::aForkedReplicaShowsForkedAgainstTheStoredBlocks()
{
    QFETCH(QString, db);
    App app(db, 2);
    QTRY_VERIFY2_WITH_TIMEOUT(app.indexed(4), qPrintable(app.logText()), 60'000);
    app.host.startForkedReplica();
    QTRY_VERIFY_WITH_TIMEOUT(!app.last.replicaUrl.isEmpty(), 30'000);
    const auto node2 = [&app] {
        return app.last.health.nodes.size() == 2 ? app.last.health.nodes.at(1).state
                                                 : health::NodeState::Offline;
    };
    QTRY_COMPARE_WITH_TIMEOUT(node2(), health::NodeState::Forked, 30'000);
    QCOMPARE(app.last.health.nodes.at(0).state, health::NodeState::CaughtUp);
    QTRY_VERIFY2_WITH_TIMEOUT(app.holds(QStringLiteral("forked replica")),
                              qPrintable(app.last.verdict.summary + "\n" + app.logText()), 30'000);
}

void TestEngineStores::anUnreachableDatabaseIsAFailureNotAnEmptyIndex_data()
{
    QTest::addColumn<QString>("db");
    QTest::addColumn<QString>("named"); // how the failure names the database
    QTest::newRow("sqlite") << QStringLiteral("/nonexistent/forkscope/app.sqlite")
                            << QStringLiteral("/nonexistent/forkscope");
    QTest::newRow("postgresql") << QStringLiteral(
                                       "postgresql://postgres:secret@127.0.0.1:1/forkscope")
                                << QStringLiteral("127.0.0.1:1");
}

// A database the engine cannot open is shown as a failure naming it (never its password),
// never as an index with nothing in it yet.
void TestEngineStores::anUnreachableDatabaseIsAFailureNotAnEmptyIndex()
{
    QFETCH(QString, db);
    QFETCH(QString, named);
    App app(db);
    QTRY_VERIFY2_WITH_TIMEOUT(engine::displayState(app.last).kind ==
                                  engine::DisplayState::Kind::Failed,
                              qPrintable(app.logText()), 60'000);
    const QString reason = engine::displayState(app.last).reason;
    QVERIFY2(reason.contains(named) && !reason.contains(QStringLiteral("secret")),
             qPrintable(reason));
    QVERIFY(!app.last.dbPath.contains(QStringLiteral("secret")));
    QVERIFY(!app.last.checkpoint);
    QVERIFY(!app.last.storedCheckpoint);
    QVERIFY(!QFileInfo::exists(QStringLiteral("/nonexistent")));
}

QTEST_GUILESS_MAIN(TestEngineStores)
#include "tst_enginestores.moc"
