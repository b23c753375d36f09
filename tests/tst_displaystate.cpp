// The one state model behind every status text (engine/DisplayState.h): which state an
// engine snapshot is in, and the texts it drives. Each state gets a row; the texts the
// issue saw contradict each other ("synced" with lag 1, "ETA" while paused, "-1353
// events/s", "lag unknown blocks") are rows of their own.
#include "engine/DisplayState.h"
#include "engine/LagDamper.h"
#include "engine/RateWindow.h"

#include <QtTest>

using namespace forkscope;
using engine::DisplayState;
using engine::EngineStatus;
using C = EngineStatus::Connection;
using K = DisplayState::Kind;
using T = DisplayState::Tone;

namespace {

// A running, connected indexer at the head: each row changes what makes its state.
EngineStatus running()
{
    EngineStatus s;
    s.connection = C::Connected;
    s.environmentId = QStringLiteral("lab-20261201-183600-1a2b");
    s.chainId = 31337;
    s.headBlock = 100;
    s.checkpoint = 100;
    s.eventsPerSecond = 840;
    s.blocksPerSecond = 10;
    s.lastCommitAt = QDateTime(QDate(2026, 12, 1), QTime(12, 0, 0), Qt::UTC);
    return s;
}

const QDateTime kNow = QDateTime(QDate(2026, 12, 1), QTime(12, 0, 2), Qt::UTC);

using Feed = QList<std::pair<int, int>>;

} // namespace

class TestDisplayState : public QObject
{
    Q_OBJECT
private slots:
    void states_data();
    void states();
    void texts_data();
    void texts();
    void plurals_data();
    void plurals();
    void nodeLabels_data();
    void nodeLabels();
    void everyProblemIsSaid_data();
    void everyProblemIsSaid();
    void indexerCommands_data();
    void indexerCommands();
    void lagHoldsForAMoment_data();
    void lagHoldsForAMoment();
    void ratesOverAWindow_data();
    void ratesOverAWindow();
};

void TestDisplayState::states_data()
{
    QTest::addColumn<EngineStatus>("status");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("tone");
    QTest::addColumn<bool>("eta");

    EngineStatus s = running();
    QTest::newRow("synced") << s << int(K::Synced) << "synced" << int(T::Good) << false;

    s = running();
    s.headBlock = 101; // the head moved since the last commit: not "synced" with lag 1
    QTest::newRow("lag 1 is syncing")
        << s << int(K::Syncing) << "syncing" << int(T::Neutral) << true;

    s = running();
    s.health.bestHead = 110; // the indexed node itself is 10 behind another watched node
    QTest::newRow("indexed node behind")
        << s << int(K::Syncing) << "syncing" << int(T::Neutral) << true;

    s = running();
    s.health.bestHead = 102; // within the polls' skew
    QTest::newRow("node behind within tolerance")
        << s << int(K::Synced) << "synced" << int(T::Good) << false;

    s = running();
    s.connection = C::Starting;
    s.environmentId.clear();
    s.headBlock.reset();
    QTest::newRow("starting") << s << int(K::Starting) << "starting" << int(T::Neutral) << false;

    s = running();
    s.indexingPaused = true;
    s.headBlock = 150;
    QTest::newRow("paused, behind: no ETA")
        << s << int(K::Paused) << "paused" << int(T::Warning) << false;

    s = running();
    s.connection = C::Stopped;
    QTest::newRow("stopped, was synced")
        << s << int(K::Stopped) << "stopped" << int(T::Warning) << false;

    s = running();
    s.connection = C::Unreachable;
    s.message = QStringLiteral("connection refused");
    QTest::newRow("node unreachable")
        << s << int(K::NodeUnreachable) << "node unreachable" << int(T::Bad) << false;

    s = running();
    s.openAlerts << indexer::CompletenessAlert{};
    QTest::newRow("data incomplete outranks synced")
        << s << int(K::DataIncomplete) << "data incomplete" << int(T::Bad) << false;

    s.indexingPaused = true;
    QTest::newRow("data incomplete outranks paused")
        << s << int(K::DataIncomplete) << "data incomplete" << int(T::Bad) << false;

    s = running();
    s.connection = C::Failed;
    s.message = QStringLiteral("database /tmp is a directory");
    QTest::newRow("failed names its reason")
        << s << int(K::Failed) << "failed: database /tmp is a directory" << int(T::Bad) << false;

    s.openAlerts << indexer::CompletenessAlert{};
    QTest::newRow("failed outranks data incomplete")
        << s << int(K::Failed) << "failed: database /tmp is a directory" << int(T::Bad) << false;

    s = running();
    s.indexerFailure = QStringLiteral("no contracts configured: indexing is off");
    QTest::newRow("an indexer that will not retry has failed")
        << s << int(K::Failed) << "failed: no contracts configured: indexing is off" << int(T::Bad)
        << false;

    s.connection = C::Stopped;
    QTest::newRow("stopped after it failed")
        << s << int(K::Stopped) << "stopped" << int(T::Warning) << false;

    // A dead --rpc node is named as what is wrong, not the contracts nobody configured yet.
    s = running();
    s.connection = C::Unreachable;
    s.endpoint = QStringLiteral("http://127.0.0.1:9");
    s.message = QStringLiteral("connection refused");
    s.indexerFailure = QStringLiteral("no contracts configured: indexing is off");
    s.indexerHalt = EngineStatus::IndexerHalt::NoContracts;
    QTest::newRow("dead node without contracts is unreachable")
        << s << int(K::NodeUnreachable) << "node unreachable" << int(T::Bad) << false;

    // A database the indexer cannot use is what to fix first: the node can wait.
    s.indexerFailure = QStringLiteral("database /tmp is a directory");
    s.indexerHalt = EngineStatus::IndexerHalt::Database;
    QTest::newRow("unusable database outranks a dead node")
        << s << int(K::Failed) << "failed: database /tmp is a directory" << int(T::Bad) << false;

    // The user stopped the managed anvil: an outage chosen on purpose, not an error.
    s = running();
    s.managedDevnet = true;
    s.devnetStoppedByUser = true;
    s.connection = C::Unreachable;
    s.message = QStringLiteral("HTTP 502");
    QTest::newRow("devnet stopped on purpose")
        << s << int(K::DevnetStopped) << "devnet stopped" << int(T::Warning) << false;

    // The held lag decides: a block that arrived a moment ago is not "syncing".
    s = running();
    s.headBlock = 101;
    s.lagHeldSet = true;
    s.heldLag = 0;
    QTest::newRow("held lag 0 with a new block is synced")
        << s << int(K::Synced) << "synced" << int(T::Good) << false;
    s.heldLag = 1;
    QTest::newRow("held lag 1 is syncing")
        << s << int(K::Syncing) << "syncing" << int(T::Neutral) << true;
}

void TestDisplayState::everyProblemIsSaid_data()
{
    QTest::addColumn<EngineStatus>("status");
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QStringList>("also");

    EngineStatus s = running();
    s.connection = C::Unreachable;
    s.endpoint = QStringLiteral("http://127.0.0.1:9");
    s.message = QStringLiteral("connection refused");
    s.indexerFailure = QStringLiteral("no contracts configured");
    QTest::newRow("unreachable, and no contracts")
        << s << "http://127.0.0.1:9: connection refused"
        << QStringList{QStringLiteral("no contracts configured")};

    s.message = QStringLiteral("http://127.0.0.1:9: connection refused");
    QTest::newRow("a message naming the URL is not prefixed twice")
        << s << "http://127.0.0.1:9: connection refused"
        << QStringList{QStringLiteral("no contracts configured")};

    s = running();
    s.managedDevnet = true;
    s.devnetStoppedByUser = true;
    s.connection = C::Unreachable;
    s.endpoint = QStringLiteral("http://127.0.0.1:8545");
    QTest::newRow("the devnet stopped: the node not answering is not a problem of its own")
        << s << QString() << QStringList();

    s = running();
    s.indexerFailure = QStringLiteral("reorg deeper than the limit");
    QTest::newRow("one problem, nothing else")
        << s << "reorg deeper than the limit" << QStringList();
}

void TestDisplayState::everyProblemIsSaid()
{
    QFETCH(EngineStatus, status);
    QFETCH(QString, reason);
    QFETCH(QStringList, also);
    const DisplayState d = engine::displayState(status);
    QCOMPARE(d.reason, reason);
    QCOMPARE(d.also, also);
}

void TestDisplayState::indexerCommands_data()
{
    // Pause and Verify are offered only with an indexer to act on, whichever problem the
    // state names first.
    QTest::addColumn<EngineStatus>("status");
    QTest::addColumn<bool>("offered");

    EngineStatus s = running();
    QTest::newRow("running") << s << true;
    s.indexingPaused = true;
    QTest::newRow("paused: Resume is the way on") << s << true;

    s = running();
    s.connection = C::Unreachable;
    s.message = QStringLiteral("connection refused");
    QTest::newRow("unreachable, the indexer retries") << s << true;
    s.indexerFailure = QStringLiteral("no contracts configured: indexing is off");
    s.indexerHalt = EngineStatus::IndexerHalt::NoContracts;
    QTest::newRow("unreachable and no contracts: nothing to pause") << s << false;

    s = running();
    s.openAlerts << indexer::CompletenessAlert{};
    QTest::newRow("data incomplete, retried") << s << true;
    s.indexerFailure = QStringLiteral("reorg deeper than the limit");
    s.indexerHalt = EngineStatus::IndexerHalt::DeepReorg;
    QTest::newRow("data incomplete over a deep-reorg stop") << s << false;

    s = running();
    s.connection = C::Failed;
    QTest::newRow("engine failed") << s << false;
    s.connection = C::Stopped;
    QTest::newRow("engine stopped") << s << false;
}

void TestDisplayState::indexerCommands()
{
    QFETCH(EngineStatus, status);
    QFETCH(bool, offered);
    QCOMPARE(engine::indexerCommandable(status), offered);
}

void TestDisplayState::lagHoldsForAMoment_data()
{
    // (ms, lag) fed in order; the held lag after each.
    QTest::addColumn<Feed>("feed");
    QTest::addColumn<QList<int>>("held");
    QTest::newRow("a block every second, polled a moment later: synced throughout")
        << Feed{{0, 0}, {900, 1}, {1000, 0}, {1900, 1}, {2000, 0}, {2900, 1}, {3000, 0}, {3900, 1}}
        << QList<int>{0, 0, 0, 0, 0, 0, 0, 0};
    QTest::newRow("falling behind shows once it held for the moment")
        << Feed{{0, 0}, {1000, 1}, {2000, 2}, {3000, 3}, {4000, 4}, {5000, 5}}
        << QList<int>{0, 0, 0, 0, 1, 2};
    QTest::newRow("catching up shows at once")
        << Feed{{0, 50}, {4000, 40}, {4500, 0}} << QList<int>{50, 40, 0};
    QTest::newRow("unknown is said at once and starts again")
        << Feed{{0, 0}, {100, -1}, {200, 5}} << QList<int>{0, -1, 5};
}

void TestDisplayState::lagHoldsForAMoment()
{
    QFETCH(Feed, feed);
    QFETCH(QList<int>, held);
    engine::LagDamper damper;
    for (qsizetype i = 0; i < feed.size(); ++i) {
        const auto [ms, lag] = feed[i];
        const auto got = damper.hold(lag < 0 ? std::nullopt : std::optional<quint64>(lag), ms);
        QCOMPARE(got ? int(*got) : -1, held[i]);
    }
}

void TestDisplayState::ratesOverAWindow_data()
{
    // Ten transfers a second in one block a second, sampled every 250 ms: the rate is never
    // 0 once a block is in the window, never twice the rate.
    QTest::addColumn<int>("eventsPerBlock");
    QTest::addColumn<int>("samples");
    QTest::newRow("10 a second") << 10 << 60;
    QTest::newRow("1 a second") << 1 << 60;
}

void TestDisplayState::ratesOverAWindow()
{
    QFETCH(int, eventsPerBlock);
    QFETCH(int, samples);
    engine::RateWindow w;
    for (int i = 0; i < samples; ++i) {
        const qint64 ms = qint64(i) * 250;
        const qint64 blocks = ms / 1000; // a block at every whole second
        w.add(ms, blocks * eventsPerBlock, blocks);
        if (ms >= 2000) {
            QVERIFY2(w.eventsPerSecond() >= eventsPerBlock * 0.5,
                     qPrintable(QStringLiteral("%1 at %2 ms").arg(w.eventsPerSecond()).arg(ms)));
            QVERIFY2(w.eventsPerSecond() <= eventsPerBlock * 1.5,
                     qPrintable(QStringLiteral("%1 at %2 ms").arg(w.eventsPerSecond()).arg(ms)));
        }
    }
    // A new indexer's counters start again: no negative rate, no burst.
    w.add(samples * 250, 0, 0);
    QCOMPARE(w.eventsPerSecond(), 0.0);
}

void TestDisplayState::states()
{
    QFETCH(EngineStatus, status);
    QFETCH(int, kind);
    QFETCH(QString, text);
    QFETCH(int, tone);
    QFETCH(bool, eta);
    const DisplayState d = engine::displayState(status);
    QCOMPARE(int(d.kind), kind);
    QCOMPARE(d.text(), text);
    QCOMPARE(int(d.tone()), tone);
    QCOMPARE(d.showsEta(), eta);
    // The header the cursor panel shows starts with the same state, always.
    QVERIFY2(engine::text::cursorHeader(status, kNow).startsWith(text),
             qPrintable(engine::text::cursorHeader(status, kNow)));
}

void TestDisplayState::texts_data()
{
    QTest::addColumn<EngineStatus>("status");
    QTest::addColumn<QString>("header");

    EngineStatus s = running();
    QTest::newRow("synced") << s << "synced | lag 0 blocks | 840 events/s | last commit 2.0 s ago";

    s = running();
    s.headBlock = 160;
    QTest::newRow("syncing with ETA")
        << s << "syncing | lag 60 blocks | ETA 6.0 s | 840 events/s | last commit 2.0 s ago";

    s.blocksPerSecond = 0;
    QTest::newRow("syncing, nothing committing")
        << s << "syncing | lag 60 blocks | ETA unknown | 840 events/s | last commit 2.0 s ago";

    s = running();
    s.headBlock = 101;
    s.blocksPerSecond = 10;
    QTest::newRow("one block") << s
                               << "syncing | lag 1 block | ETA 0.1 s | 840 events/s | last "
                                  "commit 2.0 s ago";

    s = running();
    s.headBlock = 160;
    s.indexingPaused = true;
    QTest::newRow("paused: no ETA, no rate")
        << s << "paused | lag 60 blocks | last commit 2.0 s ago";

    s = running();
    s.connection = C::Stopped;
    QTest::newRow("stopped: no rate") << s << "stopped | lag 0 blocks | last commit 2.0 s ago";

    s = running();
    s.eventsPerSecond = -1353; // counters restarted by a reset
    QTest::newRow("negative rate shows 0")
        << s << "synced | lag 0 blocks | 0 events/s | last commit 2.0 s ago";

    s = running();
    s.connection = C::Unreachable;
    QTest::newRow("unreachable: lag unknown once")
        << s << "node unreachable | lag unknown | last commit 2.0 s ago";

    s = running();
    s.health.bestHead = 110;
    QTest::newRow("indexed node behind says why")
        << s
        << "syncing (the indexed node is 10 blocks behind the best watched node) | lag 0 blocks "
           "| 840 events/s | last commit 2.0 s ago";

    s = running();
    s.lastCommitAt = QDateTime();
    s.checkpoint.reset();
    // Nothing indexed yet: the whole chain is to go (IndexerStatus::cursorLag).
    QTest::newRow("nothing committed")
        << s << "syncing | lag 100 blocks | ETA 10 s | 840 events/s | nothing committed yet";

    s = running();
    s.openAlerts << indexer::CompletenessAlert{};
    s.endpoint = QStringLiteral("http://127.0.0.1:8545");
    health::NodeHealth indexed; // health polls on after the indexer stopped at 100
    indexed.url = s.endpoint;
    indexed.state = health::NodeState::DroppingLogs;
    indexed.head = 103;
    s.health.nodes << indexed;
    s.eventsPerSecond = 0; // stopped at the hole
    QTest::newRow("a stopped indexer's lag follows its node")
        << s << "data incomplete | lag 3 blocks | 0 events/s | last commit 2.0 s ago";

    s = running();
    s.lastCommitAt = kNow.addSecs(5); // clocks disagree: not "unknown ago"
    QTest::newRow("commit in the future")
        << s << "synced | lag 0 blocks | 840 events/s | last commit 0.0 s ago";
}

void TestDisplayState::texts()
{
    QFETCH(EngineStatus, status);
    QFETCH(QString, header);
    QCOMPARE(engine::text::cursorHeader(status, kNow), header);
}

void TestDisplayState::plurals_data()
{
    QTest::addColumn<qint64>("n");
    QTest::addColumn<QString>("text");
    QTest::newRow("0") << qint64(0) << "0 blocks";
    QTest::newRow("1") << qint64(1) << "1 block";
    QTest::newRow("2") << qint64(2) << "2 blocks";
}

void TestDisplayState::plurals()
{
    QFETCH(qint64, n);
    QFETCH(QString, text);
    QCOMPARE(engine::text::count(n, "block", "blocks"), text);
    QCOMPARE(engine::text::lag(quint64(n)), "lag " + text);
    QCOMPARE(engine::text::lag(std::nullopt), QStringLiteral("lag unknown"));
    QCOMPARE(engine::text::rate(qQNaN(), "events"), QStringLiteral("0 events/s"));
}

void TestDisplayState::nodeLabels_data()
{
    QTest::addColumn<bool>("managed");
    QTest::addColumn<QString>("endpoint");
    QTest::addColumn<QStringList>("labNodes");
    QTest::addColumn<QString>("label");

    const QString proxy = QStringLiteral("http://127.0.0.1:45241");
    const QString anvil = QStringLiteral("http://127.0.0.1:34211");
    QTest::newRow("external node")
        << false << "https://rpc.example" << QStringList() << "node: https://rpc.example";
    QTest::newRow("external, not connected yet")
        << false << QString() << QStringList() << "node: starting...";
    QTest::newRow("managed, starting")
        << true << QString() << QStringList() << "managed anvil: starting...";
    // The indexer reads a fault proxy: called anvil, a user would point a tool at it and
    // meet the faults the lab injects.
    QTest::newRow("managed, read through a lab node")
        << true << proxy << QStringList{proxy, QStringLiteral("http://127.0.0.1:45527")}
        << "lab node: http://127.0.0.1:45241 (fault proxy in front of the managed anvil)";
    QTest::newRow("managed, no lab nodes")
        << true << anvil << QStringList() << "managed anvil: http://127.0.0.1:34211";
}

void TestDisplayState::nodeLabels()
{
    QFETCH(bool, managed);
    QFETCH(QString, endpoint);
    QFETCH(QStringList, labNodes);
    QFETCH(QString, label);
    EngineStatus s;
    s.managedDevnet = managed;
    s.endpoint = endpoint;
    s.labNodes = labNodes;
    QCOMPARE(engine::text::nodeLabel(s), label);
}

QTEST_GUILESS_MAIN(TestDisplayState)
#include "tst_displaystate.moc"
