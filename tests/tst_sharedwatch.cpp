// The app on a shared PostgreSQL index: the engine behind the window watches
// what `forkscope index` processes write, by LISTEN/NOTIFY and never by polling, shows the
// environments and node health as for a file, answers reports and table pages from the
// views, and refuses the lab controls with the reason. Real anvil, real throwaway cluster.
#include "IndexerLab.h"
#include "engine/DisplayState.h"
#include "engine/EngineHost.h"
#include "engine/SharedIndexWatcher.h"
#include "lab/FaultProxy.h"
#include "lab/PgLab.h"
#include "rpc/JsonRpcClient.h"
#include "store/StoreError.h"
#include "store/pg/PgConnection.h"

#include <QJsonArray>
#include <QSignalSpy>
#include <QtTest>

using namespace forkscope;
using store::pg::PgConnection;

class TestSharedWatch : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void summariesFollowTheAnnouncementsAndNothingElse();
    void theWindowsEngineWatchesReportsAndRefusesTheLab();
    void anUnreachableDatabaseIsAFailureNotAnEmptyIndex();
    void aNodeOnAnotherChainShowsForked();
    void aRollbacksDiffIsShownFromTheSharedIndex();
    void aFailedRangeShowsDataIncompleteUntilItIsStored();
    // Last: it resets the suite's anvil.
    void labResetArchivesTheSharedEnvironmentAndItsFollowerStops();
    void cleanupTestCase();

private:
    QStringList indexArgs(const QString& env) const;
    qint64 checkpoint(const QString& env);
    // The watcher's options for the suite's "watched" environment.
    engine::SharedIndexWatcher::Options watching() const
    {
        engine::SharedIndexWatcher::Options o;
        o.url = m_cluster.url();
        o.environmentId = QStringLiteral("watched");
        return o;
    }

    std::unique_ptr<test::IndexerLab> m_lab;
    lab::PgLab m_cluster;
    QProcess m_follower; // indexes "watched" at the head for the whole suite
};

QStringList TestSharedWatch::indexArgs(const QString& env) const
{
    return QStringList{QStringLiteral("index"),
                       QStringLiteral("--rpc"),
                       m_lab->devnet().url().toString(),
                       QStringLiteral("--db"),
                       m_cluster.url(),
                       QStringLiteral("--env"),
                       env,
                       QStringLiteral("--batch-size"),
                       QStringLiteral("8"),
                       QStringLiteral("--poll-ms"),
                       QStringLiteral("100")} +
           m_lab->contractArgs();
}

qint64 TestSharedWatch::checkpoint(const QString& env)
{
    try {
        auto db = PgConnection::open(m_cluster.url());
        const auto r = db->run(
            "t_cp", "SELECT block_number FROM indexer_checkpoints WHERE environment_id = $1",
            {env.toUtf8()});
        return r.rows() == 1 ? r.int64(0, 0) : -2;
    } catch (const store::StoreError&) {
        return -2; // the first process has not made the tables yet
    }
}

void TestSharedWatch::initTestCase()
{
    m_lab = std::make_unique<test::IndexerLab>();
    m_lab->deployToken(QStringLiteral("AAA"));
    m_lab->sprayAll(10, 3, 8);
    m_cluster.start();
    // A follower that keeps indexing at the head while the app watches.
    m_follower.start(QStringLiteral(FORKSCOPE_BINARY), indexArgs(QStringLiteral("watched")));
    QTRY_VERIFY_WITH_TIMEOUT(
        checkpoint(QStringLiteral("watched")) == qint64(m_lab->eth().blockNumber()), 60'000);
}

void TestSharedWatch::cleanupTestCase()
{
    m_follower.terminate();
    m_follower.waitForFinished(10'000);
}

void TestSharedWatch::summariesFollowTheAnnouncementsAndNothingElse()
{
    engine::SharedIndexWatcher::Options o = watching();
    engine::SharedIndexWatcher watcher(o);
    QSignalSpy attached(&watcher, &engine::SharedIndexWatcher::attached);
    QSignalSpy summaries(&watcher, &engine::SharedIndexWatcher::summaryAvailable);
    watcher.start();
    QVERIFY(attached.wait(10'000));
    QCOMPARE(attached.first().at(1).toULongLong(), 31337u);
    QCOMPARE(attached.first().at(2).toUrl(), m_lab->devnet().url()); // the recorded node
    QTRY_VERIFY_WITH_TIMEOUT(!summaries.isEmpty(), 10'000);
    const auto last = [&] { return summaries.last().first().value<engine::DbSummary>(); };
    QCOMPARE(last().checkpoint, std::optional<quint64>(quint64(checkpoint("watched"))));
    bool listed = false;
    for (const auto& e : last().environments)
        listed = listed || (e.id == QLatin1String("watched") && e.archivedAt.isEmpty());
    QVERIFY(listed);

    // Quiet database, quiet watcher: with nothing committed, nothing is read (after the one
    // settling read that lets a rate fall back), however long it waits. No polling.
    QTest::qWait(2000);
    const qsizetype settled = summaries.size();
    QTest::qWait(3000);
    QCOMPARE(summaries.size(), settled);

    // A commit by another process is announced, and read at once.
    const qint64 before = checkpoint("watched");
    m_lab->sprayAll(1, 2, 8);
    QTRY_VERIFY_WITH_TIMEOUT(summaries.size() > settled && last().checkpoint &&
                                 qint64(*last().checkpoint) > before,
                             20'000);
    QCOMPARE(qint64(*last().checkpoint), checkpoint("watched"));
    watcher.requestStop();
    QVERIFY(watcher.wait());
}

// Node health judges "forked" against the shared index's own blocks, as for a file: a node
// whose head block is not the indexed block at that height.
void TestSharedWatch::aNodeOnAnotherChainShowsForked()
{
    lab::Devnet other; // its own genesis: every block differs from the indexed chain's
    other.start();
    rpc::JsonRpcClient otherRpc(other.url());
    otherRpc.callBlocking(QStringLiteral("anvil_mine"), QJsonArray{3});
    QVERIFY(checkpoint(QStringLiteral("watched")) >= 3);

    engine::SharedIndexWatcher::Options o = watching();
    o.healthNodes = {m_lab->devnet().url(), other.url()};
    o.healthInterval = std::chrono::milliseconds(100);
    engine::SharedIndexWatcher watcher(o);
    QSignalSpy health(&watcher, &engine::SharedIndexWatcher::healthAvailable);
    watcher.start();
    const auto stateOf = [&](int node) {
        if (health.isEmpty())
            return health::NodeState::Offline;
        const auto h = health.last().first().value<health::HealthSnapshot>();
        return h.nodes.size() == 2 ? h.nodes.at(node).state : health::NodeState::Offline;
    };
    QTRY_COMPARE_WITH_TIMEOUT(stateOf(1), health::NodeState::Forked, 10'000);
    QCOMPARE(stateOf(0), health::NodeState::CaughtUp);
    watcher.requestStop();
    QVERIFY(watcher.wait());
}

// The reorg diff view on a shared index: what the follower's rollback removed, read from
// reorg_diff_items through the app's engine, as for a file.
void TestSharedWatch::aRollbacksDiffIsShownFromTheSharedIndex()
{
    m_lab->sprayAll(2, 2, 8);
    QTRY_COMPARE_WITH_TIMEOUT(checkpoint(QStringLiteral("watched")),
                              qint64(m_lab->eth().blockNumber()), 20'000);
    auto db = PgConnection::open(m_cluster.url());
    const qint64 fork = checkpoint(QStringLiteral("watched")) - 2;
    const qint64 transfers =
        db->run("t_tr_above",
                "SELECT count(*) FROM transfer_events WHERE environment_id = 'watched' AND "
                "block_number > $1",
                {QByteArray::number(fork)})
            .int64(0, 0);
    QVERIFY(transfers > 0);
    const auto reorgId = [&] {
        const auto r = db->exec("SELECT coalesce(max(id), 0) FROM reorg_events WHERE "
                                "environment_id = 'watched'");
        return r.int64(0, 0);
    };
    const qint64 none = reorgId();
    m_lab->reorg(2);
    m_lab->mine(1);
    QTRY_VERIFY_WITH_TIMEOUT(reorgId() > none, 20'000);

    engine::SharedIndexWatcher::Options o = watching();
    engine::SharedIndexWatcher watcher(o);
    QSignalSpy attached(&watcher, &engine::SharedIndexWatcher::attached);
    QSignalSpy diffs(&watcher, &engine::SharedIndexWatcher::reorgDiffAvailable);
    watcher.start();
    QVERIFY(attached.wait(10'000));
    watcher.requestReorgDiff(reorgId());
    QVERIFY(diffs.wait(10'000));
    const auto diff = diffs.first().first().value<engine::ReorgDiff>();
    QCOMPARE(diff.reorg.id, reorgId());
    QCOMPARE(diff.reorg.depth, 2);
    QCOMPARE(diff.reorg.forkBlock, fork);
    QHash<QString, int> kinds;
    for (const auto& item : diff.items)
        ++kinds[item.kind];
    QCOMPARE(kinds.value(QStringLiteral("transfer_removed")), int(transfers));
    QCOMPARE(kinds.value(QStringLiteral("outbox_dropped")) +
                 kinds.value(QStringLiteral("outbox_delivered_reorged")),
             int(transfers));
    QVERIFY(kinds.value(QStringLiteral("balance_changed")) > 0);
    // Each balance row, worked out again from the Transfers: after the rollback, the sum of
    // the holder's sides left at or below the fork (NULL when none is left); before it, that
    // plus the holder's sides in the removed Transfers. And every party to a removed
    // Transfer has its row. The rollback sums the holders' histories from log_store; this
    // works them out through the contract's views, as an outside checker would.
    const QList<QByteArray> diffScope{QByteArray::number(reorgId()), QByteArray::number(fork)};
    const qint64 wrongBalances =
        db->run("t_diff_balances",
                "SELECT count(*) FROM reorg_diff_items d WHERE d.environment_id = 'watched' AND "
                "d.reorg_id = $1::bigint AND d.kind = 'balance_changed' AND (d.after_value IS "
                "DISTINCT FROM (SELECT sum(CASE WHEN t.to_addr = d.holder THEN t.value::numeric "
                "ELSE 0 END - CASE WHEN t.from_addr = d.holder THEN t.value::numeric ELSE 0 "
                "END)::text FROM transfer_events t WHERE t.environment_id = d.environment_id AND "
                "t.contract = d.contract AND (t.to_addr = d.holder OR t.from_addr = d.holder) "
                "AND t.block_number <= $2::bigint) OR d.before_value::numeric IS DISTINCT FROM "
                "coalesce(d.after_value::numeric, 0) + (SELECT coalesce(sum(CASE WHEN r.to_addr "
                "= d.holder THEN r.value::numeric ELSE 0 END - CASE WHEN r.from_addr = d.holder "
                "THEN r.value::numeric ELSE 0 END), 0) FROM reorg_diff_items r WHERE "
                "r.environment_id = d.environment_id AND r.reorg_id = d.reorg_id AND r.kind = "
                "'transfer_removed' AND r.contract = d.contract))",
                diffScope)
            .int64(0, 0);
    QCOMPARE(wrongBalances, 0);
    const qint64 partiesWithoutRow =
        db->run("t_diff_parties",
                "SELECT count(*) FROM (SELECT r.contract, r.to_addr AS holder FROM "
                "reorg_diff_items r WHERE r.environment_id = 'watched' AND r.reorg_id = "
                "$1::bigint AND r.kind = 'transfer_removed' UNION SELECT r.contract, r.from_addr "
                "FROM reorg_diff_items r WHERE r.environment_id = 'watched' AND r.reorg_id = "
                "$1::bigint AND r.kind = 'transfer_removed') p WHERE p.holder <> "
                "'0x0000000000000000000000000000000000000000' AND NOT EXISTS (SELECT 1 FROM "
                "reorg_diff_items d WHERE d.environment_id = 'watched' AND d.reorg_id = "
                "$1::bigint AND d.kind = 'balance_changed' AND d.contract = p.contract AND "
                "d.holder = p.holder)",
                diffScope.mid(0, 1))
            .int64(0, 0);
    QCOMPARE(partiesWithoutRow, 0);
    // An id of no reorg of this environment: nothing (the environment scopes every read).
    watcher.requestReorgDiff(reorgId() + 1000);
    QVERIFY(!diffs.wait(500));
    watcher.requestStop();
    QVERIFY(watcher.wait());
}

void TestSharedWatch::theWindowsEngineWatchesReportsAndRefusesTheLab()
{
    engine::EngineHost host;
    QSignalSpy statuses(&host, &engine::EngineHost::statusAvailable);
    QSignalSpy logs(&host, &engine::EngineHost::logMessage);
    engine::EngineConfig config;
    config.dbPath = m_cluster.url();
    config.managedDevnet = false; // the app's own lab is not what it watches
    host.start(config);           // no --env: the newest live environment
    const auto status = [&] { return statuses.last().first().value<engine::EngineStatus>(); };
    QTRY_VERIFY_WITH_TIMEOUT(!statuses.isEmpty() && status().checkpoint && status().headBlock &&
                                 !status().health.nodes.isEmpty(),
                             20'000);
    QCOMPARE(status().connection, engine::EngineStatus::Connection::Connected);
    QCOMPARE(status().environmentId, QStringLiteral("watched"));
    QCOMPARE(status().dbPath, m_cluster.url());
    QVERIFY(!status().managedDevnet);
    // The outbox is the index processes' to deliver, not "no sink" from this app's settings.
    QVERIFY2(status().outboxSink.contains(QStringLiteral("forkscope index")),
             qPrintable(status().outboxSink));
    QCOMPARE(status().health.nodes.first().url, m_lab->devnet().url().toString());
    QVERIFY(status().health.nodes.first().head.has_value());

    // The window's head and checkpoint move as the follower commits.
    m_lab->sprayAll(1, 2, 8);
    const qint64 head = qint64(m_lab->eth().blockNumber());
    QTRY_VERIFY_WITH_TIMEOUT(status().checkpoint && qint64(*status().checkpoint) == head, 20'000);

    // Lab actions are refused, saying why; nothing reaches the node.
    const quint64 nodeHead = m_lab->eth().blockNumber();
    logs.clear();
    host.injectReorg(3, 0);
    host.resetLab();
    host.setDemoTraffic(true, 5);
    QCOMPARE(logs.size(), 3);
    for (const auto& l : logs) {
        QCOMPARE(l.at(0).toString(), QStringLiteral("error"));
        QVERIFY2(l.at(1).toString().contains(QStringLiteral("is refused")) &&
                     l.at(1).toString().contains(QStringLiteral("does not manage")) &&
                     l.at(1).toString().contains(QStringLiteral("watched")),
                 qPrintable(l.at(1).toString()));
    }
    QCOMPARE(m_lab->eth().blockNumber(), nodeHead);

    // A table page and a verified report, from the shared views.
    QSignalSpy pages(&host, &engine::EngineHost::tablePageAvailable);
    engine::TableRequest request;
    request.kind = engine::TableRequest::Kind::Transfers;
    request.limit = 5;
    host.requestTablePage(request);
    QVERIFY(pages.wait(10'000));
    const auto page = pages.first().first().value<engine::TablePage>();
    QVERIFY2(page.error.isEmpty(), qPrintable(page.error));
    QCOMPARE(page.rows.size(), 5);
    const QStringList columns = engine::tableColumns(engine::TableRequest::Kind::Transfers);
    const QStringList& row = page.rows.first();
    QVERIFY(row.at(columns.indexOf("tx hash")).startsWith(QStringLiteral("0x"))); // as hex text
    // The block's time, read from the shared blocks view: this run's, not the epoch's.
    const QDateTime time = QDateTime::fromString(row.at(columns.indexOf("time")), Qt::ISODate);
    QVERIFY2(time.isValid() && time.date().year() >= 2024, qPrintable(row.join(' ')));
    QSignalSpy reports(&host, &engine::EngineHost::reportAvailable);
    QSignalSpy failures(&host, &engine::EngineHost::reportFailed);
    const quint64 ticket = host.requestReport(QString(), true);
    QTRY_VERIFY_WITH_TIMEOUT(!reports.isEmpty() || !failures.isEmpty(), 30'000);
    QVERIFY2(failures.isEmpty(),
             failures.isEmpty() ? "" : qPrintable(failures.first().at(1).toString()));
    QCOMPARE(reports.first().at(0).toULongLong(), ticket);
    const auto report = reports.first().at(1).value<report::CheckpointReport>();
    QCOMPARE(report.environment.id, QStringLiteral("watched"));
    QCOMPARE(report.invariants.state, report::InvariantState::Hold);
    QCOMPARE(reports.size(), 1);

    // "Check invariants now": the same check against the node, as the lab's verdict; its
    // report is the verdict's, not handed to the window as if it had asked.
    host.checkInvariants(QStringLiteral("a check on request"));
    QTRY_VERIFY_WITH_TIMEOUT(status().verdict.state == engine::InvariantVerdict::State::Holds,
                             30'000);
    QCOMPARE(status().verdict.action, QStringLiteral("a check on request"));
    QVERIFY2(!status().verdict.summary.isEmpty(), qPrintable(status().verdict.summary));
    QCOMPARE(reports.size(), 1);
    QVERIFY(failures.isEmpty());
    host.shutdown();
    QVERIFY(host.waitForStopped());
}

void TestSharedWatch::anUnreachableDatabaseIsAFailureNotAnEmptyIndex()
{
    engine::EngineHost host;
    QSignalSpy statuses(&host, &engine::EngineHost::statusAvailable);
    engine::EngineConfig config;
    config.dbPath = QStringLiteral("postgresql://postgres:secret@127.0.0.1:1/forkscope");
    config.managedDevnet = false;
    host.start(config);
    const auto status = [&] { return statuses.last().first().value<engine::EngineStatus>(); };
    QTRY_VERIFY_WITH_TIMEOUT(!statuses.isEmpty() &&
                                 status().connection == engine::EngineStatus::Connection::Failed,
                             10'000);
    QVERIFY2(status().message.contains(QStringLiteral("127.0.0.1:1")) &&
                 !status().message.contains(QStringLiteral("secret")),
             qPrintable(status().message));
    QVERIFY(!status().checkpoint);
    host.shutdown();
    QVERIFY(host.waitForStopped());
}

// A block on a node's result cap fails its range five times: the process exits, and the
// checkpoint stays below the range. The window watching that environment says "data
// incomplete", naming the range, never green over the blocks it does not have; once a run
// against a node without the cap stores the range, it is watching a complete index again.
void TestSharedWatch::aFailedRangeShowsDataIncompleteUntilItIsStored()
{
    const QString env = QStringLiteral("capped");
    m_lab->tokens().first().spray(60, 0, 60);
    const auto block = m_lab->eth().blockNumber();
    m_lab->sprayAll(1, 2, 8);
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setLogCap(50, lab::FaultProxy::CapMode::Silent);
    proxy.setNoReceipts(true); // else the block's receipts prove its 60 logs
    QStringList args = indexArgs(env) << QStringLiteral("--exit-when-synced");
    args[2] = proxy.url().toString(); // --rpc
    const test::ProcessRun failed =
        test::runForkscope(args + QStringList{QStringLiteral("--log-cap"), QStringLiteral("50")});
    QCOMPARE(failed.exitCode, 1);
    // As on a file: the block on the cap stops indexing at once, in one line naming it.
    QVERIFY2(failed.err.contains(QStringLiteral("suspected truncation: block %1").arg(block)),
             qPrintable(failed.err));

    engine::EngineHost host;
    QSignalSpy statuses(&host, &engine::EngineHost::statusAvailable);
    engine::EngineConfig config;
    config.dbPath = m_cluster.url();
    config.managedDevnet = false;
    config.indexer.environmentId = env;
    host.start(config);
    const auto status = [&] { return statuses.last().first().value<engine::EngineStatus>(); };
    QTRY_VERIFY_WITH_TIMEOUT(!statuses.isEmpty() && !status().openAlerts.isEmpty(), 20'000);
    QCOMPARE(status().environmentId, env);
    QCOMPARE(status().indexerState, QStringLiteral("data incomplete"));
    QCOMPARE(engine::displayState(status()).kind, engine::DisplayState::Kind::DataIncomplete);
    const indexer::CompletenessAlert alert = status().openAlerts.first();
    QVERIFY2(alert.fromBlock <= block && alert.toBlock >= block &&
                 alert.summary().contains(QStringLiteral("suspected truncation")),
             qPrintable(alert.summary()));

    args[2] = m_lab->devnet().url().toString();
    VERIFY_EXIT_OK(test::runForkscope(args));
    QTRY_VERIFY_WITH_TIMEOUT(status().openAlerts.isEmpty() && status().checkpoint &&
                                 *status().checkpoint == m_lab->eth().blockNumber(),
                             20'000);
    QCOMPARE(status().indexerState, QStringLiteral("watching"));
    QVERIFY(engine::displayState(status()).kind != engine::DisplayState::Kind::DataIncomplete);
    host.shutdown();
    QVERIFY(host.waitForStopped());
}

void TestSharedWatch::labResetArchivesTheSharedEnvironmentAndItsFollowerStops()
{
    auto db = PgConnection::open(m_cluster.url());
    // Each statement under its own name: a prepared name stands for one text.
    const auto count = [&](const char* sql) {
        return db->run(sql, sql, {QByteArrayLiteral("watched")}).int64(0, 0);
    };
    const qint64 logs = count("SELECT count(*) FROM log_store WHERE environment_id = $1");
    const qint64 blocks = count("SELECT count(*) FROM block_store WHERE environment_id = $1");
    const qint64 reorgs = count("SELECT count(*) FROM reorg_events WHERE environment_id = $1");
    QVERIFY(logs > 0);
    const test::ProcessRun run = test::runForkscope(
        {QStringLiteral("lab"), QStringLiteral("reset"), QStringLiteral("--db"), m_cluster.url(),
         QStringLiteral("--rpc"), m_lab->devnet().url().toString(), QStringLiteral("--env"),
         QStringLiteral("fresh")});
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.out.contains(QStringLiteral("archived environment: watched")) &&
                 run.out.contains(QStringLiteral("new environment: fresh (chain 31337)")),
             qPrintable(run.out));
    // Archived, every row kept; the new environment carries the new chain's genesis and
    // takes the contracts of its first indexer.
    QVERIFY(!db->run("t_archived",
                     "SELECT archived_at FROM environments WHERE environment_id = 'watched'")
                 .isNull(0, 0));
    // The contract set is the writers' (environment_store), not in the contract's view.
    const auto fresh = db->run("t_fresh", "SELECT e.genesis_hash, s.contracts FROM environments e "
                                          "JOIN environment_store s USING (environment_id) WHERE "
                                          "environment_id = 'fresh'");
    QCOMPARE(fresh.text(0, 0), m_lab->eth().blockByNumber(0)->hash.toHex().toUtf8());
    QCOMPARE(fresh.text(0, 1), QByteArray());

    // The follower of the old chain stops instead of writing the new chain into the old
    // history, or rolling the old history back: the next blocks do not link to its
    // checkpoint, and its environment is archived.
    m_lab->deployToken(QStringLiteral("NEW"));
    m_lab->mine(3);
    // It may already have stopped during the reset itself (polling between anvil_reset and
    // the archive's commit, no stored block is on the new chain), or on the node's new
    // genesis, which every round checks: either way it stops, saying why, and writes nothing.
    QTRY_VERIFY_WITH_TIMEOUT(m_follower.state() == QProcess::NotRunning, 60'000);
    QCOMPARE(m_follower.exitCode(), 1);
    const QString err = QString::fromUtf8(m_follower.readAllStandardError());
    QVERIFY2(err.contains(QStringLiteral("was archived")) ||
                 err.contains(QStringLiteral("is on the node's chain any more")) ||
                 err.contains(QStringLiteral("Nothing was deleted")) ||
                 err.contains(QStringLiteral("the chain was reset")),
             qPrintable(err));
    QCOMPARE(count("SELECT count(*) FROM log_store WHERE environment_id = $1"), logs);
    QCOMPARE(count("SELECT count(*) FROM block_store WHERE environment_id = $1"), blocks);
    QCOMPARE(count("SELECT count(*) FROM reorg_events WHERE environment_id = $1"), reorgs);
    // And nobody can index into it again.
    const test::ProcessRun again = test::runForkscope(
        indexArgs(QStringLiteral("watched")) + QStringList{QStringLiteral("--exit-when-synced")});
    VERIFY_ONE_ERROR_LINE(again, 1, (QStringList{QStringLiteral("archived")}));
}

QTEST_GUILESS_MAIN(TestSharedWatch)
#include "tst_sharedwatch.moc"
