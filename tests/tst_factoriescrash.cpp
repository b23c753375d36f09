// A factory's environment killed (SIGKILL, as kill -9) mid-batch and mid-rollback, the store a
// data row: a batch that creates children is written and not yet committed, or a rollback that
// removes children has deleted their rows and not yet committed. Run again, every invariant
// holds: the children, their logs and balances are the node's, no row of a vanished child is
// left, and the outbox retracts what it had delivered of them.
#include "FactoryLab.h"
#include "lab/ReorgInjector.h"

#include <QtTest>

using namespace forkscope;
using test::Backend;
using test::NodeChild;

class TestFactoriesCrash : public QObject, public test::FactoryLab
{
    Q_OBJECT
private slots:
    void initTestCase() { m_cluster.start(); }
    void init() { newChain(52); }
    void aKilledIndexerLosesNoChildAndLeavesNoOrphan_data();
    void aKilledIndexerLosesNoChildAndLeavesNoOrphan();

private:
    static QProcessEnvironment crashingAt(const QString& point, int skip)
    {
        QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
        e.insert(QStringLiteral("FORKSCOPE_CRASH_AT"), point);
        e.insert(QStringLiteral("FORKSCOPE_CRASH_AFTER"), QString::number(skip));
        return e;
    }
};

void TestFactoriesCrash::aKilledIndexerLosesNoChildAndLeavesNoOrphan_data()
{
    QTest::addColumn<QString>("db");
    QTest::addColumn<QString>("point");
    for (const char* point : {"before-commit", "mid-rollback"}) {
        QTest::addRow("sqlite, %s", point)
            << m_dir.filePath(QString::fromLatin1(point) + QStringLiteral(".sqlite"))
            << QString::fromLatin1(point);
        QTest::addRow("postgresql, %s", point) << m_cluster.url() << QString::fromLatin1(point);
    }
}

void TestFactoriesCrash::aKilledIndexerLosesNoChildAndLeavesNoOrphan()
{
    QFETCH(QString, db);
    QFETCH(QString, point);
    const QString env = QStringLiteral("killed-") + point;
    const QString outbox = m_lab->tempPath(QStringLiteral("outbox-%1.jsonl").arg(env));
    QFile::remove(outbox);
    const QStringList args = factoryArgs(db, env) << "--outbox-file" << outbox;
    const auto runKilled = [&] {
        // Killed the second time it reaches the point: a batch (or the rollback) with
        // children in it, after a first one committed.
        const test::ProcessRun killed =
            test::runForkscope(args, crashingAt(point, point == "before-commit" ? 1 : 0));
        QVERIFY2(killed.finished && killed.exitStatus == QProcess::CrashExit,
                 qPrintable(killed.describe()));
        QVERIFY2(killed.err.contains(QStringLiteral("crash point %1 reached").arg(point)),
                 qPrintable(killed.describe()));
    };

    for (int n = 0; n < 12; ++n)
        m_chain->block(1 + m_random.bounded(2), m_random.bounded(3), m_random);
    if (point == "before-commit") {
        runKilled();
        if (QTest::currentTestFailed())
            return;
    }
    VERIFY_EXIT_OK(test::runForkscope(args));
    Backend b(db);
    expectTheNodesChildren(b, env);
    if (QTest::currentTestFailed())
        return;

    // A reorg drops the last blocks' transactions: their children vanish with every row, some
    // of them delivered already.
    const int depth = 6;
    const quint64 head = m_lab->eth().blockNumber();
    QStringList gone;
    for (const NodeChild& c : m_chain->nodeChildren(head))
        if (c.block > qint64(head) - depth)
            gone << c.address;
    QVERIFY(!gone.isEmpty());
    lab::ReorgInjector::inject(m_lab->rpc(), depth, lab::ReorgTxMode::Drop);
    m_chain->readNode();
    m_chain->block(1, 2, m_random);
    if (point == "mid-rollback") {
        runKilled();
        if (QTest::currentTestFailed())
            return;
    }
    VERIFY_EXIT_OK(test::runForkscope(args));
    expectTheNodesChildren(b, env);
    expectNoOrphans(b, env);
    if (QTest::currentTestFailed())
        return;
    QVERIFY2(expectDeliveredRetracted(b, env, outbox) > 0,
             "the reorg rolled back nothing that was delivered");
    if (QTest::currentTestFailed())
        return;
    store::ContractReader& r = b.open();
    QStringList listed;
    for (auto q = r.query(QStringLiteral("SELECT contract FROM reorg_diff_items WHERE "
                                         "environment_id = ? AND kind = 'child_removed'"),
                          {env});
         q->next();)
        listed << q->value(0).toString();
    b.close();
    listed.sort();
    gone.sort();
    QCOMPARE(listed, gone);
    VERIFY_EXIT_OK(test::runForkscope(verifyArgs(db, env)));
}

QTEST_GUILESS_MAIN(TestFactoriesCrash)
#include "tst_factoriescrash.moc"
