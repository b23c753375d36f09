// A factory added to an environment that follows the head, on both stores (the store a data
// row): `forkscope index` naming a factory the environment does not index yet backfills it
// from its deployment block (found on the node) next to the head, which keeps being followed
// for the token the environment indexed; the children it finds are indexed from their
// creation blocks, each with its constructor's mint; readers never see the factory's or its
// children's rows above its own checkpoint before it joins; then the head follows it. The
// environment then holds every child's whole history, counted against the node child by
// child (eth_getLogs per child, decoded here, never by the engine). The same with a reorg
// during the factory's backfill that removes children it had found, and with the process
// killed in the middle of the backfill. Archiving the factory takes it and its children out
// of the environment, every row kept; naming it again backfills it again.
#include "FactoryLab.h"
#include "lab/DemoToken.h"
#include "lab/FaultProxy.h"

#include <QProcess>
#include <QtTest>

using namespace forkscope;
using test::Backend;
using test::NodeChild;

class TestAddFactory : public QObject, public test::FactoryLab
{
    Q_OBJECT
private slots:
    void initTestCase() { m_cluster.start(); }
    void init();
    void anAddedFactoryBringsEveryChildsHistory_data() { rows(); }
    void anAddedFactoryBringsEveryChildsHistory();
    void aReorgDuringTheFactorysBackfillRollsBothBack_data() { rows(); }
    void aReorgDuringTheFactorysBackfillRollsBothBack();
    void aFactoryBackfillKilledMidwayFinishesOnRestart_data() { rows(); }
    void aFactoryBackfillKilledMidwayFinishesOnRestart();
    void anArchivedFactoryTakesItsChildrenAlong_data() { rows(); }
    void anArchivedFactoryTakesItsChildrenAlong();

private:
    chain::Address m_token;

    QStringList tokenArgs(const QString& db, const QString& env, const QUrl& rpc = {}) const
    {
        return {QStringLiteral("index"),
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
                m_token.toHex()};
    }
    QStringList withFactory(QStringList args) const
    {
        return args << QStringLiteral("--factory") << m_chain->factory().toHex()
                    << QStringLiteral("--factory-event") << test::kPairCreated
                    << QStringLiteral("--child-arg") << QStringLiteral("pair");
    }

    struct FactoryView
    {
        QString state; // empty: not recorded
        qint64 checkpoint = -1;
        QString hash;
    };
    FactoryView factoryView(store::ContractReader& r, const QString& env)
    {
        auto q = r.query(QStringLiteral("SELECT state, coalesce(block_number, -1), block_hash FROM "
                                        "contract_sources WHERE environment_id = ? AND "
                                        "contract = ?"),
                         {env, m_chain->factory().toHex()});
        FactoryView v;
        if (q->next())
            v = FactoryView{q->value(0).toString(), q->value(1).toLongLong(),
                            q->value(2).toString()};
        return v;
    }

    // While the factory is pending, its rows and its children's are exactly the node's up to
    // its own checkpoint (while that is still the node's block), none above. Returns whether
    // it was pending.
    bool expectNothingAboveItsCheckpoint(store::ContractReader& r, const QString& env)
    {
        const auto snapshot = r.snapshot(); // one state for every read of the look
        const FactoryView v = factoryView(r, env);
        if (v.state != QLatin1String("pending"))
            return false;
        const QString ours = QStringLiteral(
            "FROM logs l WHERE l.environment_id = ? AND (l.address = ? OR l.address IN (SELECT "
            "child FROM factory_children WHERE environment_id = ? AND factory = ?))");
        const QString f = m_chain->factory().toHex();
        const qint64 above = r.scalar(QStringLiteral("SELECT count(*) ") + ours +
                                          QStringLiteral(" AND l.block_number > ?"),
                                      {env, f, env, f, v.checkpoint});
        if (above > 0)
            qWarning("pending at %lld, %lld rows above it", v.checkpoint, above);
        [&] { QCOMPARE(above, qint64(0)); }();
        if (v.checkpoint < 0)
            return true;
        const auto atCheckpoint = m_lab->eth().blockByNumber(quint64(v.checkpoint));
        if (!atCheckpoint || atCheckpoint->hash.toHex() != v.hash)
            return true; // a reorg not rolled back yet
        QList<chain::Address> addresses{m_chain->factory()};
        for (const NodeChild& c : m_chain->nodeChildren(quint64(v.checkpoint)))
            addresses << chain::Address::fromHex(c.address, QStringLiteral("child"));
        const auto nodeLogs =
            m_lab->eth().getLogs(rpc::LogFilter::range(0, quint64(v.checkpoint), addresses));
        [&] {
            QCOMPARE(r.scalar(QStringLiteral("SELECT count(*) ") + ours, {env, f, env, f}),
                     qint64(nodeLogs.size()));
        }();
        return true;
    }

    // Runs `index` with the token and the factory through a slow proxy until the factory
    // joined and the checkpoint is the node's head, calling `meanwhile` on each look while it
    // is pending; returns how many looks found it pending (-1: it never joined).
    int followUntilJoined(const QString& db, const QString& env,
                          const std::function<void(const FactoryView&)>& meanwhile)
    {
        lab::FaultProxy proxy(m_lab->devnet().url());
        proxy.listen();
        proxy.setLatencyMs(8); // a backfill of a second or two: the head moves meanwhile
        QProcess index;
        index.setProcessChannelMode(QProcess::MergedChannels);
        index.start(QStringLiteral(FORKSCOPE_BINARY), withFactory(tokenArgs(db, env, proxy.url())));
        if (!index.waitForStarted())
            return -1;
        // One connection for every look, each short: the proxy serves the indexer only while
        // this thread waits.
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
                        meanwhile(factoryView(*r, env));
                        return false;
                    }
                    const auto cp = r->checkpoint(env, 31337, QStringLiteral("default"));
                    const auto head = m_lab->eth().latestBlock();
                    return factoryView(*r, env).state == QLatin1String("joined") && cp && head &&
                           cp->number == qint64(head->number) && cp->hash == head->hash.toHex();
                } catch (const std::exception&) {
                    r = nullptr; // not migrated yet
                    return false;
                }
            },
            90'000);
        b.close();
        const QString out = QString::fromUtf8(index.readAll());
        index.kill();
        index.waitForFinished(5000);
        if (!joined || QTest::currentTestFailed())
            qWarning("%s", qPrintable(out.right(3000)));
        return joined ? pendingLooks : -1;
    }

    // The chain before the factory is added: a token with Transfers, children made before
    // the environment starts; the environment indexes the token up to the head; then more
    // children that only the factory's backfill can find.
    void startTheTokenEnvironment(const QString& db, const QString& env)
    {
        m_token = m_lab->deployToken(QStringLiteral("TOK")).address();
        m_lab->sprayAll(3, 2, 10);
        for (int i = 0; i < 3; ++i)
            m_chain->block(2, 1, m_random);
        VERIFY_EXIT_OK(
            test::runForkscope(tokenArgs(db, env) << QStringLiteral("--exit-when-synced")));
        for (int i = 0; i < 3; ++i) {
            m_chain->block(1, 2, m_random);
            m_lab->sprayAll(1, 2, 10);
        }
    }

    // After it joined: one more child, found by the head, then the environment synced.
    void aChildAfterItJoined(const QString& db, const QString& env)
    {
        m_chain->block(1, 1, m_random);
        VERIFY_EXIT_OK(test::runForkscope(withFactory(tokenArgs(db, env))
                                          << QStringLiteral("--exit-when-synced")));
    }

    // Every child the node's factory created up to the checkpoint is stored from its
    // creation event; each child's logs, the factory's and the token's are exactly the node's
    // (eth_getLogs per address), a child's first one its constructor's mint in its creation
    // block; each holder's balance of a child is the sum of the node's Transfers; `verify`
    // finds no hole.
    void expectEveryChildWhole(Backend& b, const QString& db, const QString& env)
    {
        store::ContractReader& r = b.open();
        QCOMPARE(factoryView(r, env).state, QStringLiteral("joined"));
        const qint64 cp = checkpointOf(r, env);
        QVERIFY(cp > 0);
        const QList<NodeChild> node = m_chain->nodeChildren(quint64(cp));
        QVERIFY2(node.size() >= 9, qPrintable(QString::number(node.size())));
        QList<NodeChild> stored;
        for (auto q = r.query(QStringLiteral("SELECT child, block_number, log_index FROM "
                                             "factory_children WHERE environment_id = ? ORDER BY "
                                             "block_number, log_index"),
                              {env});
             q->next();)
            stored << NodeChild{q->value(0).toString(), q->value(1).toLongLong(),
                                q->value(2).toLongLong()};
        QCOMPARE(stored, node);

        const QString count =
            QStringLiteral("SELECT count(*) FROM logs WHERE environment_id = ? AND address = ?");
        qint64 nodeTotal = 0;
        for (const chain::Address& a : {m_token, m_chain->factory()}) {
            const auto logs = m_lab->eth().getLogs(rpc::LogFilter::range(0, quint64(cp), {a}));
            QVERIFY(!logs.isEmpty());
            QCOMPARE(r.scalar(count, {env, a.toHex()}), qint64(logs.size()));
            nodeTotal += logs.size();
        }
        const chain::Hash32 transfer =
            chain::eventTopic(QStringLiteral("Transfer(address,address,uint256)"));
        const QString zero = QStringLiteral("0x") + QString(40, QLatin1Char('0'));
        QHash<QString, QHash<QString, qint64>> sums; // child -> holder -> balance
        for (const NodeChild& c : node) {
            const auto child = chain::Address::fromHex(c.address, QStringLiteral("child"));
            const auto logs = m_lab->eth().getLogs(rpc::LogFilter::range(0, quint64(cp), {child}));
            QVERIFY(!logs.isEmpty());
            QCOMPARE(qint64(logs.first().blockNumber), c.block);
            QVERIFY(qint64(logs.first().logIndex) < c.logIndex); // the constructor's mint
            QCOMPARE(r.scalar(count, {env, c.address}), qint64(logs.size()));
            QCOMPARE(r.scalar(QStringLiteral("SELECT min(block_number) FROM logs WHERE "
                                             "environment_id = ? AND address = ?"),
                              {env, c.address}),
                     c.block);
            nodeTotal += logs.size();
            for (const chain::LogEntry& l : logs) {
                if (l.topics.size() != 3 || l.topics[0] != transfer)
                    continue;
                const qint64 value = l.data.right(8).toHex().toLongLong(nullptr, 16);
                const QString from =
                    QStringLiteral("0x") + l.topics[1].toByteArray().right(20).toHex();
                const QString to =
                    QStringLiteral("0x") + l.topics[2].toByteArray().right(20).toHex();
                if (from != zero)
                    sums[c.address][from] -= value;
                if (to != zero)
                    sums[c.address][to] += value;
            }
        }
        QCOMPARE(
            r.scalar(QStringLiteral("SELECT count(*) FROM logs WHERE environment_id = ?"), {env}),
            nodeTotal);
        qint64 balances = 0;
        for (auto q = r.query(QStringLiteral("SELECT contract, holder, balance FROM "
                                             "token_balances WHERE environment_id = ? AND "
                                             "contract <> ?"),
                              {env, m_token.toHex()});
             q->next(); ++balances) {
            const QString contract = q->value(0).toString();
            QVERIFY2(sums.contains(contract), qPrintable(contract + " is no child on the node"));
            QCOMPARE(q->value(2).toString(),
                     QString::number(sums[contract].value(q->value(1).toString(), -1)));
        }
        qint64 holders = 0;
        for (const auto& perChild : std::as_const(sums))
            holders += perChild.size();
        QCOMPARE(balances, holders);
        b.close();
        VERIFY_EXIT_OK(test::runForkscope({QStringLiteral("verify"), QStringLiteral("--db"), db,
                                           QStringLiteral("--env"), env, QStringLiteral("--rpc"),
                                           m_lab->devnet().url().toString()}));
    }
};

void TestAddFactory::init()
{
    newChain(83);
}

// The factory is backfilled from its deployment block while the head goes on for the token:
// the environment's checkpoint moves during the backfill, children are made meanwhile, and
// the factory joins above where the run started; the head then follows it.
void TestAddFactory::anAddedFactoryBringsEveryChildsHistory()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("factory-%1").arg(QTest::currentDataTag());
    startTheTokenEnvironment(db, env);
    Backend b(db);
    const qint64 before = checkpointOf(b.open(), env);
    b.close();
    int blocks = 0;
    const int looks = followUntilJoined(db, env, [&](const FactoryView&) {
        if (blocks++ < 4) { // the head moves, with children, while the backfill runs
            m_chain->block(1, 1, m_random);
            m_lab->sprayAll(1, 2, 10);
        }
    });
    QVERIFY2(looks > 0, "the factory never joined, or was never seen pending");
    QVERIFY(blocks > 0);
    store::ContractReader& r = b.open();
    const qint64 joinedAt = factoryView(r, env).checkpoint;
    QVERIFY2(joinedAt > before,
             qPrintable(
                 QStringLiteral("joined at %1, the run started at %2").arg(joinedAt).arg(before)));
    // Its start: the block it was deployed in, as the node's code says.
    const qint64 start = r.scalar(QStringLiteral("SELECT start_block FROM contract_sources WHERE "
                                                 "environment_id = ? AND contract = ?"),
                                  {env, m_chain->factory().toHex()});
    QVERIFY(start > 0);
    QVERIFY(m_lab->eth().codeAt(m_chain->factory(), quint64(start - 1)).isEmpty());
    QVERIFY(!m_lab->eth().codeAt(m_chain->factory(), quint64(start)).isEmpty());
    QVERIFY(r.scalar(QStringLiteral("SELECT count(*) FROM contract_sources WHERE environment_id "
                                    "= ? AND factory_rule LIKE 'factory:%'"),
                     {env}) == 1);
    b.close();
    aChildAfterItJoined(db, env);
    expectEveryChildWhole(b, db, env);
}

// A reorg while the factory's backfill is near the head, removing children it had found:
// the rollback takes its rows and those children above the fork with the head's and moves
// its checkpoint back with the environment's; the backfill finds the new branch's children.
void TestAddFactory::aReorgDuringTheFactorysBackfillRollsBothBack()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("reorged-%1").arg(QTest::currentDataTag());
    startTheTokenEnvironment(db, env);
    for (int i = 0; i < 3; ++i) // children in every block the reorg replaces
        m_chain->block(1, 1, m_random);
    const qint64 head = qint64(m_lab->eth().blockNumber());
    bool reorged = false;
    const int looks = followUntilJoined(db, env, [&](const FactoryView& v) {
        // Once the backfill found children of the blocks the reorg replaces.
        if (!reorged && v.checkpoint >= head - 1) {
            reorged = true;
            m_lab->reorg(5);
            m_chain->readNode();
            m_chain->block(2, 1, m_random);
            m_lab->sprayAll(1, 2, 10);
        }
    });
    QVERIFY2(looks > 0, "the factory never joined, or was never seen pending");
    QVERIFY2(reorged, "the factory's backfill never came near the head");
    Backend b(db);
    store::ContractReader& r = b.open();
    QVERIFY(r.scalar(QStringLiteral("SELECT count(*) FROM reorg_events WHERE environment_id = ?"),
                     {env}) >= 1);
    // The rollback took children the backfill had stored (the node's branch then made others).
    QVERIFY(r.scalar(QStringLiteral("SELECT count(*) FROM reorg_diff_items WHERE environment_id "
                                    "= ? AND kind = 'child_removed' AND from_addr = ?"),
                     {env, m_chain->factory().toHex()}) >= 1);
    QCOMPARE(r.scalar(QStringLiteral("SELECT count(*) FROM source_ranges WHERE environment_id = "
                                     "? AND to_block > (SELECT block_number FROM "
                                     "contract_sources WHERE environment_id = ? AND contract = "
                                     "?)"),
                      {env, env, m_chain->factory().toHex()}),
             qint64(0));
    b.close();
    aChildAfterItJoined(db, env);
    expectEveryChildWhole(b, db, env);
}

// Killed with a backfill batch written and not committed, after earlier batches committed
// children: nothing of the killed batch is visible, the factory is still pending with
// exactly the node's rows up to its checkpoint, and the next run finishes the backfill from
// there, every child whole and none twice.
void TestAddFactory::aFactoryBackfillKilledMidwayFinishesOnRestart()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("killed-%1").arg(QTest::currentDataTag());
    startTheTokenEnvironment(db, env);
    const test::ProcessRun killed =
        test::runForkscope(withFactory(tokenArgs(db, env)) << QStringLiteral("--exit-when-synced"),
                           crashingAt(QStringLiteral("source-before-commit"), 3));
    QVERIFY2(killed.finished && killed.exitStatus == QProcess::CrashExit,
             qPrintable(killed.describe()));
    Backend b(db);
    store::ContractReader& r = b.open();
    QVERIFY2(expectNothingAboveItsCheckpoint(r, env), "the factory is not pending after the kill");
    const FactoryView atKill = factoryView(r, env);
    QVERIFY(atKill.checkpoint >= 0);
    QVERIFY(atKill.checkpoint < checkpointOf(r, env));
    // Its committed batches had found children already: the kill came mid-way.
    QVERIFY(r.scalar(QStringLiteral("SELECT count(*) FROM factory_children WHERE environment_id "
                                    "= ? AND factory = ?"),
                     {env, m_chain->factory().toHex()}) > 0);
    b.close();

    VERIFY_EXIT_OK(test::runForkscope(withFactory(tokenArgs(db, env))
                                      << QStringLiteral("--exit-when-synced")));
    QCOMPARE(factoryView(b.open(), env).state, QStringLiteral("joined"));
    b.close();
    aChildAfterItJoined(db, env);
    expectEveryChildWhole(b, db, env);
}

// forkscope archive-contract on a factory: in one transaction its rows and every child's
// (logs, Transfers, balances, outbox rows, the children themselves) leave the live views, all
// kept under an archived environment of their own; the token's rows stay. The environment
// then verifies and indexes without the factory, and naming it again backfills it again.
void TestAddFactory::anArchivedFactoryTakesItsChildrenAlong()
{
    QFETCH(QString, db);
    const QString env = QStringLiteral("archived-%1").arg(QTest::currentDataTag());
    startTheTokenEnvironment(db, env);
    VERIFY_EXIT_OK(test::runForkscope(withFactory(tokenArgs(db, env))
                                      << QStringLiteral("--exit-when-synced")));
    Backend b(db);
    const QString f = m_chain->factory().toHex();
    // Rows of the factory and its children (`ours`), and of the token, in an environment.
    const auto rowsOf = [&](const QString& inEnv) {
        store::ContractReader& r = b.open();
        const QString ours = QStringLiteral(" IN (SELECT ? UNION SELECT child FROM "
                                            "factory_children WHERE environment_id = ?)");
        QStringList out;
        for (const auto& [table, column] :
             {std::pair{"logs", "address"}, std::pair{"transfer_events", "contract"},
              std::pair{"token_balances", "contract"}}) {
            const QString count =
                QStringLiteral("SELECT count(*) FROM %1 WHERE environment_id = ? AND %2")
                    .arg(QLatin1String(table), QLatin1String(column));
            out << QStringLiteral("%1 %2 / token %3")
                       .arg(QLatin1String(table))
                       .arg(r.scalar(count + ours, {inEnv, f, inEnv}))
                       .arg(r.scalar(count + QStringLiteral(" = ?"), {inEnv, m_token.toHex()}));
        }
        out << QStringLiteral("children %1")
                   .arg(r.scalar(QStringLiteral("SELECT count(*) FROM factory_children WHERE "
                                                "environment_id = ?"),
                                 {inEnv}));
        out << QStringLiteral("outbox %1")
                   .arg(r.scalar(QStringLiteral("SELECT count(*) FROM outbox WHERE "
                                                "environment_id = ?"),
                                 {inEnv}));
        b.close();
        return out;
    };
    const QStringList before = rowsOf(env);
    const qint64 children = m_chain->nodeChildren(m_lab->eth().blockNumber()).size();
    QVERIFY(children >= 9);
    QCOMPARE(before.at(3), QStringLiteral("children %1").arg(children));

    const test::ProcessRun run =
        test::runForkscope({QStringLiteral("archive-contract"), QStringLiteral("--db"), db,
                            QStringLiteral("--env"), env, QStringLiteral("--contract"), f});
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.out.contains(QStringLiteral("archived %1 from environment %2").arg(f, env)) &&
                 run.out.contains(QStringLiteral("factory with %1 children").arg(children)),
             qPrintable(run.out));

    // The live environment keeps the token's rows only; the archive holds everything else.
    const QStringList after = rowsOf(env);
    const auto tokenPart = [](const QString& line) {
        return line.section(QStringLiteral(" / "), 1);
    };
    for (int i = 0; i < 3; ++i) {
        QCOMPARE(after.at(i).section(QLatin1Char(' '), 1, 1), QStringLiteral("0"));
        QCOMPARE(tokenPart(after.at(i)), tokenPart(before.at(i)));
    }
    QCOMPARE(after.at(3), QStringLiteral("children 0"));
    store::ContractReader& r = b.open();
    QString archiveId;
    for (auto q = r.query(QStringLiteral("SELECT environment_id FROM environments WHERE "
                                         "archived_at IS NOT NULL"),
                          {});
         q->next();)
        if (q->value(0).toString().startsWith(env + QStringLiteral("~archive~")))
            archiveId = q->value(0).toString();
    QVERIFY(!archiveId.isEmpty());
    QCOMPARE(r.scalar(QStringLiteral("SELECT count(*) FROM indexer_checkpoints WHERE "
                                     "environment_id = ? AND contracts = ?"),
                      {env, m_token.toHex()}),
             qint64(1)); // the factory's rule left the set
    b.close();
    const QStringList archived = rowsOf(archiveId);
    for (int i = 0; i < 3; ++i) // every row of the factory's, none of the token's
        QCOMPARE(archived.at(i),
                 before.at(i).section(QStringLiteral(" / "), 0, 0) + QStringLiteral(" / token 0"));
    QCOMPARE(archived.at(3), before.at(3));
    QCOMPARE(after.at(4).section(QLatin1Char(' '), 1).toLongLong() +
                 archived.at(4).section(QLatin1Char(' '), 1).toLongLong(),
             before.at(4).section(QLatin1Char(' '), 1).toLongLong());

    // Without the factory: verified against the node and indexed on, no child coming back.
    VERIFY_EXIT_OK(test::runForkscope(verifyArgs(db, env)));
    m_chain->block(1, 1, m_random);
    VERIFY_EXIT_OK(test::runForkscope(tokenArgs(db, env) << QStringLiteral("--exit-when-synced")));
    QCOMPARE(rowsOf(env).at(3), QStringLiteral("children 0"));

    // Named again, it is backfilled again and joins, the archive untouched.
    aChildAfterItJoined(db, env);
    expectEveryChildWhole(b, db, env);
    QCOMPARE(rowsOf(archiveId), archived);
}

QTEST_GUILESS_MAIN(TestAddFactory)
#include "tst_addfactory.moc"
