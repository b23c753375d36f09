// The same indexer behaviour on both stores, from the same test code with the backend as a
// data row: `forkscope index` into a SQLite file and into a shared PostgreSQL
// index, then what a user does next: every log the node's, behind a failing, capping or
// lagging node too; verify and the report; ABI decoding; the local API; a hole found and
// repaired. Every check reads the contract's surface through store::ContractReader, so the
// assertions cannot differ between the rows. Real anvil, real throwaway cluster. Crashes,
// the outbox and reorgs are tst_backendscrash's.
#include "BackendLab.h"
#include "LocalApiClient.h"
#include "engine/SummaryReader.h"
#include "health/NodeState.h"
#include "lab/FaultProxy.h"
#include "store/ContractSurface.h"
#include "store/ReadOnlyStore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace forkscope;
using test::Backend;

class TestBackends : public QObject, public test::BackendLab
{
    Q_OBJECT
private slots:
    void initTestCase() { startLab(); }
    void indexedDataIsTheNodesAndVerifies_data() { backends(); }
    void indexedDataIsTheNodesAndVerifies();
    void aFaultyNodeStillGivesEveryLogOnce_data();
    void aFaultyNodeStillGivesEveryLogOnce();
    void aBlockOnTheCapStopsLoudlyAndResumes_data() { backends(); }
    void aBlockOnTheCapStopsLoudlyAndResumes();
    void aBlockOnTheCapAtTheHeadStopsTheFollower_data() { backends(); }
    void aBlockOnTheCapAtTheHeadStopsTheFollower();
    void aLaggingNodeNeverCausesARollback_data() { backends(); }
    void aLaggingNodeNeverCausesARollback();
    void storedLogsTheNodeStopsReturningAreSaidNotDeleted_data() { backends(); }
    void storedLogsTheNodeStopsReturningAreSaidNotDeleted();
    void aNodeOfflineMidSyncLosesNothing_data() { backends(); }
    void aNodeOfflineMidSyncLosesNothing();
    void aNodeOfflineAtTheStartIsWaitedFor_data();
    void aNodeOfflineAtTheStartIsWaitedFor();
    void aLyingNodeIsWaitedOutAndNothingOfItStored_data();
    void aLyingNodeIsWaitedOutAndNothingOfItStored();
    void decodedEventsReadTheSame_data() { backends(); }
    void decodedEventsReadTheSame();
    void theLocalApiAnswersFromTheStore_data() { backends(); }
    void theLocalApiAnswersFromTheStore();
    void aHoleIsFoundAndRepaired_data() { backends(); }
    void aHoleIsFoundAndRepaired();

private:
    // `forkscope index` of `env` into `db` with the node behind `proxy`.
    QStringList indexArgsThrough(const lab::FaultProxy& proxy, const QString& db,
                                 const QString& env) const
    {
        QStringList args = indexArgs(db, env);
        args[2] = proxy.url().toString(); // --rpc
        return args;
    }

    // The "completeness" object of `forkscope report --format json` for `env`.
    QJsonObject completenessInReport(const QString& db, const QString& env) const
    {
        const QString out = m_lab->tempPath(QStringLiteral("completeness.json"));
        const test::ProcessRun run = test::runForkscope(
            {QStringLiteral("report"), QStringLiteral("--db"), db, QStringLiteral("--env"), env,
             QStringLiteral("--format"), QStringLiteral("json"), QStringLiteral("--out"), out});
        if (run.exitCode != 0)
            return {{"state", QStringLiteral("report failed: ") + run.err}};
        QFile f(out);
        if (!f.open(QIODevice::ReadOnly))
            return {};
        return QJsonDocument::fromJson(f.readAll()).object().value("completeness").toObject();
    }

    // The report of `env` says "data incomplete", with an open alert of a suspected
    // truncation whose blocks include `block`; verify, clean below the checkpoint, names the
    // alert with the way to fetch its blocks on this store.
    void expectReportedTruncationAt(const QString& db, const QString& env, qint64 block) const
    {
        const QJsonObject incomplete = completenessInReport(db, env);
        QCOMPARE(incomplete.value("state").toString(), QStringLiteral("data incomplete"));
        const QJsonObject alert = incomplete.value("open_alerts").toArray().first().toObject();
        const qint64 from = alert.value("from_block").toInteger();
        const qint64 to = alert.value("to_block").toInteger();
        QVERIFY2(
            from <= block && to >= block &&
                alert.value("what").toString().contains(QStringLiteral("suspected truncation")),
            qPrintable(QJsonDocument(alert).toJson()));
        const test::ProcessRun verify = test::runForkscope(verifyArgs(db, env));
        VERIFY_EXIT_OK(verify);
        const QString remedy = QStringLiteral("`forkscope repair --from");
        QVERIFY2(verify.out.contains(QStringLiteral("open alert: ")) &&
                     verify.out.contains(QStringLiteral("blocks %1..%2").arg(from).arg(to)) &&
                     verify.out.contains(remedy),
                 qPrintable(verify.out));
    }

    // Each row of the contract's views of `env` a store reports the same way, as text, each
    // view in its key order; what differs by design (times of writing, ids) is left out.
    static QStringList contractRows(store::ContractReader& r, const QString& env)
    {
        static const char* const views[] = {
            "SELECT 'blocks', chain_id, block_number, block_hash, parent_hash, block_timestamp "
            "FROM blocks WHERE environment_id = ? ORDER BY block_number",
            "SELECT 'logs', chain_id, block_number, block_hash, log_index, tx_hash, address, "
            "topic0, topic1, topic2, topic3, data FROM logs WHERE environment_id = ? ORDER BY "
            "block_number, log_index",
            "SELECT 'transfer_events', chain_id, block_number, log_index, tx_hash, contract, "
            "from_addr, to_addr, value FROM transfer_events WHERE environment_id = ? ORDER BY "
            "block_number, log_index",
            "SELECT 'token_balances', chain_id, contract, holder, balance, updated_at_block FROM "
            "token_balances WHERE environment_id = ? ORDER BY contract, holder",
            "SELECT 'outbox', chain_id, block_number, event_key, payload, CASE WHEN delivered_at "
            "IS NULL THEN 'pending' ELSE 'delivered' END FROM outbox WHERE environment_id = ? "
            "ORDER BY block_number, event_key"};
        QStringList rows;
        for (const char* sql : views)
            for (auto q = r.query(QString::fromLatin1(sql), {env}); q->next();) {
                QStringList cells;
                for (int c = 0; c < q->columns(); ++c)
                    cells << (q->value(c).isNull() ? QStringLiteral("(null)")
                                                   : q->value(c).toString());
                rows << cells.join('|');
            }
        return rows;
    }

    // Every view of the contract's read surface and the tables a reader reads, column by
    // column, as a consumer sees it: the view's column names in order, then each row of `env`
    // as "type:text" per column. What differs by design (times of writing, ids) keeps its type
    // and its shape (digits masked). Rows sorted here: the stores' collations differ.
    static QStringList surfaceOf(store::ContractReader& r, const QString& db, const QString& env)
    {
        const bool pg = store::pg::isPostgresUrl(db);
        QStringList names;
        for (const store::SurfaceObject& o : store::contractSurface())
            if (o.kind == store::SurfaceObject::Kind::View && !names.contains(o.name))
                names << o.name;
        names << QStringLiteral("reorg_events") << QStringLiteral("completeness_alerts");
        static const QRegularExpression digit(QStringLiteral("[0-9]"));
        QStringList out;
        for (const QString& view : names) {
            QStringList columns;
            for (auto q = r.query(pg ? QStringLiteral("SELECT column_name FROM "
                                                      "information_schema.columns WHERE "
                                                      "table_schema = current_schema() AND "
                                                      "table_name = ? ORDER BY ordinal_position")
                                     : QStringLiteral("SELECT name FROM pragma_table_info(?)"),
                                  {view});
                 q->next();)
                columns << q->value(0).toString();
            out << view + QStringLiteral(": ") + columns.join(QLatin1Char(','));
            // Which ranges are recorded says how the work was shared, not what the chain
            // holds: PostgreSQL records every committed range (its writers' leases), SQLite
            // its backfill's. Which heads a node was seen at says when its health polls ran
            // beside the indexer. Their columns are compared, their rows are not.
            if (!columns.contains(QStringLiteral("environment_id")) ||
                view == QLatin1String("backfill_ranges") || view == QLatin1String("node_sightings"))
                continue;
            QStringList select;
            for (const QString& c : columns)
                select << (pg ? QStringLiteral("pg_typeof(\"%1\")::text").arg(c)
                              : QStringLiteral("typeof(\"%1\")").arg(c))
                       << QStringLiteral("\"%1\"").arg(c);
            QStringList rows;
            for (auto q = r.query(QStringLiteral("SELECT %1 FROM %2 WHERE environment_id = ?")
                                      .arg(select.join(QStringLiteral(", ")), view),
                                  {env});
                 q->next();) {
                QStringList cells;
                for (int i = 0; i < columns.size(); ++i) {
                    const QVariant v = q->value(2 * i + 1);
                    QString type = q->value(2 * i).toString();
                    if (v.isNull())
                        type = QStringLiteral("null");
                    else if (type == QLatin1String("bigint") || type == QLatin1String("integer") ||
                             type == QLatin1String("smallint"))
                        type = QStringLiteral("integer");
                    else if (type == QLatin1String("double precision"))
                        type = QStringLiteral("real");
                    else if (type == QLatin1String("bytea"))
                        type = QStringLiteral("blob");
                    QString text = v.toString();
                    const QString& c = columns[i];
                    if (c.endsWith(QLatin1String("_at")) || c == QLatin1String("id") ||
                        c == QLatin1String("reorg_id"))
                        text.replace(digit, QStringLiteral("d"));
                    cells << c + QLatin1Char('=') + type + QLatin1Char(':') + text;
                }
                rows << view + QStringLiteral(" row ") + cells.join(QLatin1Char('|'));
            }
            rows.sort();
            out += rows;
        }
        return out;
    }

    // The lines only one of `got` (PostgreSQL) and `expected` (SQLite) has, at most ten of
    // each, or empty.
    static QString differences(const QStringList& got, const QStringList& expected)
    {
        QStringList out;
        for (const auto& [side, from, other] : {std::tuple{"postgresql only: ", &got, &expected},
                                                std::tuple{"sqlite only:     ", &expected, &got}}) {
            int shown = 0;
            for (const QString& line : *from)
                if (!other->contains(line) && shown++ < 10)
                    out << QLatin1String(side) + line;
        }
        return out.join(QLatin1Char('\n'));
    }

    qint64 m_blockOnTheCap = -1; // a block with more Transfers than a cap of 50, once made
    // What the sqlite row of indexedDataIsTheNodesAndVerifies read, for the postgresql row.
    QStringList m_contractOnSqlite;
    QStringList m_surfaceOnSqlite;
    // What the sqlite row of decodedEventsReadTheSame read, for the postgresql row.
    QStringList m_decodedOnSqlite;
};

void TestBackends::aFaultyNodeStillGivesEveryLogOnce_data()
{
    backendsTimes("fault", {"10% errors", "silent cap of 20"});
}

// Behind a node that fails one request in ten, or silently cuts eth_getLogs results at 20
// logs (as some providers do), the index still holds every log once: failed ranges are
// fetched again, and a result of exactly the cap is halved until it is under it.
void TestBackends::aFaultyNodeStillGivesEveryLogOnce()
{
    QFETCH(QString, db);
    QFETCH(QString, fault);
    const bool capped = fault.startsWith(QLatin1String("silent cap"));
    const QString env = capped ? QStringLiteral("capped") : QStringLiteral("erring");
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setSeed(42);
    if (capped)
        proxy.setLogCap(20, lab::FaultProxy::CapMode::Silent);
    else
        proxy.setErrorRate(0.10);
    QStringList args{QStringLiteral("index"),
                     QStringLiteral("--rpc"),
                     proxy.url().toString(),
                     QStringLiteral("--db"),
                     db,
                     QStringLiteral("--env"),
                     env,
                     QStringLiteral("--exit-when-synced"),
                     QStringLiteral("--batch-size"),
                     capped ? QStringLiteral("1000") : QStringLiteral("4")};
    if (capped)
        args << QStringLiteral("--log-cap") << QStringLiteral("20");
    VERIFY_EXIT_OK(test::runForkscope(args + m_lab->contractArgs()));
    if (capped)
        QVERIFY(proxy.cappedReplies() > 0);
    else
        QVERIFY(proxy.injectedErrors() > 0);
    Backend b(db);
    expectSyncedWithEveryLog(b, env);
    VERIFY_EXIT_OK(test::runForkscope(verifyArgs(db, env)));
}

// One block holds more logs than the node's silent cap and the node refuses its receipts:
// nothing can prove the block complete, so the index stops there in one line naming the
// block, with everything below committed and nothing at or above it visible; once the node
// serves the block's receipts, which prove its logs, the same index completes.
void TestBackends::aBlockOnTheCapStopsLoudlyAndResumes()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("on-the-cap");
    if (m_blockOnTheCap < 0) {
        m_lab->tokens().first().spray(60, 0, 60);
        m_blockOnTheCap = qint64(m_lab->eth().blockNumber());
        m_lab->sprayAll(2, 2, 10);
    }
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setLogCap(50, lab::FaultProxy::CapMode::Silent);
    proxy.setNoReceipts(true);
    QStringList args{QStringLiteral("index"),
                     QStringLiteral("--rpc"),
                     proxy.url().toString(),
                     QStringLiteral("--db"),
                     db,
                     QStringLiteral("--env"),
                     env,
                     QStringLiteral("--exit-when-synced"),
                     QStringLiteral("--batch-size"),
                     QStringLiteral("4")};
    const test::ProcessRun run =
        test::runForkscope(args + QStringList{QStringLiteral("--log-cap"), QStringLiteral("50")} +
                           m_lab->contractArgs());
    VERIFY_ONE_ERROR_LINE(
        run, 1,
        (QStringList{QStringLiteral("suspected truncation: block %1").arg(m_blockOnTheCap)}));
    Backend b(db);
    store::ContractReader& r = b.open();
    const qint64 stopped = checkpointOf(r, env);
    QVERIFY2(stopped >= 0 && stopped < m_blockOnTheCap, qPrintable(QString::number(stopped)));
    for (const char* view : {"blocks", "logs"})
        QCOMPARE(r.scalar(QStringLiteral("SELECT count(*) FROM %1 WHERE environment_id = ? AND "
                                         "block_number >= ?")
                              .arg(QLatin1String(view)),
                          {env, m_blockOnTheCap}),
                 qint64(0));
    b.close();
    // The report says so, naming the block (a file keeps a completeness alert; a shared
    // index's failed range is one), and so does the app's summary.
    expectReportedTruncationAt(db, env, m_blockOnTheCap);
    {
        const auto ro = store::ReadOnlyStore::open(db);
        const engine::DbSummary summary = engine::readSummary(ro->reader(), env, 0);
        QCOMPARE(summary.openAlerts.size(), 1);
        const indexer::CompletenessAlert& open = summary.openAlerts.first();
        QVERIFY2(qint64(open.fromBlock) <= m_blockOnTheCap &&
                     qint64(open.toBlock) >= m_blockOnTheCap &&
                     open.what.contains(QStringLiteral("suspected truncation")),
                 qPrintable(open.summary()));
    }
    // The same capped node with the block's receipts: the index completes, every log once.
    proxy.setNoReceipts(false);
    VERIFY_EXIT_OK(
        test::runForkscope(args + QStringList{QStringLiteral("--log-cap"), QStringLiteral("50")} +
                           m_lab->contractArgs()));
    expectSyncedWithEveryLog(b, env);
    const QJsonObject complete = completenessInReport(db, env);
    QCOMPARE(complete.value("state").toString(), QStringLiteral("complete"));
    QCOMPARE(complete.value("open_alerts").toArray().size(), 0);
}

// The same block on the cap, met while following the head: the process stops in one line
// naming it, with everything below committed and nothing at or above it visible, and the
// report says the data is incomplete until a run without the cap stores it.
void TestBackends::aBlockOnTheCapAtTheHeadStopsTheFollower()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("cap-at-head");
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    // Synced below any block on the cap, then following behind a node that caps at 50 and
    // withholds receipts.
    VERIFY_EXIT_OK(test::runForkscope(indexArgs(db, env) << QStringLiteral("--exit-when-synced")));
    proxy.setLogCap(50, lab::FaultProxy::CapMode::Silent);
    proxy.setNoReceipts(true); // else the block's receipts prove its logs
    QProcess follower;
    follower.setProcessChannelMode(QProcess::MergedChannels);
    follower.start(QStringLiteral(FORKSCOPE_BINARY),
                   indexArgsThrough(proxy, db, env)
                       << QStringLiteral("--poll-ms") << QStringLiteral("100")
                       << QStringLiteral("--log-cap") << QStringLiteral("50"));
    QVERIFY(follower.waitForStarted());
    Backend b(db);
    // Following: at the head, and on PostgreSQL past the backfill (whose ranges are
    // aBlockOnTheCapStopsLoudlyAndResumes's), holding the head lock.
    const bool shared = store::pg::isPostgresUrl(db);
    QVERIFY2(QTest::qWaitFor(
                 [&] {
                     return onHead(b, env) &&
                            (!shared || follower.peek(1 << 20).contains("following the head"));
                 },
                 30'000),
             qPrintable(follower.peek(1 << 20)));
    b.close();
    m_lab->tokens().first().spray(60, 0, 60);
    const qint64 onTheCap = qint64(m_lab->eth().blockNumber());
    m_lab->sprayAll(1, 2, 10);
    const test::ProcessRun run = test::waitForProcess(follower, 30'000);
    QVERIFY2(run.finished && run.exitCode == 1, qPrintable(run.describe()));
    QVERIFY2(run.out.contains(QStringLiteral("suspected truncation: block %1").arg(onTheCap)),
             qPrintable(run.out.right(3000)));
    store::ContractReader& r = b.open();
    QCOMPARE(checkpointOf(r, env), onTheCap - 1);
    QCOMPARE(r.scalar(QStringLiteral("SELECT count(*) FROM blocks WHERE environment_id = ? AND "
                                     "block_number >= ?"),
                      {env, onTheCap}),
             qint64(0));
    b.close();
    expectReportedTruncationAt(db, env, onTheCap);

    VERIFY_EXIT_OK(test::runForkscope(indexArgs(db, env) << QStringLiteral("--exit-when-synced")));
    expectSyncedWithEveryLog(b, env);
    QCOMPARE(completenessInReport(db, env).value("state").toString(), QStringLiteral("complete"));
}

// A node that lags six blocks behind the checkpoint (a load balancer's stale replica) is
// not a reorg: the follower waits, changes nothing, and goes on once the node catches up.
void TestBackends::aLaggingNodeNeverCausesARollback()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("lagging");
    VERIFY_EXIT_OK(test::runForkscope(indexArgs(db, env) << QStringLiteral("--exit-when-synced")));
    Backend b(db);
    const auto state = [&] { return stateOf(b, env); };
    const QStringList before = state();

    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setLagBlocks(6);
    QStringList args = indexArgsThrough(proxy, db, env)
                       << QStringLiteral("--poll-ms") << QStringLiteral("100");
    QProcess follower;
    follower.start(QStringLiteral(FORKSCOPE_BINARY), args);
    QVERIFY(follower.waitForStarted());
    QTest::qWait(3000); // thirty rounds against the lagging view
    QCOMPARE(follower.state(), QProcess::Running);
    QCOMPARE(state(), before);
    follower.terminate();
    const test::ProcessRun stopped = test::waitForProcess(follower, 20'000);
    VERIFY_EXIT_OK(stopped);
    QCOMPARE(state(), before);

    // The node catches up: indexing goes on where it was, with no rollback.
    proxy.setLagBlocks(0);
    m_lab->sprayAll(2, 2, 10);
    VERIFY_EXIT_OK(test::runForkscope(args << QStringLiteral("--exit-when-synced")));
    QCOMPARE(b.open().scalar(QStringLiteral("SELECT count(*) FROM reorg_events WHERE "
                                            "environment_id = ?"),
                             {env}),
             qint64(0));
    expectSyncedWithEveryLog(b, env);
}

// The absence check at the head (docs/design.md, "Absence is loud and corroborated"): a provider
// that stops returning logs while every block keeps its hash (a truncating or misconfigured one) is
// said and counted, and nothing is deleted, since only a header hash that disagrees may roll back.
void TestBackends::storedLogsTheNodeStopsReturningAreSaidNotDeleted()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("absence");
    m_lab->sprayAll(2, 2, 10); // stored logs in the blocks just below the head
    VERIFY_EXIT_OK(test::runForkscope(indexArgs(db, env) << QStringLiteral("--exit-when-synced")));
    Backend b(db);
    const QStringList before = stateOf(b, env);

    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setDropLogs(true);
    QProcess follower;
    follower.start(QStringLiteral(FORKSCOPE_BINARY), indexArgsThrough(proxy, db, env)
                                                         << QStringLiteral("--poll-ms")
                                                         << QStringLiteral("100"));
    QVERIFY(follower.waitForStarted());
    QString out;
    QTRY_VERIFY2_WITH_TIMEOUT((out += QString::fromUtf8(follower.readAllStandardOutput()),
                               out.contains(QStringLiteral("ABSENCE: stored logs of block")) ||
                                   follower.state() != QProcess::Running),
                              qPrintable(out), 30'000);
    QCOMPARE(follower.state(), QProcess::Running);
    QTest::qWait(500); // rounds after the finding: still nothing deleted
    follower.terminate();
    const test::ProcessRun stopped = test::waitForProcess(follower, 20'000);
    VERIFY_EXIT_OK(stopped);
    out += stopped.out;
    QVERIFY2(out.contains(QStringLiteral("headers still match: nothing deleted")), qPrintable(out));
    QVERIFY2(!out.contains(QStringLiteral("rolling back")), qPrintable(out));
    QCOMPARE(stateOf(b, env), before);
    // Not green afterwards: one alert (the rounds at rest found the same blocks again), which
    // the report, and so the app, shows as data incomplete.
    const QString openAbsence = QStringLiteral("SELECT count(*) FROM completeness_alerts WHERE "
                                               "environment_id = ? AND kind = 'absence' AND "
                                               "resolved_at IS NULL");
    QCOMPARE(b.open().scalar(openAbsence, {env}), qint64(1));
    b.close();
    const QJsonObject doubted = completenessInReport(db, env);
    QCOMPARE(doubted.value("state").toString(), QStringLiteral("data incomplete"));
    const QJsonObject alert = doubted.value("open_alerts").toArray().first().toObject();
    QVERIFY2(alert.value("what").toString().contains(
                 QStringLiteral("the node no longer returns stored logs of block")),
             qPrintable(QJsonDocument(alert).toJson()));
    QCOMPARE(alert.value("kind").toString(), QStringLiteral("absence"));
    { // what the app's read side reads
        const auto ro = store::ReadOnlyStore::open(db);
        const engine::DbSummary summary = engine::readSummary(ro->reader(), env, 0);
        QCOMPARE(summary.openAlerts.size(), 1);
        QCOMPARE(summary.openAlerts.first().kind, QStringLiteral("absence"));
    }
    QVERIFY2(alert.value("node").toString().contains(QString::number(proxy.url().port())),
             qPrintable(QJsonDocument(alert).toJson()));

    // An honest node again, followed: its check at the head finds every stored log and
    // settles the alert, saying nothing.
    QProcess honestFollower;
    honestFollower.start(QStringLiteral(FORKSCOPE_BINARY), indexArgs(db, env)
                                                               << QStringLiteral("--poll-ms")
                                                               << QStringLiteral("100"));
    QVERIFY(honestFollower.waitForStarted());
    const auto stillOpen = [&] {
        const qint64 n = b.open().scalar(openAbsence, {env});
        b.close();
        return n;
    };
    QTRY_COMPARE_WITH_TIMEOUT(stillOpen(), qint64(0), 30'000);
    honestFollower.terminate();
    const test::ProcessRun settled = test::waitForProcess(honestFollower, 20'000);
    VERIFY_EXIT_OK(settled);
    QVERIFY2(!settled.out.contains(QStringLiteral("ABSENCE")), qPrintable(settled.out));
    QCOMPARE(completenessInReport(db, env).value("state").toString(), QStringLiteral("complete"));
    const test::ProcessRun honest =
        test::runForkscope(indexArgs(db, env) << QStringLiteral("--exit-when-synced"));
    VERIFY_EXIT_OK(honest);
    QVERIFY2(!honest.out.contains(QStringLiteral("ABSENCE")), qPrintable(honest.out));
    expectSyncedWithEveryLog(b, env);
}

// The node goes away in the middle of a sync and comes back: the process waits and retries
// instead of exiting or taking the silence for a reorg, nothing committed changes while it
// waits, and the sync then finishes with every log once.
void TestBackends::aNodeOfflineMidSyncLosesNothing()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("outage");
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setLatencyMs(100); // ranges of one block, each a few round trips: seconds in all
    QStringList args = indexArgsThrough(proxy, db, env)
                       << QStringLiteral("--poll-ms") << QStringLiteral("100")
                       << QStringLiteral("--exit-when-synced");
    args[8] = QStringLiteral("1"); // --batch-size
    QProcess index;
    index.start(QStringLiteral(FORKSCOPE_BINARY), args);
    QVERIFY(index.waitForStarted());
    Backend b(db);
    const auto checkpoint = [&] {
        try {
            const qint64 cp = checkpointOf(b.open(), env);
            b.close();
            return cp;
        } catch (const std::exception&) {
            return qint64(-1); // nothing created yet
        }
    };
    const qint64 head = qint64(m_lab->eth().blockNumber());
    QTRY_VERIFY_WITH_TIMEOUT(checkpoint() >= 1 || index.state() != QProcess::Running, 30'000);
    QVERIFY2(index.state() == QProcess::Running && checkpoint() < head,
             "the sync ended before the outage could be staged");

    proxy.setOffline(true);
    QTest::qWait(1500); // the process's requests fail for a while
    const QStringList during = stateOf(b, env);
    QTest::qWait(1000);
    QCOMPARE(index.state(), QProcess::Running); // waiting, not given up
    QCOMPARE(stateOf(b, env), during);          // and nothing changed while it waits

    proxy.setOffline(false);
    const test::ProcessRun run = test::waitForProcess(index, 120'000);
    VERIFY_EXIT_OK(run);
    QVERIFY2(!run.out.contains("REORG"), qPrintable(run.out));
    QCOMPARE(b.open().scalar(QStringLiteral("SELECT count(*) FROM reorg_events WHERE "
                                            "environment_id = ?"),
                             {env}),
             qint64(0));
    b.close();
    expectSyncedWithEveryLog(b, env);
}

void TestBackends::aNodeOfflineAtTheStartIsWaitedFor_data()
{
    QTest::addColumn<QString>("db");
    QTest::addColumn<bool>("erring"); // answering every request with a JSON-RPC error
    for (const bool erring : {false, true}) {
        const char* fault = erring ? "internal errors" : "offline";
        QTest::addRow("sqlite, %s", fault)
            << m_lab->tempPath(QStringLiteral("backends.sqlite")) << erring;
        QTest::addRow("postgresql, %s", fault) << m_cluster.url() << erring;
    }
}

// Started while the node is down, or answers every request with an internal error (a
// provider's bad minute), the process waits for it (saying so) instead of exiting, and
// syncs once the node answers.
void TestBackends::aNodeOfflineAtTheStartIsWaitedFor()
{
    QFETCH(QString, db);
    QFETCH(bool, erring);
    const QString env = QString::fromLatin1(erring ? "erring-node" : "late-node");
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    if (erring)
        proxy.setErrorRate(1.0);
    else
        proxy.setOffline(true);
    QProcess index;
    index.start(QStringLiteral(FORKSCOPE_BINARY), indexArgsThrough(proxy, db, env)
                                                      << QStringLiteral("--exit-when-synced"));
    QVERIFY(index.waitForStarted());
    QTest::qWait(2000);
    QCOMPARE(index.state(), QProcess::Running);
    const QString waiting = QString::fromUtf8(index.peek(1 << 20));
    QVERIFY2(waiting.contains(QLatin1String("unreachable")) ||
                 waiting.contains(QLatin1String("the node is unavailable")) ||
                 waiting.contains(QLatin1String("the node's answer was not usable")),
             qPrintable(waiting));

    proxy.setOffline(false);
    proxy.setErrorRate(0);
    const test::ProcessRun run = test::waitForProcess(index, 120'000);
    VERIFY_EXIT_OK(run);
    Backend b(db);
    expectSyncedWithEveryLog(b, env);
}

void TestBackends::aLyingNodeIsWaitedOutAndNothingOfItStored_data()
{
    backendsTimes("lie", {"foreign-log", "out-of-range-log", "wrong-log-hash", "unlinked-headers"});
}

// A backfill behind a node whose replies contradict their requests (tst_hostilenode's lies)
// stores nothing of them and keeps going, saying the node is inconsistent, for as long as
// the node lies: the lie is the node's fault, not the range's, so no range is failed and no
// process exits. Once the node is honest, the index completes with every log once.
void TestBackends::aLyingNodeIsWaitedOutAndNothingOfItStored()
{
    QFETCH(QString, db);
    QFETCH(QString, lie);
    const QString env = QStringLiteral("lie-") + lie;
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    QCOMPARE(proxy.applyKnobs({{"lie", lie}}), QString());
    QProcess index;
    index.setProcessChannelMode(QProcess::MergedChannels);
    index.start(QStringLiteral(FORKSCOPE_BINARY), indexArgsThrough(proxy, db, env)
                                                      << QStringLiteral("--exit-when-synced"));
    QVERIFY(index.waitForStarted());
    // Long enough for a range to have been tried more than five times.
    QTest::qWait(3000);
    const QString lying = QString::fromUtf8(index.peek(1 << 22));
    QVERIFY2(index.state() == QProcess::Running, qPrintable(lying.right(3000)));
    QVERIFY2(lying.contains(QLatin1String("inconsistent")), qPrintable(lying.right(3000)));
    QVERIFY2(!lying.contains(QLatin1String("failed 5 times")), qPrintable(lying.right(3000)));
    Backend b(db);
    QCOMPARE(b.open().scalar(QStringLiteral("SELECT count(*) FROM logs WHERE address = "
                                            "'0x00000000000000000000000000000000000f0e16'"),
                             {}),
             qint64(0));
    b.close();

    QCOMPARE(proxy.applyKnobs({{"lie", "none"}}), QString());
    const test::ProcessRun run = test::waitForProcess(index, 120'000);
    VERIFY_EXIT_OK(run);
    QVERIFY2(!run.out.contains(QLatin1String("REORG")), qPrintable(run.out.right(3000)));
    expectSyncedWithEveryLog(b, env);
    QCOMPARE(b.open().scalar(QStringLiteral("SELECT count(*) FROM reorg_events WHERE "
                                            "environment_id = ?"),
                             {env}),
             qint64(0));
    b.close();
}

void TestBackends::indexedDataIsTheNodesAndVerifies()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("same");
    VERIFY_EXIT_OK(test::runForkscope(indexArgs(db, env) << QStringLiteral("--exit-when-synced")));
    Backend b(db);
    QCOMPARE(checkpointOf(b.open(), env), qint64(m_lab->eth().blockNumber()));
    qint64 rows = 0;
    expectEveryLogOnce(b, env, rows);
    if (QTest::currentTestFailed())
        return;
    QVERIFY(rows > 0);
    // Each balance's updated_at_block is the block of its holder's last Transfer on both
    // stores (PostgreSQL's view computes it so; SQLite once wrote the top of the whole batch).
    store::ContractReader& r = b.open();
    QHash<QString, qint64> lastTransfer; // "contract/holder" -> block
    for (auto q = r.query(QStringLiteral("SELECT contract, from_addr, to_addr, block_number FROM "
                                         "transfer_events WHERE environment_id = ?"),
                          {env});
         q->next();)
        for (int side : {1, 2}) {
            qint64& last = lastTransfer[q->value(0).toString() + '/' + q->value(side).toString()];
            last = std::max(last, q->value(3).toLongLong());
        }
    int balances = 0;
    for (auto q = r.query(QStringLiteral("SELECT contract, holder, updated_at_block FROM "
                                         "token_balances WHERE environment_id = ?"),
                          {env});
         q->next(); ++balances) {
        const QString key = q->value(0).toString() + '/' + q->value(1).toString();
        QVERIFY2(lastTransfer.contains(key), qPrintable(key));
        QCOMPARE(q->value(2).toLongLong(), lastTransfer.value(key));
    }
    QVERIFY(balances > 1);
    // And every part of the contract reads the same on both stores, row for row.
    const QStringList contract = contractRows(r, env);
    QVERIFY(contract.size() > balances + 2 * rows); // logs, Transfers, balances, blocks, outbox
    if (QLatin1String(QTest::currentDataTag()) == QLatin1String("sqlite"))
        m_contractOnSqlite = contract;
    else if (!m_contractOnSqlite.isEmpty())
        QCOMPARE(contract, m_contractOnSqlite);
    // Every view, column by column, in name, type and text.
    const QStringList surface = surfaceOf(r, db, env);
    if (QLatin1String(QTest::currentDataTag()) == QLatin1String("sqlite"))
        m_surfaceOnSqlite = surface;
    else if (!m_surfaceOnSqlite.isEmpty()) {
        const QString difference = differences(surface, m_surfaceOnSqlite);
        if (!difference.isEmpty())
            qInfo("%s", qPrintable(difference));
        QVERIFY2(difference.isEmpty(), "the stores' read surfaces differ (the lines above)");
    }
    b.close();
    // The engine's own checks agree: verify is clean, the report's invariants hold.
    VERIFY_EXIT_OK(test::runForkscope(verifyArgs(db, env)));
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("r.json"));
    VERIFY_EXIT_OK(test::runForkscope({QStringLiteral("report"), QStringLiteral("--db"), db,
                                       QStringLiteral("--env"), env, QStringLiteral("--format"),
                                       QStringLiteral("json"), QStringLiteral("--out"), out}));
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QJsonObject report = QJsonDocument::fromJson(file.readAll()).object();
    QCOMPARE(report.value("invariants").toObject().value("state").toString(),
             QStringLiteral("hold"));
    QCOMPARE(report.value("counts").toObject().value("logs").toInteger(), rows);
    QCOMPARE(report.value("checkpoints")
                 .toArray()
                 .at(0)
                 .toObject()
                 .value("verification")
                 .toObject()
                 .value("status")
                 .toString(),
             QStringLiteral("canonical"));
}

// `forkscope index --abi`: each log's event name and decoded arguments, read through the
// contract's `logs` view, are the same text on both stores, and agree with the Transfer
// projection. A bad ABI file is refused in one line before anything is written.
void TestBackends::decodedEventsReadTheSame()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("abi");
    VERIFY_EXIT_OK(test::runForkscope(
        indexArgs(db, env) << QStringLiteral("--exit-when-synced") << QStringLiteral("--abi")
                           << QStringLiteral(FORKSCOPE_SOURCE_DIR
                                             "/resources/contracts/DemoToken.json")));
    Backend b(db);
    store::ContractReader& r = b.open();
    QHash<QString, QStringList> transfers; // "block/index" -> from, to, value
    for (auto q = r.query(QStringLiteral("SELECT block_number, log_index, from_addr, to_addr, "
                                         "value FROM transfer_events WHERE environment_id = ?"),
                          {env});
         q->next();)
        transfers.insert(
            QStringLiteral("%1/%2").arg(q->value(0).toLongLong()).arg(q->value(1).toLongLong()),
            {q->value(2).toString(), q->value(3).toString(), q->value(4).toString()});
    QStringList decoded;
    int approvals = 0;
    for (auto q = r.query(QStringLiteral("SELECT block_number, log_index, event_name, args_json, "
                                         "decode_error FROM logs WHERE environment_id = ? ORDER "
                                         "BY block_number, log_index"),
                          {env});
         q->next();) {
        const QString key =
            QStringLiteral("%1/%2").arg(q->value(0).toLongLong()).arg(q->value(1).toLongLong());
        const QString name = q->value(2).toString();
        const QJsonObject args = QJsonDocument::fromJson(q->value(3).toString().toUtf8()).object();
        QVERIFY2(q->value(4).isNull(), qPrintable(key + ": " + q->value(4).toString()));
        if (name == QLatin1String("Approval")) {
            ++approvals;
            QCOMPARE(args.value("value").toString(), QStringLiteral("77"));
        } else {
            QCOMPARE(name, QStringLiteral("Transfer"));
            QVERIFY2(transfers.contains(key), qPrintable(key));
            QCOMPARE((QStringList{args.value("from").toString(), args.value("to").toString(),
                                  args.value("value").toString()}),
                     transfers.value(key));
        }
        decoded << key + ' ' + name + ' ' + q->value(3).toString();
    }
    QCOMPARE(approvals, 1);
    QCOMPARE(decoded.size(), transfers.size() + 1);
    b.close();
    const QString refused = QStringLiteral("abi-refused");
    const QString bad = m_lab->tempPath(QStringLiteral("bad.abi.json"));
    QFile badFile(bad);
    QVERIFY(badFile.open(QIODevice::WriteOnly));
    badFile.write(R"([{"type":"event","name":"E","inputs":"nope"}])");
    badFile.close();
    VERIFY_ONE_ERROR_LINE(test::runForkscope(indexArgs(db, refused)
                                             << QStringLiteral("--exit-when-synced")
                                             << QStringLiteral("--abi") << bad),
                          2, (QStringList{QStringLiteral("--abi"), bad}));
    QCOMPARE(checkpointOf(b.open(), refused), qint64(-1));
    b.close();
    // The same bytes on both stores.
    if (QLatin1String(QTest::currentDataTag()) == QLatin1String("sqlite"))
        m_decodedOnSqlite = decoded;
    else if (!m_decodedOnSqlite.isEmpty())
        QCOMPARE(decoded, m_decodedOnSqlite);

    // A repair must decode the blocks it fetches again as the rest were: without the ABI it
    // is refused before anything changes; with it, the repaired blocks read as before.
    const qint64 checkpoint = checkpointOf(b.open(), env);
    b.close();
    const QStringList repair{QStringLiteral("repair"),
                             QStringLiteral("--db"),
                             db,
                             QStringLiteral("--env"),
                             env,
                             QStringLiteral("--rpc"),
                             m_lab->devnet().url().toString(),
                             QStringLiteral("--from"),
                             QString::number(checkpoint - 4)};
    const test::ProcessRun withoutAbi = test::runForkscope(repair);
    VERIFY_ONE_ERROR_LINE(withoutAbi, 1,
                          (QStringList{QStringLiteral("--abi"), QStringLiteral("othing was")}));
    QCOMPARE(checkpointOf(b.open(), env), checkpoint);
    const auto repairsOf = [&env](store::ContractReader& reader) {
        auto q = reader.query(QStringLiteral("SELECT count(*) FROM reorg_events WHERE "
                                             "environment_id = ? AND reason = 'repair'"),
                              {env});
        return q->next() ? q->value(0).toLongLong() : -1;
    };
    QCOMPARE(repairsOf(*b.reader), qint64(0));
    b.close();
    VERIFY_EXIT_OK(test::runForkscope(
        repair +
        QStringList{QStringLiteral("--abi"),
                    QStringLiteral(FORKSCOPE_SOURCE_DIR "/resources/contracts/DemoToken.json")}));
    store::ContractReader& again = b.open();
    QCOMPARE(checkpointOf(again, env), checkpoint);
    QCOMPARE(repairsOf(again), qint64(1));
    QStringList afterRepair;
    for (auto q = again.query(QStringLiteral("SELECT block_number, log_index, event_name, "
                                             "args_json FROM logs WHERE environment_id = ? ORDER "
                                             "BY block_number, log_index"),
                              {env});
         q->next();)
        afterRepair << QStringLiteral("%1/%2 %3 %4")
                           .arg(q->value(0).toLongLong())
                           .arg(q->value(1).toLongLong())
                           .arg(q->value(2).toString(), q->value(3).toString());
    QCOMPARE(afterRepair, decoded);
}

// `forkscope index --metrics-port P` on either store: the JSON-RPC methods and /metrics
// answer what the store holds (the same reads, through the contract's surface), and node
// health's figures are there; on a shared index no per-process counter is made up.
void TestBackends::theLocalApiAnswersFromTheStore()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("api");
    const quint16 port = lab::Devnet::findFreePort();
    QProcess index;
    index.start(QStringLiteral(FORKSCOPE_BINARY),
                indexArgs(db, env)
                    << QStringLiteral("--metrics-port") << QString::number(port)
                    << QStringLiteral("--poll-ms") << QStringLiteral("100")
                    << QStringLiteral("--check-interval-ms") << QStringLiteral("100"));
    QVERIFY(index.waitForStarted());
    const auto stop = qScopeGuard([&index] {
        index.terminate();
        if (!index.waitForFinished(20'000))
            index.kill();
    });
    const QUrl api(QStringLiteral("http://127.0.0.1:%1/").arg(port));
    const qint64 head = qint64(m_lab->eth().blockNumber());
    QTRY_COMPARE_WITH_TIMEOUT(test::apiCall(api, QStringLiteral("getCheckpoint"))
                                  .value("result")
                                  .toObject()
                                  .value("number")
                                  .toInteger(-1),
                              head, 30'000);

    Backend b(db);
    store::ContractReader& r = b.open();
    const auto cp = r.checkpoint(env, 31337, QStringLiteral("default"));
    QVERIFY(cp);
    const QJsonObject checkpoint =
        test::apiCall(api, QStringLiteral("getCheckpoint")).value("result").toObject();
    QCOMPARE(checkpoint.value("hash").toString(), cp->hash);
    QCOMPARE(checkpoint.value("generation").toInteger(), cp->generation);
    QCOMPARE(checkpoint.value("startBlock").toInteger(), cp->startBlock);
    QVERIFY2(checkpoint.value("updatedAt").toString().endsWith(QLatin1Char('Z')),
             qPrintable(checkpoint.value("updatedAt").toString()));
    const QJsonObject latest =
        test::apiCall(api, QStringLiteral("getLatestBlock")).value("result").toObject();
    QCOMPARE(latest.value("number").toInteger(), head);
    QCOMPARE(latest.value("hash").toString(), m_lab->eth().blockByNumber(head)->hash.toHex());
    QCOMPARE(test::apiCall(api, QStringLiteral("blockIsValid"), {cp->hash}).value("result"),
             QJsonValue(true));
    // Balances: the view's rows for the first token, holder by holder.
    const QString token = m_lab->contracts().first().toHex();
    QHash<QString, QString> stored;
    for (auto q = r.query(QStringLiteral("SELECT holder, balance FROM token_balances WHERE "
                                         "environment_id = ? AND contract = ?"),
                          {env, token});
         q->next();)
        stored.insert(q->value(0).toString(), q->value(1).toString());
    QVERIFY(!stored.isEmpty());
    QHash<QString, QString> served;
    for (const QJsonValue& v :
         test::apiCall(api, QStringLiteral("getBalances"), {token}).value("result").toArray())
        served.insert(v.toObject().value("holder").toString(),
                      v.toObject().value("balance").toString());
    QCOMPARE(served, stored);
    const QString holder = stored.constBegin().key();
    QCOMPARE(test::apiCall(api, QStringLiteral("getBalances"), {token, holder})
                 .value("result")
                 .toObject()
                 .value("balance")
                 .toString(),
             stored.value(holder));

    // /metrics: the format holds, and the figures are the store's and the node's.
    const qint64 pending = r.scalar(QStringLiteral("SELECT count(*) FROM outbox WHERE "
                                                   "environment_id = ? AND delivered_at IS NULL"),
                                    {env});
    b.close();
    QHash<QString, double> samples;
    const QString node = m_lab->devnet().url().toString();
    QTRY_VERIFY_WITH_TIMEOUT(
        [&] {
            samples.clear();
            const test::HttpResult m = test::http(QUrl(api.toString() + "metrics"));
            const QStringList problems = test::checkPrometheusText(m.body, &samples);
            if (!problems.isEmpty())
                qWarning("%s", qPrintable(problems.join('\n')));
            return m.status == 200 && problems.isEmpty() &&
                   samples.value("forkscope_head_block") == double(head) &&
                   samples.contains("forkscope_node_state{node=\"" + node + "\"}");
        }(),
        10'000);
    QCOMPARE(samples.value("forkscope_checkpoint_block"), double(head));
    QCOMPARE(samples.value("forkscope_cursor_lag_blocks"), 0.0);
    QCOMPARE(samples.value("forkscope_outbox_pending"), double(pending));
    QVERIFY(pending > 0);
    QCOMPARE(samples.value("forkscope_node_state{node=\"" + node + "\"}"),
             double(int(health::NodeState::CaughtUp)));
    QCOMPARE(samples.value("forkscope_reorgs_total{reason=\"hash mismatch\"}"), 0.0);
    // The indexer's own counters, whichever store it writes to.
    QVERIFY(samples.contains("forkscope_logs_committed_total"));
}

void TestBackends::aHoleIsFoundAndRepaired()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("holed");
    VERIFY_EXIT_OK(test::runForkscope(indexArgs(db, env) << QStringLiteral("--exit-when-synced")));
    Backend b(db);
    qint64 block = b.open().scalar(QStringLiteral("SELECT max(block_number) FROM logs WHERE "
                                                  "environment_id = ?"),
                                   {env});
    QVERIFY(block > 0);
    // Lost rows below the checkpoint (through the store itself: never a stray file write).
    b.open().query(QStringLiteral("DELETE FROM log_store WHERE environment_id = ? AND "
                                  "block_number = ?"),
                   {env, block});
    b.close();
    const QStringList verify{
        QStringLiteral("verify"), QStringLiteral("--db"),          db, QStringLiteral("--env"), env,
        QStringLiteral("--rpc"),  m_lab->devnet().url().toString()};
    const test::ProcessRun holed = test::runForkscope(verify);
    QCOMPARE(holed.exitCode, 1);
    QVERIFY2(holed.err.contains(QStringLiteral("the first at block %1").arg(block)),
             qPrintable(holed.describe()));
    VERIFY_EXIT_OK(test::runForkscope({QStringLiteral("repair"), QStringLiteral("--db"), db,
                                       QStringLiteral("--env"), env, QStringLiteral("--rpc"),
                                       m_lab->devnet().url().toString(), QStringLiteral("--from"),
                                       QString::number(block)}));
    VERIFY_EXIT_OK(test::runForkscope(verify));
    QCOMPARE(b.open().scalar(QStringLiteral("SELECT count(*) FROM reorg_events WHERE "
                                            "environment_id = ? AND reason = 'repair'"),
                             {env}),
             1);
}

QTEST_GUILESS_MAIN(TestBackends)
#include "tst_backends.moc"
