// Several indexer processes on one PostgreSQL database, against a real
// throwaway cluster (lab::PgLab): backfill ranges claimed with SKIP LOCKED under leases
// that a killed process loses, the checkpoint moved by compare-and-swap across the
// finished prefix only, and exactly one head follower by advisory lock. The multi-process
// rows run pgcoord_worker (tests/support), a stand-in indexer that writes one row per block
// in the transaction that finishes its range; the suite checks those rows independently.
#include "chain/Keccak.h"
#include "coord/BackfillClaims.h"
#include "coord/CoordinationErrors.h"
#include "coord/CoordinationSchema.h"
#include "coord/PrefixCheckpoint.h"
#include "lab/PgLab.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgCoordination.h"
#include "store/pg/PgError.h"

#include <QProcess>
#include <QRegularExpression>
#include <QtTest>
#include <csignal>
#include <memory>

using namespace forkscope;
using namespace std::chrono_literals;
using store::pg::PgConnection;

namespace {

chain::Hash32 blockHash(qint64 n)
{
    return chain::keccak256("block" + QByteArray::number(n));
}

// One pgcoord_worker, its output collected line by line.
class Worker
{
public:
    explicit Worker(const QStringList& args)
    {
        m_p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        m_p.start(QStringLiteral(FORKSCOPE_PGCOORD_WORKER), args);
    }
    ~Worker()
    {
        if (m_p.state() != QProcess::NotRunning) {
            m_p.kill();
            m_p.waitForFinished(5000);
        }
    }
    QStringList lines()
    {
        m_buffer += QString::fromUtf8(m_p.readAllStandardOutput());
        return m_buffer.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }
    int count(const QRegularExpression& re)
    {
        int n = 0;
        for (const QString& l : lines())
            n += re.match(l).hasMatch() ? 1 : 0;
        return n;
    }
    bool waitFor(const QRegularExpression& re, int atLeast, int timeoutMs)
    {
        QDeadlineTimer deadline(timeoutMs);
        while (count(re) < atLeast) {
            if (deadline.hasExpired() || m_p.state() == QProcess::NotRunning)
                return count(re) >= atLeast;
            m_p.waitForReadyRead(100);
        }
        return true;
    }
    void killHard()
    {
        ::kill(pid_t(m_p.processId()), SIGKILL);
        m_p.waitForFinished(5000);
    }
    bool finishedCleanly(int timeoutMs)
    {
        // waitForFinished() is false for a process that has already finished.
        if (m_p.state() != QProcess::NotRunning && !m_p.waitForFinished(timeoutMs))
            return false;
        return m_p.exitStatus() == QProcess::NormalExit && m_p.exitCode() == 0;
    }
    QString output() { return lines().join(QLatin1Char('\n')); }
    QProcess& process() { return m_p; }

private:
    QProcess m_p;
    QString m_buffer;
};

} // namespace

class TestPgCoord : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void claimsAreExclusiveAndPlansMustAgree();
    void expiredLeaseIsTakenOverAndTheOldOwnerCannotFinish();
    void claimsEndAtTheHeadAndAShorterChainEndsThePlan();
    void aClaimTakesAtMostTheClaimersRangeSize();
    void checkpointFollowsOnlyTheChainedFinishedPrefix_data();
    void checkpointFollowsOnlyTheChainedFinishedPrefix();
    void failedRangeStopsTheCheckpointBelowIt();
    void badUrlIsOneLineWithoutThePassword();
    void threeProcessesBackfillAndOneIsKilledMidRange();
    void aWorkerPastItsLeaseHasItsRowsRolledBack();
    void exactlyOneHeadFollowerAndATakeoverWhenItDies();

private:
    qint64 scalar(const QByteArray& sql);
    // Rows of backfill_rows for `env`: count, distinct blocks, sum of block numbers, and how
    // many carry a hash other than the block's.
    struct RowCheck
    {
        qint64 rows = 0, distinct = 0, sum = 0, wrongHash = 0;
    };
    RowCheck rowsOf(const QString& env);

    lab::PgLab m_cluster;
    std::unique_ptr<PgConnection> m_db;
};

void TestPgCoord::initTestCase()
{
    m_cluster.start();
    m_db = PgConnection::open(m_cluster.url());
    coord::ensureCoordinationSchema(*m_db);
    coord::ensureCoordinationSchema(*m_db); // idempotent: every process runs it at start
    // The stand-in indexer's data: no key, so a block indexed twice shows as two rows.
    m_db->exec("CREATE TABLE backfill_rows (environment_id text NOT NULL, block_number bigint "
               "NOT NULL, block_hash bytea NOT NULL, owner text NOT NULL)");
}

void TestPgCoord::cleanupTestCase()
{
    m_db.reset();
    m_cluster.stop();
}

qint64 TestPgCoord::scalar(const QByteArray& sql)
{
    return m_db->exec(sql.constData()).int64(0, 0);
}

TestPgCoord::RowCheck TestPgCoord::rowsOf(const QString& env)
{
    const auto r = m_db->run("test_rows",
                             "SELECT block_number, encode(block_hash, 'hex') FROM backfill_rows "
                             "WHERE environment_id = $1",
                             {env.toUtf8()});
    RowCheck c;
    QSet<qint64> blocks;
    for (int i = 0; i < r.rows(); ++i) {
        const qint64 b = r.int64(i, 0);
        ++c.rows;
        blocks.insert(b);
        c.sum += b;
        if (r.text(i, 1) != blockHash(b).toByteArray().toHex())
            ++c.wrongHash;
    }
    c.distinct = blocks.size();
    return c;
}

void TestPgCoord::claimsAreExclusiveAndPlansMustAgree()
{
    auto a = PgConnection::open(m_cluster.url());
    auto b = PgConnection::open(m_cluster.url());
    coord::BackfillClaims ca(*a, QStringLiteral("excl"), 31337, QStringLiteral("A"), 10s);
    coord::BackfillClaims cb(*b, QStringLiteral("excl"), 31337, QStringLiteral("B"), 10s);
    QCOMPARE(ca.plan(1, 95, 10), 10); // the last range is 91-95
    QCOMPARE(cb.plan(1, 95, 10), 0);  // a second process's plan adds nothing
    const auto first = ca.claim();
    const auto second = cb.claim();
    QVERIFY(first && second);
    QCOMPARE(first->fromBlock, 1);
    QCOMPARE(first->toBlock, 10);
    QCOMPARE(second->fromBlock, 11); // never the range A holds
    QCOMPARE(first->attempts, 1);
    QVERIFY(first->takenOverFrom.isEmpty());
    QCOMPARE(scalar("SELECT to_block FROM backfill_ranges WHERE environment_id = 'excl' ORDER "
                    "BY from_block DESC LIMIT 1"),
             95);
    const coord::RangeCounts n = ca.counts();
    QCOMPARE(n.running, 2);
    QCOMPARE(n.pending, 8);
    // A process started later, with the head further on, extends the plan above the last
    // range (the partial 91-95 stays as it is).
    QCOMPARE(cb.plan(1, 120, 10), 3); // 96-105, 106-115, 116-120
    QCOMPARE(scalar("SELECT count(*) FROM backfill_ranges WHERE environment_id = 'excl' AND "
                    "from_block = 116 AND to_block = 120"),
             1);
    // One started at another first block would leave a hole or an overlap: refused.
    try {
        cb.plan(5, 120, 10);
        QFAIL("a plan from another first block was accepted");
    } catch (const coord::CoordinationError& e) {
        QVERIFY2(e.message().contains("start at block 1; this process was started with "
                                      "--from-block 5"),
                 qPrintable(e.message()));
    }
    QCOMPARE(ca.counts().pending, 11); // and nothing changed
}

void TestPgCoord::expiredLeaseIsTakenOverAndTheOldOwnerCannotFinish()
{
    auto a = PgConnection::open(m_cluster.url());
    auto b = PgConnection::open(m_cluster.url());
    const QString env = QStringLiteral("lease");
    coord::BackfillClaims slow(*a, env, 31337, QStringLiteral("slow"), 200ms);
    coord::BackfillClaims quick(*b, env, 31337, QStringLiteral("quick"), 10s);
    slow.plan(1, 10, 10);
    const auto mine = slow.claim();
    QVERIFY(mine);
    QVERIFY(!quick.claim()); // held, lease running: nothing to take
    QTest::qWait(400);       // the slow owner's lease runs out
    const auto taken = quick.claim();
    QVERIFY(taken);
    QCOMPARE(taken->fromBlock, 1);
    QCOMPARE(taken->attempts, 2);
    QCOMPARE(taken->takenOverFrom, QStringLiteral("slow"));
    QVERIFY(!slow.renew(*mine));

    // The old owner wrote its rows; its finish fails, so they roll back with it.
    a->begin();
    a->run("t_row", "INSERT INTO backfill_rows VALUES ($1, 5, $2, 'slow')",
           {env.toUtf8(), PgConnection::byteaParam(blockHash(5).toByteArray())});
    try {
        slow.finish(*mine, blockHash(0), blockHash(10));
        QFAIL("a range taken over was finished by its old owner");
    } catch (const coord::LeaseLostError& e) {
        QVERIFY2(e.message().contains("took it over"), qPrintable(e.message()));
        a->rollback();
    }
    QCOMPARE(rowsOf(env).rows, 0);
    // finish outside a transaction would commit the mark without the rows: refused.
    QVERIFY_THROWS_EXCEPTION(coord::CoordinationError,
                             quick.finish(*taken, blockHash(0), blockHash(10)));
    b->begin();
    quick.finish(*taken, blockHash(0), blockHash(10));
    b->commit();
    QVERIFY(quick.counts().allDone());
    QVERIFY(m_db->run("t_err", "SELECT last_error FROM backfill_ranges WHERE environment_id = $1",
                      {env.toUtf8()})
                .text(0, 0)
                .contains("lease of slow ran out; taken over by quick"));
}

// A claim never hands out blocks past the head it is given: a range across it is cut there,
// the rest left pending as a range of its own. When the chain is shorter than the plan, the
// pending ranges above both the head and every range done or held go, so the plan ends
// where the chain does; the ranges stay contiguous throughout.
void TestPgCoord::claimsEndAtTheHeadAndAShorterChainEndsThePlan()
{
    const QString env = QStringLiteral("shorter");
    coord::BackfillClaims claims(*m_db, env, 31337, QStringLiteral("S"), 10s);
    claims.plan(1, 60, 10);
    QCOMPARE(claims.claim(15)->toBlock, 10);
    const auto cut = claims.claim(15);
    QVERIFY(cut);
    QCOMPARE(cut->fromBlock, 11);
    QCOMPARE(cut->toBlock, 15);
    QVERIFY(!claims.claim(15)); // 16-20 starts past the head
    const auto rest = claims.claim();
    QVERIFY(rest);
    QCOMPARE(rest->fromBlock, 16);
    QCOMPARE(rest->toBlock, 20);
    claims.release(*rest);
    const auto held = claims.claim();
    QCOMPARE(held->fromBlock, 16);
    claims.release(*claims.claim()); // 21-30: claimed and given back, pending
    // 31-40 stored (from a branch the chain may no longer have), 41-50 held.
    m_db->run("t_shorter_mark",
              "UPDATE range_store SET status = CASE from_block WHEN 31 THEN 'done' ELSE 'running' "
              "END, owner = CASE from_block WHEN 31 THEN NULL ELSE 'T' END, lease_until = CASE "
              "from_block WHEN 31 THEN NULL ELSE clock_timestamp() + interval '1 hour' END, "
              "parent_hash = CASE from_block WHEN 31 THEN '\\x'||repeat('00', 32) END::bytea, "
              "last_hash = CASE from_block WHEN 31 THEN '\\x'||repeat('00', 32) END::bytea "
              "WHERE environment_id = $1 AND from_block IN (31, 41)",
              {env.toUtf8()});
    const auto layout = [&] {
        QStringList out;
        const auto r = m_db->run("t_shorter_layout",
                                 "SELECT from_block, to_block, status FROM range_store WHERE "
                                 "environment_id = $1 ORDER BY from_block",
                                 {env.toUtf8()});
        for (int i = 0; i < r.rows(); ++i)
            out << QStringLiteral("%1-%2 %3")
                       .arg(r.int64(i, 0))
                       .arg(r.int64(i, 1))
                       .arg(QString::fromUtf8(r.text(i, 2)));
        return out.join(QLatin1String(", "));
    };
    // The chain ends at 18 now: 51-60 goes; 21-30, between the head and what is stored,
    // stays (a hole there would never be planned again).
    QCOMPARE(claims.dropAbove(18), 1);
    QCOMPARE(layout(), QStringLiteral("1-10 running, 11-15 running, 16-20 running, 21-30 pending, "
                                      "31-40 done, 41-50 running"));
    // Nothing stored or held above 20 any more: the plan ends with the range held across
    // the head; given back, that one ends at the head.
    m_db->run("t_shorter_free",
              "DELETE FROM range_store WHERE environment_id = $1 AND from_block >= 31",
              {env.toUtf8()});
    QCOMPARE(claims.dropAbove(18), 1);
    QCOMPARE(layout(), QStringLiteral("1-10 running, 11-15 running, 16-20 running"));
    claims.release(*held);
    QCOMPARE(claims.dropAbove(18), 0);
    QCOMPARE(layout(), QStringLiteral("1-10 running, 11-15 running, 16-18 pending"));
}

// Ranges are planned at the size a writer had before it saw any logs; a writer whose ranges
// have since become smaller (dense blocks: fewer blocks per range) takes only that many
// blocks of a planned range, the rest left pending for whoever comes next, so that no writer
// fetches a range larger than it would plan itself.
void TestPgCoord::aClaimTakesAtMostTheClaimersRangeSize()
{
    const QString env = QStringLiteral("smaller");
    coord::BackfillClaims claims(*m_db, env, 31337, QStringLiteral("M"), 10s);
    claims.plan(1, 20, 10);
    const auto first = claims.claim(std::numeric_limits<qint64>::max(), 4);
    QCOMPARE(first->fromBlock, 1);
    QCOMPARE(first->toBlock, 4);
    const auto second = claims.claim(std::numeric_limits<qint64>::max(), 4);
    QCOMPARE(second->fromBlock, 5);
    QCOMPARE(second->toBlock, 8);
    const auto rest = claims.claim(std::numeric_limits<qint64>::max(), 4);
    QCOMPARE(rest->fromBlock, 9);
    QCOMPARE(rest->toBlock, 10); // the rest of the first planned range, not into the next
    const auto whole = claims.claim();
    QCOMPARE(whole->fromBlock, 11);
    QCOMPARE(whole->toBlock, 20);
    QCOMPARE(claims.counts().running, 4);
    QCOMPARE(claims.counts().pending, 0);

    // The engine's coordination claims at the range size the indexer asks for.
    const QString engineEnv = QStringLiteral("smaller-engine");
    coord::BackfillClaims(*m_db, engineEnv, 31337, QStringLiteral("P"), 10s).plan(1, 100, 10);
    auto db = PgConnection::open(m_cluster.url());
    store::pg::PgCoordination coordination(*db, engineEnv, 31337, QStringLiteral("E"), 10s);
    const QList<indexer::RangeClaim> held = coordination.claim(std::nullopt, 1, 100, 4, 2);
    QCOMPARE(held.size(), 2);
    QCOMPARE(held[0].from, 1u);
    QCOMPARE(held[0].to, 4u);
    QCOMPARE(held[1].from, 5u);
    QCOMPARE(held[1].to, 8u);
}

void TestPgCoord::checkpointFollowsOnlyTheChainedFinishedPrefix_data()
{
    // Ranges 1-10, 11-20, 21-30 finished in the given order; "bad" finishes 21-30 with a
    // parent hash that is not 20's (a range fetched from another branch).
    QTest::addColumn<QList<int>>("finishOrder");
    QTest::addColumn<bool>("thirdOnAnotherBranch");
    QTest::addColumn<QList<qint64>>("checkpointAfterEach");
    QTest::newRow("in order") << QList<int>{0, 1, 2} << false << QList<qint64>{10, 20, 30};
    QTest::newRow("the middle one first")
        << QList<int>{1, 0, 2} << false << QList<qint64>{0, 20, 30};
    QTest::newRow("last first") << QList<int>{2, 1, 0} << false << QList<qint64>{0, 0, 30};
    QTest::newRow("the third does not chain on")
        << QList<int>{0, 1, 2} << true << QList<qint64>{10, 20, 20};
}

void TestPgCoord::checkpointFollowsOnlyTheChainedFinishedPrefix()
{
    QFETCH(QList<int>, finishOrder);
    QFETCH(bool, thirdOnAnotherBranch);
    QFETCH(QList<qint64>, checkpointAfterEach);
    const QString env = QStringLiteral("prefix-%1").arg(QTest::currentDataTag());
    coord::BackfillClaims claims(*m_db, env, 31337, QStringLiteral("P"), 10s);
    coord::PrefixCheckpoint cp(*m_db, env, 31337, QStringLiteral("default"));
    auto other = PgConnection::open(m_cluster.url());
    coord::PrefixCheckpoint cp2(*other, env, 31337, QStringLiteral("default"));
    claims.plan(1, 30, 10);
    cp.initialise(0, blockHash(0));
    QList<coord::RangeClaim> held;
    for (int i = 0; i < 3; ++i)
        held << *claims.claim();
    for (int i = 0; i < 3; ++i) {
        const coord::RangeClaim& c = held[finishOrder[i]];
        const bool bad = thirdOnAnotherBranch && c.fromBlock == 21;
        m_db->begin();
        claims.finish(c, bad ? blockHash(-99) : blockHash(c.fromBlock - 1), blockHash(c.toBlock));
        m_db->commit();
        // Alternate the advancing process: either may move it, and both agree after.
        coord::PrefixCheckpoint& mover = i % 2 ? cp2 : cp;
        QCOMPARE(mover.advance().blockNumber, checkpointAfterEach[i]);
        QCOMPARE(cp.read()->blockNumber, checkpointAfterEach[i]);
        QCOMPARE(cp.read()->blockHash, blockHash(checkpointAfterEach[i]));
    }
}

void TestPgCoord::failedRangeStopsTheCheckpointBelowIt()
{
    const QString env = QStringLiteral("failing");
    coord::BackfillClaims claims(*m_db, env, 31337, QStringLiteral("F"), 10s);
    coord::PrefixCheckpoint cp(*m_db, env, 31337, QStringLiteral("default"));
    claims.plan(1, 20, 10);
    cp.initialise(0, blockHash(0));
    for (int attempt = 1; attempt <= 5; ++attempt) {
        const auto c = claims.claim();
        QVERIFY(c);
        QCOMPARE(c->fromBlock, 1); // retried, never skipped
        QCOMPARE(c->attempts, attempt);
        claims.fail(*c, QStringLiteral("eth_getLogs timed out"));
    }
    // Marked failed and shown, yet still the range claimed next: retried, never skipped.
    QCOMPARE(claims.counts().failed, 1);
    QCOMPARE(claims.firstFailed(), QStringLiteral("1-10: eth_getLogs timed out"));
    const auto retried = claims.claim();
    QVERIFY(retried);
    QCOMPARE(retried->fromBlock, 1);
    QCOMPARE(retried->attempts, 6);
    claims.fail(*retried, QStringLiteral("eth_getLogs timed out"));

    // A process started again retries it with a fresh count of attempts.
    QCOMPARE(claims.retryFailed(), 1);
    QCOMPARE(claims.counts().failed, 0);
    QCOMPARE(claims.firstFailed(), QString());
    const auto again = claims.claim();
    QVERIFY(again);
    QCOMPARE(again->fromBlock, 1);
    QCOMPARE(again->attempts, 1);
    const auto next = claims.claim();
    QVERIFY(next);
    QCOMPARE(next->fromBlock, 11);
    m_db->begin();
    claims.finish(*next, blockHash(10), blockHash(20));
    m_db->commit();
    QCOMPARE(cp.advance().blockNumber, 0); // 11-20 is done, but 1-10 is not
    QVERIFY(!claims.counts().allDone());
    m_db->begin();
    claims.finish(*again, blockHash(0), blockHash(10));
    m_db->commit();
    QCOMPARE(cp.advance().blockNumber, 20);
    QVERIFY(claims.counts().allDone());
}

void TestPgCoord::badUrlIsOneLineWithoutThePassword()
{
    try {
        PgConnection::open(QStringLiteral("postgresql://me:s3cret@127.0.0.1:1/forkscope"));
        QFAIL("connected to port 1");
    } catch (const store::pg::PgError& e) {
        QCOMPARE(e.kind(), store::StoreError::Kind::Io);
        QVERIFY2(e.message().startsWith("cannot connect to postgresql://me@127.0.0.1:1/forkscope"),
                 qPrintable(e.message()));
        QVERIFY(!e.message().contains("s3cret"));
        QVERIFY(!e.message().contains(QLatin1Char('\n')));
    }
}

void TestPgCoord::threeProcessesBackfillAndOneIsKilledMidRange()
{
    const QString env = QStringLiteral("three");
    const qint64 last = 300;
    auto workerArgs = [&](const QString& owner) {
        // 30 ranges of 10 blocks, 20 ms a block, a 1 s lease renewed every third of it.
        return QStringList{QStringLiteral("backfill"),
                           m_cluster.url(),
                           env,
                           owner,
                           QStringLiteral("1"),
                           QString::number(last),
                           QStringLiteral("10"),
                           QStringLiteral("20"),
                           QStringLiteral("1000")};
    };
    Worker w1(workerArgs(QStringLiteral("w1")));
    Worker w2(workerArgs(QStringLiteral("w2")));
    Worker w3(workerArgs(QStringLiteral("w3")));
    static const QRegularExpression claimed(QStringLiteral("^claimed "));
    // w2 is killed in the middle of its second range: claimed, not finished.
    QVERIFY2(w2.waitFor(claimed, 2, 60'000), qPrintable(w2.output()));
    const QString victimClaim = w2.lines().filter(claimed).last();
    QTest::qWait(60);
    w2.killHard();
    const QStringList parts = victimClaim.split(QLatin1Char(' '));
    const qint64 victimFrom = parts.value(1).toLongLong();

    // Invariant 1 as a reader sees it, sampled while the others work: every block at or
    // below the checkpoint has exactly one row, so nothing below it is missing or doubled.
    coord::PrefixCheckpoint cp(*m_db, env, 31337, QStringLiteral("default"));
    int samples = 0;
    while (w1.process().state() != QProcess::NotRunning ||
           w3.process().state() != QProcess::NotRunning) {
        const qint64 at = cp.read()->blockNumber;
        const auto r = m_db->run("t_sample",
                                 "SELECT count(*), count(DISTINCT block_number) FROM "
                                 "backfill_rows WHERE environment_id = $1 AND block_number <= $2",
                                 {env.toUtf8(), QByteArray::number(at)});
        QCOMPARE(r.int64(0, 0), at);
        QCOMPARE(r.int64(0, 1), at);
        ++samples;
        w1.process().waitForFinished(50);
        w3.process().waitForFinished(0);
        QVERIFY2(samples < 2400, "the backfill did not finish within two minutes");
    }
    QVERIFY2(w1.finishedCleanly(0), qPrintable(w1.output()));
    QVERIFY2(w3.finishedCleanly(0), qPrintable(w3.output()));
    QVERIFY(samples > 3);

    // The killed worker's range was taken over by a survivor, once its lease ran out.
    const QString takeover = QStringLiteral("claimed %1 ").arg(victimFrom);
    const QString both = w1.output() + QLatin1Char('\n') + w3.output();
    QVERIFY2(both.contains(QRegularExpression(QRegularExpression::escape(takeover) +
                                              QStringLiteral("\\S+ attempt 2 from w2"))),
             qPrintable(both));
    // Independent check: one row per block, each with its block's hash, no more, no less.
    const RowCheck rows = rowsOf(env);
    QCOMPARE(rows.rows, last);
    QCOMPARE(rows.distinct, last);
    QCOMPARE(rows.sum, last * (last + 1) / 2);
    QCOMPARE(rows.wrongHash, 0);
    QCOMPARE(cp.read()->blockNumber, last);
    QCOMPARE(cp.read()->blockHash, blockHash(last));
    QCOMPARE(m_db->run("t_all",
                       "SELECT count(*) FROM backfill_ranges WHERE environment_id = $1 "
                       "AND status <> 'done'",
                       {env.toUtf8()})
                 .int64(0, 0),
             0);
}

void TestPgCoord::aWorkerPastItsLeaseHasItsRowsRolledBack()
{
    const QString env = QStringLiteral("pastlease");
    // One range of 10 blocks. The slow worker needs 2 s for it and never renews its 0.5 s
    // lease (a process stalled in a long GC pause, a swap storm, a debugger).
    Worker slow({QStringLiteral("backfill"), m_cluster.url(), env, QStringLiteral("slow"),
                 QStringLiteral("1"), QStringLiteral("10"), QStringLiteral("10"),
                 QStringLiteral("200"), QStringLiteral("500"), QStringLiteral("--no-renew")});
    QVERIFY2(slow.waitFor(QRegularExpression(QStringLiteral("^claimed 1 10 attempt 1")), 1, 30'000),
             qPrintable(slow.output()));
    Worker quick({QStringLiteral("backfill"), m_cluster.url(), env, QStringLiteral("quick"),
                  QStringLiteral("1"), QStringLiteral("10"), QStringLiteral("10"),
                  QStringLiteral("1"), QStringLiteral("5000")});
    QVERIFY2(quick.finishedCleanly(30'000), qPrintable(quick.output()));
    QVERIFY2(quick.output().contains("claimed 1 10 attempt 2 from slow"),
             qPrintable(quick.output()));
    QVERIFY2(slow.finishedCleanly(30'000), qPrintable(slow.output()));
    QVERIFY2(slow.output().contains("lost 1 10 at finish"), qPrintable(slow.output()));
    const RowCheck rows = rowsOf(env);
    QCOMPARE(rows.rows, 10);
    QCOMPARE(rows.distinct, 10);
    QCOMPARE(m_db->run("t_owner",
                       "SELECT count(*) FROM backfill_rows WHERE environment_id = $1 "
                       "AND owner <> 'quick'",
                       {env.toUtf8()})
                 .int64(0, 0),
             0);
}

void TestPgCoord::exactlyOneHeadFollowerAndATakeoverWhenItDies()
{
    const QString env = QStringLiteral("head");
    auto args = [&](const QString& owner) {
        return QStringList{QStringLiteral("follow"), m_cluster.url(), env, owner,
                           QStringLiteral("100")};
    };
    Worker f1(args(QStringLiteral("f1")));
    Worker f2(args(QStringLiteral("f2")));
    static const QRegularExpression standby(QStringLiteral("^standby "));
    static const QRegularExpression leader(QStringLiteral("^leader "));
    QVERIFY(f1.waitFor(standby, 1, 30'000));
    QVERIFY(f2.waitFor(standby, 1, 30'000));
    QTRY_VERIFY_WITH_TIMEOUT(f1.count(leader) + f2.count(leader) >= 1, 15'000);
    QTest::qWait(1000); // twenty polls of the other: still exactly one follows
    QCOMPARE(f1.count(leader) + f2.count(leader), 1);
    Worker& holder = f1.count(leader) ? f1 : f2;
    Worker& waiting = f1.count(leader) ? f2 : f1;
    holder.killHard();
    // Its session closes with the process, and with it the lock: the other takes over.
    QElapsedTimer t;
    t.start();
    QVERIFY2(waiting.waitFor(leader, 1, 15'000), qPrintable(waiting.output()));
    qInfo("takeover after the kill: %lld ms", static_cast<long long>(t.elapsed()));
    QCOMPARE(waiting.count(QRegularExpression(QStringLiteral("^lost-lead"))), 0);
}

QTEST_GUILESS_MAIN(TestPgCoord)
#include "tst_pgcoord.moc"
