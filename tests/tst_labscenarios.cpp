// The four lab scenarios, each driven the way its Lab menu entry drives it
// (one EngineHost call) against a managed lab, and checked in what the app shows (the
// status) and in the database (the invariant verdict).
#include "engine/EngineHost.h"
#include "engine/TablePage.h"
#include "health/NodeHealthMonitor.h"
#include "store/Database.h"

#include <QRegularExpression>
#include <QSqlQuery>

#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace forkscope;
using V = engine::InvariantVerdict::State;

class TestLabScenarios : public QObject
{
    Q_OBJECT
private slots:
    void forkedReplicaShowsForkedAndTheIndexerGoesOn();
    void secondWriterIsRefusedAndNothingIsDoubled();
    void lostAcknowledgementIsCorrectedByExpectedFromBlock();
    void outboxLostAcknowledgementIsSentAgainWithTheSameKey();
    void deepReorgStopsUntilTheUserChooses();
    void faultLogSaysOnlyWhatChanged_data();
    void faultLogSaysOnlyWhatChanged();
    void demoMovesAmountsATokenInUseWould();
};

namespace {

struct Lab
{
    QTemporaryDir dir;
    engine::EngineHost host;
    engine::EngineStatus last;
    QStringList log;
    explicit Lab(int nodes, quint64 maxReorgDepth = 64)
    {
        QObject::connect(&host, &engine::EngineHost::statusAvailable, &host,
                         [this](const engine::EngineStatus& s) { last = s; });
        QObject::connect(&host, &engine::EngineHost::logMessage, &host,
                         [this](const QString&, const QString& t) { log << t; });
        engine::EngineConfig c;
        c.dbPath = dir.filePath("lab.sqlite");
        c.labNodes = nodes;
        c.demoInterval = std::chrono::milliseconds(400);
        c.demoTransfersPerTick = 2;
        c.indexer.pollInterval = std::chrono::milliseconds(100);
        c.indexer.maxReorgDepth = maxReorgDepth;
        host.start(c);
    }
    bool logged(const QString& part) const
    {
        return std::any_of(log.cbegin(), log.cend(),
                           [&](const QString& l) { return l.contains(part); });
    }
    ~Lab()
    {
        host.shutdown();
        host.waitForStopped();
    }
};

bool verdictHolds(const engine::EngineStatus& s, const QString& action)
{
    return s.verdict.action.contains(action) && s.verdict.state == V::Holds;
}

} // namespace

void TestLabScenarios::forkedReplicaShowsForkedAndTheIndexerGoesOn()
{
    Lab lab(2);
    QTRY_VERIFY_WITH_TIMEOUT(lab.last.labReady && lab.last.checkpoint.value_or(0) >= 4, 60000);
    lab.host.startForkedReplica();
    QTRY_VERIFY_WITH_TIMEOUT(!lab.last.replicaUrl.isEmpty(), 30000);
    const auto node2 = [&lab] {
        return lab.last.health.nodes.size() == 2
                   ? health::nodeStateName(lab.last.health.nodes.at(1).state) + " head " +
                         QString::number(lab.last.health.nodes.at(1).head.value_or(0))
                   : QStringLiteral("no node 2");
    };
    QTRY_VERIFY2_WITH_TIMEOUT(node2().startsWith("forked"),
                              qPrintable(node2() + "\n" + lab.log.join('\n')), 30000);
    QCOMPARE(lab.last.health.nodes.at(0).state, health::NodeState::CaughtUp);
    // The indexer reads node 1: it goes on, and its data is still exactly the lab's chain.
    const quint64 before = lab.last.checkpoint.value_or(0);
    QTRY_VERIFY_WITH_TIMEOUT(lab.last.checkpoint.value_or(0) >= before + 2, 30000);
    QTRY_VERIFY_WITH_TIMEOUT(verdictHolds(lab.last, "forked replica"), 30000);
    // The ready height is the height enough nodes agree on: node 2 agrees only up to its
    // fork, so with both needed (ready ratio 0.8 of two) it is the fork, not node 2's head.
    quint64 forkAt = 0;
    for (const QString& l : lab.log) {
        const auto m = QRegularExpression("forked from the lab's chain at block (\\d+)").match(l);
        if (m.hasMatch())
            forkAt = m.captured(1).toULongLong();
    }
    QVERIFY(forkAt > 0);
    QTRY_COMPARE_WITH_TIMEOUT(lab.last.health.readyHeight.value_or(0), forkAt, 30000);
    QVERIFY(lab.last.health.nodes.at(1).head.value_or(0) > forkAt);
}

void TestLabScenarios::secondWriterIsRefusedAndNothingIsDoubled()
{
    Lab lab(1);
    QTRY_VERIFY_WITH_TIMEOUT(lab.last.labReady && lab.last.checkpoint.has_value(), 60000);
    lab.host.startSecondWriter(6);
    QTRY_VERIFY_WITH_TIMEOUT(lab.last.secondWriterRunning, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(!lab.last.secondWriterRunning, 30000);
    // The compare-and-swap refused commits (the second writer's, or the first's when the
    // second won a block), and said so in the event log.
    QVERIFY2(lab.last.secondWriterRefusals + lab.last.checkpointConflicts >= 1,
             qPrintable(lab.log.join('\n')));
    QVERIFY(lab.logged("the second writer stopped"));
    // Both sides of the race are said: this indexer's refusals are not only "in its status".
    QVERIFY2(lab.logged(QStringLiteral("this indexer was refused %1 times while they raced")
                            .arg(lab.last.checkpointConflicts)),
             qPrintable(lab.log.join('\n')));
    QTRY_VERIFY_WITH_TIMEOUT(verdictHolds(lab.last, "two writers"), 30000);
}

void TestLabScenarios::lostAcknowledgementIsCorrectedByExpectedFromBlock()
{
    Lab lab(1);
    QTRY_VERIFY_WITH_TIMEOUT(lab.last.labReady && lab.last.checkpoint.has_value(), 60000);
    lab.host.setDemoTraffic(false, 1);
    QTRY_VERIFY_WITH_TIMEOUT(!lab.last.demoTraffic, 10000);
    const qint64 rejected = lab.last.rejectedBatches;
    lab.host.loseNextAcknowledgement();
    QTRY_VERIFY_WITH_TIMEOUT(lab.logged("lost acknowledgement: batch"), 30000);
    QVERIFY(lab.logged("nothing applied twice"));
    QTRY_VERIFY_WITH_TIMEOUT(lab.last.rejectedBatches > rejected, 10000);
    // The verdict follows the exchange, asked by nobody.
    QTRY_VERIFY_WITH_TIMEOUT(verdictHolds(lab.last, "a lost acknowledgement (batch"), 30000);
}

void TestLabScenarios::outboxLostAcknowledgementIsSentAgainWithTheSameKey()
{
    // Delivered, the acknowledgement lost, sent again with the same key: the lab's receiver
    // applies it once, and the database marks it delivered once.
    Lab lab(1);
    QTRY_VERIFY_WITH_TIMEOUT(lab.last.labReady && lab.last.checkpoint.has_value(), 60000);
    lab.host.setDemoTraffic(false, 1);
    QTRY_VERIFY_WITH_TIMEOUT(!lab.last.demoTraffic, 10000);
    lab.host.loseNextOutboxAcknowledgement();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last.verdict.action.contains("outbox acknowledgement") &&
                                 lab.last.verdict.state != V::Checking,
                             90000);
    QVERIFY2(lab.last.verdict.state == V::Holds,
             qPrintable(lab.last.verdict.summary + "\n" + lab.log.join('\n')));
    const auto m = QRegularExpression("row (\\S+) was applied by the receiver and its "
                                      "acknowledgement lost; it arrived (\\d+) times")
                       .match(lab.last.verdict.summary);
    QVERIFY2(m.hasMatch(), qPrintable(lab.last.verdict.summary));
    QVERIFY(m.captured(2).toInt() >= 2);
    QVERIFY(lab.last.outboxSink.startsWith("http://127.0.0.1:"));
    // The database, read here: one row for that key, delivered.
    auto db = store::Database::open(lab.dir.filePath("lab.sqlite"));
    QSqlQuery q = db->run("SELECT count(*), count(delivered_at) FROM outbox WHERE event_key = ?",
                          {m.captured(1)});
    QVERIFY(q.next());
    QCOMPARE(q.value(0).toLongLong(), 1);
    QCOMPARE(q.value(1).toLongLong(), 1);
}

void TestLabScenarios::deepReorgStopsUntilTheUserChooses()
{
    Lab lab(1, 3);
    QTRY_VERIFY_WITH_TIMEOUT(lab.last.labReady && lab.last.checkpoint.has_value(), 60000);
    lab.host.setDemoTraffic(false, 1);
    lab.host.injectDeepReorg();
    // A stopped state that says what happened, with nothing deleted.
    QTRY_COMPARE_WITH_TIMEOUT(lab.last.deepReorgLimit, quint64(3), 60000);
    QVERIFY2(lab.last.indexerState.contains("deeper than the limit"),
             qPrintable(lab.last.indexerState));
    QVERIFY(lab.last.message.contains("Nothing was deleted"));
    // The verdict says what is true now, at once: not "checking" for ever.
    QTRY_COMPARE_WITH_TIMEOUT(lab.last.verdict.state, V::Diverged, 30000);
    lab.host.checkInvariants(QStringLiteral("a check while stopped"));
    QTRY_VERIFY_WITH_TIMEOUT(lab.last.verdict.action == "a check while stopped" &&
                                 lab.last.verdict.state == V::Diverged,
                             10000);
    const qint64 reorgs = lab.last.recentReorgs.size();
    const auto checkpoint = lab.last.checkpoint;
    QTest::qWait(1500);
    QCOMPARE(lab.last.recentReorgs.size(), reorgs);
    QCOMPARE(lab.last.checkpoint, checkpoint);
    // The user raises the limit: indexing continues and rolls back as far as the fork.
    lab.host.raiseReorgLimit(16);
    QTRY_COMPARE_WITH_TIMEOUT(lab.last.deepReorgLimit, quint64(0), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(lab.last.recentReorgs.size(), reorgs + 1, 30000);
    QVERIFY(lab.last.recentReorgs.last().depth > 3);
    QTRY_VERIFY_WITH_TIMEOUT(verdictHolds(lab.last, "raising the reorg limit"), 30000);
}

void TestLabScenarios::faultLogSaysOnlyWhatChanged_data()
{
    QTest::addColumn<QString>("knob");
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("logged");
    QTest::newRow("a latency") << "latencyMs" << QJsonValue(200)
                               << "lab: node 2 now delays each reply by 200 ms";
    QTest::newRow("offline") << "offline" << QJsonValue(true) << "lab: node 2 now goes offline";
    QTest::newRow("nothing") << QString() << QJsonValue()
                             << "lab: node 2 unchanged (its knobs were already so)";
}

void TestLabScenarios::faultLogSaysOnlyWhatChanged()
{
    QFETCH(QString, knob);
    QFETCH(QJsonValue, value);
    QFETCH(QString, logged);
    Lab lab(2);
    QTRY_VERIFY_WITH_TIMEOUT(lab.last.labReady && lab.last.proxyKnobs.size() == 2, 60000);
    // What the Fault proxy dialog sends: every knob it shows, most of them unchanged.
    QJsonObject sent;
    for (const char* key : {"offline", "latencyMs", "errorRate", "lagBlocks", "logCap",
                            "logCapMode", "dropLogRate", "dropBlockRate", "dropInReceipts"})
        sent.insert(key, lab.last.proxyKnobs.at(1).value(key));
    if (!knob.isEmpty())
        sent.insert(knob, value);
    lab.host.setProxyKnobs(1, sent);
    QTRY_VERIFY2_WITH_TIMEOUT(lab.logged(logged), qPrintable(lab.log.join('\n')), 10000);
    // Nothing it did not do: a node that was never offline does not "come back online".
    for (const QString& line : std::as_const(lab.log))
        if (line.startsWith("lab: node 2"))
            QCOMPARE(line, logged);
}

void TestLabScenarios::demoMovesAmountsATokenInUseWould()
{
    Lab lab(0);
    QTRY_VERIFY_WITH_TIMEOUT(lab.last.labReady && lab.last.checkpoint.value_or(0) >= 4, 60000);
    QList<engine::TablePage> pages;
    QObject::connect(&lab.host, &engine::EngineHost::tablePageAvailable, &lab.host,
                     [&pages](const engine::TablePage& p) { pages << p; });
    // Asks for a page of transfers as the Transfers tab does; returns its ticket.
    const auto ask = [&](const QString& environment) {
        engine::TableRequest r;
        r.kind = engine::TableRequest::Kind::Transfers;
        r.environmentId = environment;
        r.limit = 50;
        r.ticket = quint64(pages.size()) + 100;
        lab.host.requestTablePage(r);
        return r.ticket;
    };
    const quint64 live = ask(QString());
    QTRY_VERIFY_WITH_TIMEOUT(!pages.isEmpty() && pages.last().request.ticket == live, 10000);
    const engine::TablePage page = pages.last();
    QVERIFY2(page.error.isEmpty(), qPrintable(page.error));
    QVERIFY(page.rows.size() >= 4);
    const engine::AmountColumns at = engine::amountColumns(page.request.kind);
    const QString token = page.rows.first().value(at.token);
    QCOMPARE(page.tokens.value(token), (chain::TokenInfo{18, "FSD"}));
    int payments = 0;
    for (const QStringList& row : page.rows) {
        if (row.value(5) == "0x0000000000000000000000000000000000000000")
            continue; // the mint
        ++payments;
        // 0.01 to 99.99 FSD: a payment, not a few base units.
        const QString shown =
            chain::formatTokenAmount(row.value(at.amount), page.tokens.value(token));
        const double fsd = shown.chopped(4).remove(',').toDouble();
        QVERIFY2(fsd >= 0.01 && fsd < 100, qPrintable(shown));
        // The block's time is there too.
        QVERIFY2(QDateTime::fromString(row.value(1), Qt::ISODate).isValid(),
                 qPrintable(row.value(1)));
    }
    QVERIFY(payments >= 3);
    // After a lab reset the archived environment's window still reads FSD: what was read
    // while it was live.
    const QString archived = lab.last.environmentId;
    lab.host.resetLab();
    QTRY_VERIFY_WITH_TIMEOUT(lab.last.labReady && lab.last.environmentId != archived, 60000);
    const quint64 asked = ask(archived);
    QTRY_VERIFY_WITH_TIMEOUT(pages.last().request.ticket == asked, 10000);
    const engine::TablePage old = pages.last();
    QVERIFY2(old.error.isEmpty(), qPrintable(old.error));
    QCOMPARE(old.tokens.value(token), (chain::TokenInfo{18, "FSD"}));
}

QTEST_GUILESS_MAIN(TestLabScenarios)
#include "tst_labscenarios.moc"
