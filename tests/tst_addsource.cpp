// A contract added to an environment that follows the head, on both stores (the store a data
// row): `forkscope index` naming one more contract than the environment indexes backfills it
// from its deployment block (found on the node) next to the head, which keeps being followed
// for the other contract; readers never see the added contract's rows above its own
// checkpoint before it joins; then the environment holds both contracts' whole history,
// checked against the node (every log once, every balance summed here from the node's
// Transfers). The same with a reorg during the backfill, and with the process killed in the
// backfill and started again.
#include "BackendLab.h"
#include "engine/SourceListReader.h"
#include "lab/FaultProxy.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace forkscope;
using test::Backend;

class TestAddSource : public QObject, public test::BackendLab
{
    Q_OBJECT
private slots:
    void initTestCase() { startLab(); }
    void anAddedContractIsBackfilledNextToTheHead_data() { backends(); }
    void anAddedContractIsBackfilledNextToTheHead();
    void aReorgDuringTheBackfillRollsBothBack_data() { backends(); }
    void aReorgDuringTheBackfillRollsBothBack();
    void aBackfillKilledMidwayFinishesOnRestart_data() { backends(); }
    void aBackfillKilledMidwayFinishesOnRestart();
    void leavingAContractOutIsRefused_data() { backends(); }
    void leavingAContractOutIsRefused();
    void anArchivedContractsRowsAreKeptOutOfTheLiveViews_data() { backends(); }
    void anArchivedContractsRowsAreKeptOutOfTheLiveViews();
    void anAddedContractsBackfillIsProvenComplete_data() { backends(); }
    void anAddedContractsBackfillIsProvenComplete();
    void aNodeWithoutOldStateStillGetsItsBackfill_data() { backends(); }
    void aNodeWithoutOldStateStillGetsItsBackfill();
    void aNodeFailingWhileTheRunStartsDoesNotDropIt_data() { backends(); }
    void aNodeFailingWhileTheRunStartsDoesNotDropIt();

private:
    chain::Address first() const { return m_lab->contracts().at(0); }
    chain::Address added() const { return m_lab->contracts().at(1); }

    // `forkscope index` of `env` with the first contract only, or with both.
    QStringList argsWith(const QString& db, const QString& env, bool both,
                         const QUrl& rpc = {}) const
    {
        QStringList args{QStringLiteral("index"),
                         QStringLiteral("--rpc"),
                         (rpc.isEmpty() ? m_lab->devnet().url() : rpc).toString(),
                         QStringLiteral("--db"),
                         db,
                         QStringLiteral("--env"),
                         env,
                         QStringLiteral("--batch-size"),
                         QStringLiteral("2"),
                         QStringLiteral("--poll-ms"),
                         QStringLiteral("50"),
                         QStringLiteral("--contract"),
                         first().toHex()};
        if (both)
            args << QStringLiteral("--contract") << added().toHex();
        return args;
    }

    // The environment indexes the first contract, synced at the head.
    void indexTheFirstContract(const QString& db, const QString& env)
    {
        VERIFY_EXIT_OK(
            test::runForkscope(argsWith(db, env, false) << QStringLiteral("--exit-when-synced")));
    }

    struct SourceView
    {
        QString state;     // empty: not recorded
        qint64 checkpoint; // -1: nothing backfilled
        qint64 rows;       // its logs the `logs` view shows
        qint64 highest;    // the highest block of those, -1: none
        qint64 transfers;  // its rows the `transfer_events` view shows
        QString hash;      // its checkpoint's block hash
    };

    // What a reader sees of the added contract, in one statement (one snapshot).
    SourceView sourceView(Backend& b, const QString& env)
    {
        const SourceView v = sourceView(b.open(), env);
        b.close();
        return v;
    }
    SourceView sourceView(store::ContractReader& r, const QString& env)
    {
        const QString a = added().toHex();
        auto q = r.query(
            QStringLiteral(
                "SELECT (SELECT state FROM contract_sources WHERE environment_id = ? AND "
                "contract = ?), (SELECT coalesce(block_number, -1) FROM contract_sources WHERE "
                "environment_id = ? AND contract = ?), (SELECT count(*) FROM logs WHERE "
                "environment_id = ? AND address = ?), (SELECT coalesce(max(block_number), -1) "
                "FROM logs WHERE environment_id = ? AND address = ?), (SELECT count(*) FROM "
                "transfer_events WHERE environment_id = ? AND contract = ?), (SELECT "
                "block_hash FROM contract_sources WHERE environment_id = ? AND contract = ?)"),
            {env, a, env, a, env, a, env, a, env, a, env, a});
        SourceView v{QString(), -1, 0, -1, 0, QString()};
        if (q->next())
            v = SourceView{q->value(0).toString(),   q->value(1).toLongLong(),
                           q->value(2).toLongLong(), q->value(3).toLongLong(),
                           q->value(4).toLongLong(), q->value(5).toString()};
        return v;
    }

    // While pending, the added contract's rows are exactly the node's up to its own
    // checkpoint (while that is still the node's block: a reorg not rolled back yet leaves
    // the old branch's), none above. Returns whether it was pending.
    bool expectNothingAboveItsCheckpoint(Backend& b, const QString& env)
    {
        const bool pending = expectNothingAboveItsCheckpoint(b.open(), env);
        b.close();
        return pending;
    }
    bool expectNothingAboveItsCheckpoint(store::ContractReader& r, const QString& env)
    {
        const SourceView v = sourceView(r, env);
        if (v.state != QLatin1String("pending"))
            return false;
        if (v.highest > v.checkpoint)
            qWarning("pending at %lld, a row at block %lld", v.checkpoint, v.highest);
        [&] { QVERIFY(v.highest <= v.checkpoint); }();
        if (v.checkpoint < 0) {
            [&] { QCOMPARE(v.rows, qint64(0)); }();
            return true;
        }
        const auto atCheckpoint = m_lab->eth().blockByNumber(quint64(v.checkpoint));
        if (!atCheckpoint || atCheckpoint->hash.toHex() != v.hash)
            return true;
        const auto nodeLogs = m_lab->eth().getLogs(
            rpc::LogFilter::range(0, quint64(v.checkpoint), QList<chain::Address>{added()}));
        qint64 nodeTransfers = 0;
        for (const chain::LogEntry& l : nodeLogs)
            nodeTransfers += l.topics.size() == 3 ? 1 : 0;
        [&] {
            QCOMPARE(v.rows, qint64(nodeLogs.size()));
            QCOMPARE(v.transfers, nodeTransfers);
        }();
        return true;
    }

    // Both contracts' whole history is the node's: every log once, the invariants, and each
    // holder's balance summed from the node's Transfers.
    void expectBothContractsWhole(Backend& b, const QString& db, const QString& env)
    {
        const SourceView v = sourceView(b, env);
        QCOMPARE(v.state, QStringLiteral("joined"));
        qint64 rows = 0;
        expectEveryLogOnce(b, env, rows);
        b.close();
        QVERIFY(rows > 0);
        m_lab->setDb(db);
        const QStringList problems = m_lab->verify(env);
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
    }

    // Runs `index` with both contracts through a slow proxy until the added one joined and
    // the checkpoint is the node's head, calling `meanwhile` on each look while it is
    // pending; returns how many looks found it pending.
    int followUntilJoined(
        const QString& db, const QString& env,
        const std::function<void(store::ContractReader&, const SourceView&)>& meanwhile = {})
    {
        lab::FaultProxy proxy(m_lab->devnet().url());
        proxy.listen();
        proxy.setLatencyMs(8); // a backfill of a second or two: the head moves meanwhile
        QProcess index;
        index.setProcessChannelMode(QProcess::MergedChannels);
        index.start(QStringLiteral(FORKSCOPE_BINARY), argsWith(db, env, true, proxy.url()));
        if (!index.waitForStarted())
            return -1;
        // One connection for every look: the proxy serves the indexer only while this thread
        // waits, so a look must be short.
        Backend b(db);
        store::ContractReader* r = nullptr;
        int pendingLooks = 0;
        const bool joined = QTest::qWaitFor(
            [&] {
                if (index.state() == QProcess::NotRunning)
                    return true;
                try {
                    if (!r)
                        r = &b.open();
                    if (expectNothingAboveItsCheckpoint(*r, env)) {
                        ++pendingLooks;
                        if (meanwhile)
                            meanwhile(*r, sourceView(*r, env));
                        return false;
                    }
                    const auto cp = r->checkpoint(env, 31337, QStringLiteral("default"));
                    const auto head = m_lab->eth().latestBlock();
                    return sourceView(*r, env).state == QLatin1String("joined") && cp && head &&
                           cp->number == qint64(head->number) && cp->hash == head->hash.toHex();
                } catch (const std::exception&) {
                    r = nullptr; // not migrated yet
                    return false;
                }
            },
            60'000);
        b.close();
        const QString out = QString::fromUtf8(index.readAll());
        index.kill();
        index.waitForFinished(5000);
        if (!joined || QTest::currentTestFailed())
            qWarning("%s", qPrintable(out.right(3000)));
        return joined ? pendingLooks : -1;
    }
};

// The added contract is backfilled from its deployment block while the head goes on for the
// first: the environment's checkpoint moves during the backfill, and the added contract joins
// above where the run started.
void TestAddSource::anAddedContractIsBackfilledNextToTheHead()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("added-%1").arg(QTest::currentDataTag());
    indexTheFirstContract(db, env);
    Backend b(db);
    const qint64 before = checkpointOf(b.open(), env);
    b.close();
    int sprays = 0;
    int listed = 0;
    const int looks =
        followUntilJoined(db, env, [&](store::ContractReader& r, const SourceView& v) {
            // The Contracts tab's snapshot lists it as backfilling, at its own checkpoint.
            // Read after `v`: the backfill may have gone on since (never back, without a
            // reorg) or joined.
            const engine::SourceList list = engine::readSourceList(r, env, 31337, 10);
            for (const engine::SourceList::Source& s : list.sources)
                if (s.address == added().toHex() &&
                    (!s.backfilling || v.checkpoint < 0 ||
                     (s.hasCheckpoint && s.checkpoint >= quint64(v.checkpoint))))
                    ++listed;
            if (sprays++ < 4) // the head moves for both contracts while the backfill runs
                m_lab->sprayAll(1, 2, 10);
        });
    QVERIFY2(looks > 0, "the added contract never joined, or was never seen pending");
    QVERIFY(sprays > 0);
    QCOMPARE(listed, looks);
    // It joined where the environment's checkpoint was then: above where the run started,
    // so the head was followed during the backfill.
    store::ContractReader& r = b.open();
    const qint64 joinedAt = r.scalar(QStringLiteral("SELECT block_number FROM contract_sources "
                                                    "WHERE environment_id = ?"),
                                     {env});
    QVERIFY2(joinedAt > before,
             qPrintable(
                 QStringLiteral("joined at %1, the run started at %2").arg(joinedAt).arg(before)));
    // Its deployment block, found on the node: the block of its first log (its mint).
    const auto nodeLogs = m_lab->eth().getLogs(
        rpc::LogFilter::range(0, quint64(joinedAt), QList<chain::Address>{added()}));
    QVERIFY(!nodeLogs.isEmpty());
    QCOMPARE(r.scalar(QStringLiteral("SELECT start_block FROM contract_sources WHERE "
                                     "environment_id = ?"),
                      {env}),
             qint64(nodeLogs.first().blockNumber));
    QVERIFY(r.scalar(QStringLiteral("SELECT count(*) FROM source_ranges WHERE environment_id = ? "
                                    "AND status = 'done'"),
                     {env}) > 1);
    b.close();
    expectBothContractsWhole(b, db, env);
}

// A reorg while the added contract's backfill has reached near the head: the rollback takes
// its rows above the fork with the head's and moves its checkpoint back with the
// environment's, in one transaction; the backfill fetches that part again.
void TestAddSource::aReorgDuringTheBackfillRollsBothBack()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("reorged-%1").arg(QTest::currentDataTag());
    m_lab->sprayAll(3, 2, 10);
    indexTheFirstContract(db, env);
    Backend b(db);
    const qint64 head = qint64(m_lab->eth().blockNumber());
    bool reorged = false;
    const int looks = followUntilJoined(db, env, [&](store::ContractReader&, const SourceView& v) {
        // Once the backfill is within the reorg's depth of the head: every block above the
        // fork holds Transfers of both contracts, none of them mined again.
        if (!reorged && v.checkpoint >= head - 3) {
            reorged = true;
            m_lab->reorg(5);
            m_lab->sprayAll(1, 2, 10);
        }
    });
    QVERIFY2(looks > 0, "the added contract never joined, or was never seen pending");
    QVERIFY2(reorged, "the backfill never came near the head");
    store::ContractReader& r = b.open();
    QVERIFY(r.scalar(QStringLiteral("SELECT count(*) FROM reorg_events WHERE environment_id = ?"),
                     {env}) >= 1);
    QCOMPARE(r.scalar(QStringLiteral("SELECT count(*) FROM source_ranges WHERE environment_id = "
                                     "? AND to_block > (SELECT block_number FROM "
                                     "contract_sources WHERE environment_id = ?)"),
                      {env, env}),
             qint64(0));
    b.close();
    expectBothContractsWhole(b, db, env);
}

// Killed with its batch written and not committed: nothing of it is visible, a row stored
// above the added contract's checkpoint (as another writer's range would be) is not shown
// either, and the next run finishes the backfill from the checkpoint.
void TestAddSource::aBackfillKilledMidwayFinishesOnRestart()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("killed-%1").arg(QTest::currentDataTag());
    indexTheFirstContract(db, env);
    const test::ProcessRun killed =
        test::runForkscope(argsWith(db, env, true) << QStringLiteral("--exit-when-synced"),
                           crashingAt("source-before-commit", 2));
    QVERIFY2(killed.finished && killed.exitStatus == QProcess::CrashExit,
             qPrintable(killed.describe()));
    Backend b(db);
    QVERIFY(expectNothingAboveItsCheckpoint(b, env));
    const SourceView atKill = sourceView(b, env);
    QVERIFY(atKill.checkpoint >= 0);
    QVERIFY(atKill.checkpoint < checkpointOf(b.open(), env));
    b.close();

    // A copy of one of its logs, stored above its checkpoint: the views do not show it.
    const QString sqlAddress = store::pg::isPostgresUrl(db)
                                   ? QStringLiteral("'\\x%1'::bytea").arg(added().toHex().mid(2))
                                   : QStringLiteral("X'%1'").arg(added().toHex().mid(2));
    const auto exec = [&](const QString& sql) {
        b.open();
        if (b.pg)
            b.pg->exec(sql.toUtf8().constData());
        else
            b.sqlite->run(sql);
    };
    b.open();
    const QStringList copy{
        QStringLiteral("CREATE TEMP TABLE stray AS SELECT * FROM log_store WHERE environment_id = "
                       "'%1' AND address = %2 AND transfer_value IS NOT NULL LIMIT 1")
            .arg(env, sqlAddress),
        QStringLiteral("UPDATE stray SET block_number = %1, log_index = 9999")
            .arg(atKill.checkpoint + 1),
        QStringLiteral("INSERT INTO log_store SELECT * FROM stray")};
    for (const QString& sql : copy) {
        if (b.pg)
            b.pg->exec(sql.toUtf8().constData());
        else
            b.sqlite->run(sql);
    }
    b.close();
    const SourceView withStray = sourceView(b, env);
    QCOMPARE(withStray.rows, atKill.rows);
    QCOMPARE(withStray.transfers, atKill.transfers);
    QCOMPARE(withStray.highest, atKill.highest);
    exec(QStringLiteral("DELETE FROM log_store WHERE environment_id = '%1' AND log_index = 9999")
             .arg(env));
    b.close();

    VERIFY_EXIT_OK(
        test::runForkscope(argsWith(db, env, true) << QStringLiteral("--exit-when-synced")));
    expectBothContractsWhole(b, db, env);
}

// Leaving a contract out of the environment's set is never a silent delete: refused in one
// line, nothing written.
void TestAddSource::leavingAContractOutIsRefused()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("left-out-%1").arg(QTest::currentDataTag());
    VERIFY_EXIT_OK(
        test::runForkscope(argsWith(db, env, true) << QStringLiteral("--exit-when-synced")));
    Backend b(db);
    const QStringList before = stateOf(b, env);
    QStringList withoutFirst = argsWith(db, env, true);
    withoutFirst.removeAt(withoutFirst.indexOf(first().toHex()) - 1);
    withoutFirst.removeAll(first().toHex());
    const QStringList mentions{QStringLiteral("leaves out"), first().toHex()};
    VERIFY_ONE_ERROR_LINE(test::runForkscope(withoutFirst << QStringLiteral("--exit-when-synced")),
                          1, mentions);
    QCOMPARE(stateOf(b, env), before);
}

// Archiving a contract (forkscope archive-contract) is the explicit way to take one out of
// the set: in one transaction every row of it leaves the live views, kept under an archived
// environment of its own; the environment then verifies without it, indexes without it, and
// its report says when; naming it again backfills it again.
void TestAddSource::anArchivedContractsRowsAreKeptOutOfTheLiveViews()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("archive-%1").arg(QTest::currentDataTag());
    VERIFY_EXIT_OK(
        test::runForkscope(argsWith(db, env, true) << QStringLiteral("--exit-when-synced")));
    Backend b(db);
    const QString a = added().toHex();
    const auto rowsOf = [&](const QString& inEnv) {
        store::ContractReader& r = b.open();
        QStringList out;
        for (const auto& [table, column] :
             {std::pair{"logs", "address"}, std::pair{"transfer_events", "contract"},
              std::pair{"token_balances", "contract"}})
            out << QStringLiteral("%1 %2")
                       .arg(QLatin1String(table))
                       .arg(r.scalar(
                           QStringLiteral(
                               "SELECT count(*) FROM %1 WHERE environment_id = ? AND %2 = ?")
                               .arg(QLatin1String(table), QLatin1String(column)),
                           {inEnv, a}));
        out << QStringLiteral("outbox %1")
                   .arg(r.scalar(
                       QStringLiteral("SELECT count(*) FROM outbox WHERE environment_id = ? AND "
                                      "payload LIKE ?"),
                       {inEnv, QStringLiteral("%") + a + QStringLiteral("%")}));
        b.close();
        return out;
    };
    const QStringList before = rowsOf(env);
    QVERIFY2(!before.contains(QStringLiteral("logs 0")), qPrintable(before.join(", ")));

    const test::ProcessRun run =
        test::runForkscope({QStringLiteral("archive-contract"), QStringLiteral("--db"), db,
                            QStringLiteral("--env"), env, QStringLiteral("--contract"), a});
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.out.contains(QStringLiteral("archived %1 from environment %2").arg(a, env)),
             qPrintable(run.out));

    // Out of the live views, every row kept under the archive, which reads like any other
    // (archived) environment.
    QCOMPARE(rowsOf(env),
             (QStringList{"logs 0", "transfer_events 0", "token_balances 0", "outbox 0"}));
    store::ContractReader& r = b.open();
    QString archive, archivedAt;
    for (auto q = r.query(QStringLiteral("SELECT environment_id, archived_at FROM environments "
                                         "WHERE environment_id <> ? AND archived_at IS NOT NULL"),
                          {env});
         q->next();)
        if (q->value(0).toString().startsWith(env + QStringLiteral("~archive~"))) {
            archive = q->value(0).toString();
            archivedAt = q->value(1).toString();
        }
    QVERIFY(!archive.isEmpty() && !archivedAt.isEmpty());
    {
        auto q = r.query(QStringLiteral("SELECT contracts FROM indexer_checkpoints WHERE "
                                        "environment_id = ?"),
                         {env});
        QVERIFY(q->next());
        QCOMPARE(q->value(0).toString(), first().toHex()); // out of the set
    }
    b.close();
    QCOMPARE(rowsOf(archive), before);

    // The environment without it: verified against the node, indexed on, and its report
    // says what was archived, and when.
    const test::ProcessRun verified = test::runForkscope(verifyArgs(db, env));
    VERIFY_EXIT_OK(verified);
    QVERIFY2(!verified.out.contains(a), qPrintable(verified.out));
    VERIFY_EXIT_OK(
        test::runForkscope(argsWith(db, env, false) << QStringLiteral("--exit-when-synced")));
    const QString json =
        m_lab->tempPath(QStringLiteral("archive-%1.json").arg(QTest::currentDataTag()));
    VERIFY_EXIT_OK(test::runForkscope({QStringLiteral("report"), QStringLiteral("--db"), db,
                                       QStringLiteral("--env"), env, QStringLiteral("--format"),
                                       QStringLiteral("json"), QStringLiteral("--out"), json}));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonArray archived = QJsonDocument::fromJson(f.readAll())
                                    .object()
                                    .value("environment")
                                    .toObject()
                                    .value("archived_contracts")
                                    .toArray();
    QCOMPARE(archived.size(), 1);
    QCOMPARE(archived[0].toObject().value("contract").toString(), a);
    QCOMPARE(archived[0].toObject().value("archived_at").toString(), archivedAt);
    QCOMPARE(archived[0].toObject().value("archive_environment").toString(), archive);

    // Named again, it is backfilled again, from its deployment block, and joins.
    VERIFY_EXIT_OK(
        test::runForkscope(argsWith(db, env, true) << QStringLiteral("--exit-when-synced")));
    expectBothContractsWhole(b, db, env);
    QCOMPARE(rowsOf(archive), before); // the archive is untouched
}

// The added contract's backfill proves its ranges complete as the head does: a provider
// that silently cuts every eth_getLogs reply to 7 logs does not leave a hole in it.
void TestAddSource::anAddedContractsBackfillIsProvenComplete()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("capped-%1").arg(QTest::currentDataTag());
    indexTheFirstContract(db, env);
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setLogCap(7, lab::FaultProxy::CapMode::Silent);
    QStringList args = argsWith(db, env, true, proxy.url());
    args[args.indexOf(QStringLiteral("--batch-size")) + 1] = QStringLiteral("40");
    VERIFY_EXIT_OK(test::runForkscope(args << QStringLiteral("--exit-when-synced")));
    QVERIFY(proxy.cappedReplies() > 0);
    Backend b(db);
    expectBothContractsWhole(b, db, env);
}

// A node that keeps only recent state (a pruned node, or anvil past its state history)
// answers eth_getCode below it with an error: the search for the deployment block takes such
// a block for one with code, so the backfill starts earlier, never after the deployment,
// and the contract joins whole (the run neither waits for ever nor drops it).
void TestAddSource::aNodeWithoutOldStateStillGetsItsBackfill()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("pruned-%1").arg(QTest::currentDataTag());
    indexTheFirstContract(db, env);
    Backend b(db);
    const qint64 checkpoint = checkpointOf(b.open(), env);
    b.close();
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setStateFrom(checkpoint);
    VERIFY_EXIT_OK(test::runForkscope(argsWith(db, env, true, proxy.url())
                                      << QStringLiteral("--exit-when-synced")));
    QVERIFY(proxy.refusedStateCalls() > 0);
    const auto nodeLogs = m_lab->eth().getLogs(
        rpc::LogFilter::range(0, quint64(checkpoint), QList<chain::Address>{added()}));
    QVERIFY(!nodeLogs.isEmpty());
    QVERIFY(b.open().scalar(QStringLiteral("SELECT start_block FROM contract_sources WHERE "
                                           "environment_id = ?"),
                            {env}) <= qint64(nodeLogs.first().blockNumber));
    b.close();
    expectBothContractsWhole(b, db, env);
}

// The node fails while the run starts the added contract's backfill (its deployment block
// is being searched for): the round is tried again with the contract still added, and
// --exit-when-synced exits only once it joined.
void TestAddSource::aNodeFailingWhileTheRunStartsDoesNotDropIt()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("flaky-start-%1").arg(QTest::currentDataTag());
    indexTheFirstContract(db, env);
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.failNext(QStringLiteral("eth_getCode"), 2);
    VERIFY_EXIT_OK(test::runForkscope(argsWith(db, env, true, proxy.url())
                                      << QStringLiteral("--exit-when-synced")));
    Backend b(db);
    expectBothContractsWhole(b, db, env);
}

QTEST_GUILESS_MAIN(TestAddSource)
#include "tst_addsource.moc"
