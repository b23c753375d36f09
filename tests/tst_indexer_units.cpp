// Pure pieces of the indexer: Transfer decoding, signed balances, checkpoint
// compare-and-swap on a real SQLite file.
#include "audit/BalanceRebuild.h"
#include "chain/Address.h"
#include "indexer/AbsenceAlertPlan.h"
#include "indexer/AbsenceCheck.h"
#include "indexer/ArgsTemplate.h"
#include "indexer/BalanceBook.h"
#include "indexer/CheckpointStore.h"
#include "indexer/FetchWindow.h"
#include "indexer/IndexerErrors.h"
#include "indexer/ReorgRollback.h"
#include "indexer/TransferDecoder.h"
#include "store/Database.h"
#include "store/StoreError.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace forkscope;
using namespace forkscope::indexer;

namespace {
chain::Hash32 addressTopic(const char* hex40)
{
    return chain::Hash32::fromHex(
        QStringLiteral("0x000000000000000000000000") + QLatin1String(hex40), "topic");
}
chain::Hash32 hashOf(char fill)
{
    return chain::Hash32::fromBytes(QByteArray(32, fill), "h");
}
} // namespace

class TestIndexerUnits : public QObject
{
    Q_OBJECT
private slots:
    void fetchWindow_data();
    void fetchWindow();
    void absenceWindow_data();
    void absenceWindow();
    void blocksWithAbsentLogs_data();
    void blocksWithAbsentLogs();
    void absenceAlertPlan_data();
    void absenceAlertPlan();
    void argsTemplates_data();
    void argsTemplates();
    void decode_data();
    void decode();
    void signedAmounts_data();
    void signedAmounts();
    void checkpointCompareAndSwap();
    void balanceRevertTakesBackRemovedTransfers();
    void balanceRevertFindsEachStoredRow_data();
    void balanceRevertFindsEachStoredRow();
    void balanceRevertStopsAtADamagedRowAndStartsAfresh();
    void balanceRowsAreSafeToReplace();
    void balanceRebuildCorrectsEveryRowAsText();
    void rollbackSaysWhatItUndid_data();
    void rollbackSaysWhatItUndid();
};

void TestIndexerUnits::fetchWindow_data()
{
    // With --batch-size 200 (the default): ranges of at most 10,000 logs, 32,000 ahead.
    QTest::addColumn<quint64>("current");
    QTest::addColumn<qint64>("logs");
    QTest::addColumn<qint64>("blocks");
    QTest::addColumn<quint64>("next");
    QTest::addColumn<int>("depth"); // with 4 workers, after a range of `logs`
    // 51 logs a block (the 100k workload): 10,200 a range is close enough, nothing changes.
    QTest::newRow("100k workload")
        << quint64(200) << qint64(10200) << qint64(200) << quint64(200) << 3;
    // 99 a block (the 1M workload): half the blocks, so a range stays ~10,000 logs.
    QTest::newRow("dense: shrink")
        << quint64(200) << qint64(19800) << qint64(200) << quint64(101) << 2;
    QTest::newRow("dense, settled")
        << quint64(101) << qint64(9999) << qint64(101) << quint64(101) << 3;
    // A sparse stretch after a dense one: back up, never above --batch-size.
    QTest::newRow("sparse again") << quint64(50) << qint64(100) << qint64(50) << quint64(200) << 8;
    QTest::newRow("no logs") << quint64(200) << qint64(0) << qint64(200) << quint64(200) << 8;
    // One huge block: a range of one block, two ranges ahead.
    QTest::newRow("one huge block")
        << quint64(200) << qint64(60000) << qint64(200) << quint64(33) << 2;
    QTest::newRow("a block of 60,000")
        << quint64(33) << qint64(60000) << qint64(1) << quint64(1) << 2;
    // Small drifts re-plan nothing (re-planning discards what is in flight).
    QTest::newRow("drift down") << quint64(200) << qint64(13000) << qint64(200) << quint64(200)
                                << 2;
    QTest::newRow("drift up") << quint64(120) << qint64(8000) << qint64(120) << quint64(120) << 4;
}

void TestIndexerUnits::fetchWindow()
{
    QFETCH(quint64, current);
    QFETCH(qint64, logs);
    QFETCH(qint64, blocks);
    QFETCH(quint64, next);
    QFETCH(int, depth);
    QCOMPARE(quint64(fetch_window::rangeBlocks(current, logs, blocks, 200)), next);
    QCOMPARE(fetch_window::depth(logs, 4), depth);
    // Before any range: two ahead.
    QCOMPARE(fetch_window::depth(fetch_window::kUnknownLogsPerRange, 4), 2);
}

void TestIndexerUnits::absenceWindow_data()
{
    QTest::addColumn<quint64>("window");
    QTest::addColumn<quint64>("firstIndexed");
    QTest::addColumn<quint64>("checkpoint");
    QTest::addColumn<bool>("checked");
    QTest::addColumn<quint64>("from");
    QTest::newRow("the last 12 blocks")
        << quint64(12) << quint64(0) << quint64(100) << true << quint64(89);
    QTest::newRow("none below the first indexed")
        << quint64(12) << quint64(95) << quint64(100) << true << quint64(95);
    QTest::newRow("a chain shorter than the window")
        << quint64(12) << quint64(0) << quint64(5) << true << quint64(0);
    QTest::newRow("one block") << quint64(1) << quint64(0) << quint64(100) << true << quint64(100);
    QTest::newRow("window 0: off")
        << quint64(0) << quint64(0) << quint64(100) << false << quint64(0);
}

// Which blocks the head's absence check fetches again: up to the checkpoint, never before
// the first block indexed (nothing is held there to miss).
void TestIndexerUnits::absenceWindow()
{
    QFETCH(quint64, window);
    QFETCH(quint64, firstIndexed);
    QFETCH(quint64, checkpoint);
    QFETCH(bool, checked);
    QFETCH(quint64, from);
    const auto w = indexer::absenceWindow(window, firstIndexed, checkpoint);
    QCOMPARE(w.has_value(), checked);
    if (w) {
        QCOMPARE(quint64(w->first), from);
        QCOMPARE(quint64(w->second), checkpoint);
    }
}

void TestIndexerUnits::blocksWithAbsentLogs_data()
{
    using indexer::LogAt;
    QTest::addColumn<QSet<LogAt>>("held");
    QTest::addColumn<QSet<LogAt>>("present");
    QTest::addColumn<QList<std::uint64_t>>("absent");
    QTest::newRow("all there") << QSet<LogAt>{{5, 0}, {5, 1}, {7, 0}}
                               << QSet<LogAt>{{5, 0}, {5, 1}, {7, 0}} << QList<std::uint64_t>{};
    QTest::newRow("more on the node: not absence")
        << QSet<LogAt>{{5, 0}} << QSet<LogAt>{{5, 0}, {6, 0}} << QList<std::uint64_t>{};
    QTest::newRow("one log of a block gone")
        << QSet<LogAt>{{5, 0}, {5, 1}, {7, 0}} << QSet<LogAt>{{5, 0}, {7, 0}}
        << QList<std::uint64_t>{5};
    QTest::newRow("everything gone: each block once, in order")
        << QSet<LogAt>{{9, 0}, {5, 0}, {5, 1}, {7, 3}} << QSet<LogAt>{}
        << QList<std::uint64_t>{5, 7, 9};
    QTest::newRow("moved to another index: absent")
        << QSet<LogAt>{{5, 0}} << QSet<LogAt>{{5, 1}} << QList<std::uint64_t>{5};
}

void TestIndexerUnits::blocksWithAbsentLogs()
{
    QFETCH(QSet<indexer::LogAt>, held);
    QFETCH(QSet<indexer::LogAt>, present);
    QFETCH(QList<std::uint64_t>, absent);
    QCOMPARE(indexer::blocksWithAbsentLogs(held, present), absent);
}

namespace {

indexer::CompletenessAlert alertOf(qint64 id, std::uint64_t from, std::uint64_t to,
                                   const char* kind = "absence")
{
    indexer::CompletenessAlert a;
    a.id = id;
    a.fromBlock = from;
    a.toBlock = to;
    a.kind = QString::fromLatin1(kind);
    return a;
}

} // namespace

// What the head's absence check does to the open alerts: a suspicion is recorded once, and
// settled only when the check looked at all of its blocks again and found their logs.
void TestIndexerUnits::absenceAlertPlan_data()
{
    using Blocks = QList<std::uint64_t>;
    using Alerts = QList<indexer::CompletenessAlert>;
    QTest::addColumn<Blocks>("absent");
    QTest::addColumn<Alerts>("open");
    QTest::addColumn<Blocks>("record");
    QTest::addColumn<QList<qint64>>("resolve");
    // The window is blocks 10..60 in every row.
    QTest::newRow("all there, nothing open") << Blocks{} << Alerts{} << Blocks{} << QList<qint64>{};
    QTest::newRow("new suspicion")
        << Blocks{12, 14} << Alerts{} << Blocks{12, 14} << QList<qint64>{};
    QTest::newRow("the same again: said once")
        << Blocks{12, 14} << Alerts{alertOf(1, 12, 14)} << Blocks{} << QList<qint64>{};
    QTest::newRow("logs back: settled")
        << Blocks{} << Alerts{alertOf(1, 12, 14)} << Blocks{} << QList<qint64>{1};
    QTest::newRow("one block of it still absent: open")
        << Blocks{14} << Alerts{alertOf(1, 12, 14)} << Blocks{} << QList<qint64>{};
    QTest::newRow("partly below the window: not looked at in full")
        << Blocks{} << Alerts{alertOf(1, 8, 14)} << Blocks{} << QList<qint64>{};
    QTest::newRow("a new block beside an open one")
        << Blocks{14, 20} << Alerts{alertOf(1, 12, 14)} << Blocks{20} << QList<qint64>{};
    QTest::newRow("an old one settled, a new one recorded")
        << Blocks{30} << Alerts{alertOf(1, 12, 14)} << Blocks{30} << QList<qint64>{1};
    QTest::newRow("a fetch alert is not the check's to settle")
        << Blocks{} << Alerts{alertOf(1, 12, 14, "fetch")} << Blocks{} << QList<qint64>{};
    QTest::newRow("a fetch alert does not cover a suspicion")
        << Blocks{13} << Alerts{alertOf(1, 12, 14, "fetch")} << Blocks{13} << QList<qint64>{};
}

void TestIndexerUnits::absenceAlertPlan()
{
    QFETCH(QList<std::uint64_t>, absent);
    QFETCH(QList<indexer::CompletenessAlert>, open);
    QFETCH(QList<std::uint64_t>, record);
    QFETCH(QList<qint64>, resolve);
    const indexer::AbsenceAlertPlan plan = indexer::planAbsenceAlerts({10, 60}, absent, open);
    QCOMPARE(plan.record, record);
    QCOMPARE(plan.resolve, resolve);
}

void TestIndexerUnits::argsTemplates_data()
{
    QTest::addColumn<QByteArray>("args");
    QTest::addColumn<QByteArray>("from");
    QTest::addColumn<QByteArray>("to");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<bool>("templated");
    const QByteArray a = "0x" + QByteArray(40, 'a');
    const QByteArray b = "0x" + QByteArray(40, 'b');
    QTest::newRow("ERC-20 names") << R"({"from":")" + a + R"(","to":")" + b + R"(","value":"77"})"
                                  << a << b << QByteArray("77") << true;
    QTest::newRow("WETH names, sorted")
        << R"({"dst":")" + b + R"(","src":")" + a + R"(","wad":"5"})" << a << b << QByteArray("5")
        << true;
    QTest::newRow("a self-transfer") << R"({"from":")" + a + R"(","to":")" + a + R"(","value":"1"})"
                                     << a << a << QByteArray("1") << false;
    QTest::newRow("a key equal to the value")
        << R"({"0":")" + a + R"(","1":")" + b + R"(","2":"2"})" << a << b << QByteArray("2")
        << false;
    QTest::newRow("topics read as bytes32") << R"({"from":"0x000000000000000000000000)" + a.mid(2) +
                                                   R"(","to":")" + b + R"(","value":"3"})"
                                            << a << b << QByteArray("3") << false;
    QTest::newRow("a placeholder byte in the JSON")
        << "{\"from\":\"" + a + "\",\"to\":\"" + b + "\",\"value\":\"4\",\"x\":\"\x01V\"}" << a << b
        << QByteArray("4") << false;
}

void TestIndexerUnits::argsTemplates()
{
    QFETCH(QByteArray, args);
    QFETCH(QByteArray, from);
    QFETCH(QByteArray, to);
    QFETCH(QByteArray, value);
    QFETCH(bool, templated);
    const std::optional<QByteArray> t = argsTemplateFor(args, from, to, value);
    QCOMPARE(t.has_value(), templated);
    if (!t)
        return;
    QVERIFY(!t->contains(from) && !t->contains(to));
    QCOMPARE(renderArgsTemplate(*t, from, to, value), args);
    // The same shape serves another transfer.
    const QByteArray c = "0x" + QByteArray(40, 'c');
    const QByteArray d = "0x" + QByteArray(40, 'd');
    QCOMPARE(renderArgsTemplate(*t, c, d, "123456789"),
             QByteArray(args).replace(from, c).replace(to, d).replace('"' + value + '"',
                                                                      "\"123456789\""));
}

void TestIndexerUnits::decode_data()
{
    // clang-format off
    QTest::addColumn<chain::LogEntry>("log");
    QTest::addColumn<QString>("outcome"); // transfer:<value> | failure:<text> | none
    chain::LogEntry base;
    base.address = chain::Address::fromHex("0x5fbdb2315678afecb367f032d93f642f64180aa3", "a");
    base.topics = {transferTopic(), addressTopic("1111111111111111111111111111111111111111"),
                   addressTopic("2222222222222222222222222222222222222222")};
    base.data = chain::u256::toBigEndian32(chain::U256(1000));
    QTest::newRow("erc20") << base << "transfer:1000";

    chain::LogEntry huge = base;
    huge.data = QByteArray(32, '\xff');
    QTest::newRow("max uint256") << huge
                                 << "transfer:115792089237316195423570985008687907853269984665640564039457584007913129639935";

    chain::LogEntry erc721 = base;
    erc721.topics.append(hashOf('\1'));
    erc721.data.clear();
    QTest::newRow("erc721 four topics") << erc721 << "failure:4 topics";

    chain::LogEntry missing = base;
    missing.topics.removeLast();
    QTest::newRow("two topics") << missing << "failure:2 topics";

    chain::LogEntry shortData = base;
    shortData.data = QByteArray(16, '\0');
    QTest::newRow("short data") << shortData << "failure:16 data bytes";

    chain::LogEntry dirtyTopic = base;
    dirtyTopic.topics[1] = hashOf('\x11');
    QTest::newRow("topic not an address") << dirtyTopic << "failure:left-padded address";

    chain::LogEntry approval = base;
    approval.topics[0] = hashOf('\2');
    QTest::newRow("other event") << approval << "none";

    chain::LogEntry anonymous = base;
    anonymous.topics.clear();
    QTest::newRow("no topics") << anonymous << "none";
    // clang-format on
}

void TestIndexerUnits::decode()
{
    QFETCH(chain::LogEntry, log);
    QFETCH(QString, outcome);
    const TransferDecodeResult r = decodeTransfer(log);
    if (outcome.startsWith("transfer:")) {
        const auto* t = std::get_if<Transfer>(&r);
        QVERIFY(t);
        QCOMPARE(chain::u256::toDecimal(t->value), outcome.mid(9));
        QCOMPARE(t->from.toHex(), QStringLiteral("0x1111111111111111111111111111111111111111"));
        QCOMPARE(t->to.toHex(), QStringLiteral("0x2222222222222222222222222222222222222222"));
    } else if (outcome.startsWith("failure:")) {
        const auto* f = std::get_if<TransferDecodeFailure>(&r);
        QVERIFY(f);
        QVERIFY2(f->reason.contains(outcome.mid(8)), qPrintable(f->reason));
    } else {
        QVERIFY(std::holds_alternative<NotATransfer>(r));
    }
}

void TestIndexerUnits::signedAmounts_data()
{
    // clang-format off
    QTest::addColumn<QString>("text");
    QTest::newRow("zero") << "0";
    QTest::newRow("positive") << "123456789012345678901234567890";
    QTest::newRow("negative (started mid-history)") << "-42";
    QTest::newRow("2^256-1")
        << "115792089237316195423570985008687907853269984665640564039457584007913129639935";
    // clang-format on
}

void TestIndexerUnits::signedAmounts()
{
    QFETCH(QString, text);
    QCOMPARE(chain::amount::toString(chain::amount::fromString(text, "balance")), text);
}

void TestIndexerUnits::balanceRevertTakesBackRemovedTransfers()
{
    QTemporaryDir dir;
    auto db = store::Database::open(dir.filePath("balances.sqlite"));
    BalanceBook book(*db, "env", 31337);
    const QString c = "0x00000000000000000000000000000000000000cc";
    const HolderKey h1 = HolderKey::fromHex(c, "0x0000000000000000000000000000000000000001");
    const HolderKey h2 = HolderKey::fromHex(c, "0x0000000000000000000000000000000000000002");
    const HolderKey h3 = HolderKey::fromHex(c, "0x0000000000000000000000000000000000000003");
    const auto delta = [](qint64 amount, qint64 sides, std::uint64_t block) {
        return HolderDelta{SignedAmount(amount), sides, block};
    };
    // Block 1: mints of 10 to h1 and 5 to h2 (the zero side is no holder).
    const HolderDeltas b1{{h1, delta(10, 1, 1)}, {h2, delta(5, 1, 1)}};
    // Block 2: h1 sends its 10 to h2; h1 keeps a row of "0" (it still has transfers).
    const HolderDeltas b2{{h1, delta(-10, 1, 2)}, {h2, delta(10, 1, 2)}};
    // Block 3: a mint of 7 to a new holder h3, and a self-transfer of h2 (two sides, net 0).
    const HolderDeltas b3{{h3, delta(7, 1, 3)}, {h2, delta(0, 2, 3)}};
    store::WriteTransaction tx(*db);
    book.apply(b1);
    book.apply(b2);
    book.apply(b3);
    QCOMPARE(book.current(h1), std::optional<QString>("0"));
    QCOMPARE(book.current(h2), std::optional<QString>("15"));
    QCOMPARE(book.current(h3), std::optional<QString>("7"));

    // Block 3 reorged away: h3 has no transfer left, so no row (not a row of "0"); h2's
    // balance is unchanged and so not in the diff, though its self-transfer went.
    QList<BalanceChange> changes = book.revert(b3, 2);
    QCOMPARE(changes.size(), 1);
    QCOMPARE(changes[0].key, h3);
    QCOMPARE(changes[0].before, QByteArray("7"));
    QVERIFY(changes[0].after.isEmpty());
    QVERIFY(!book.current(h3));
    QCOMPARE(book.current(h2), std::optional<QString>("15"));

    // Block 2 too: h1 back to 10, h2 back to 5.
    changes = book.revert(b2, 1);
    QCOMPARE(changes.size(), 2);
    QCOMPARE(book.current(h1), std::optional<QString>("10"));
    QCOMPARE(book.current(h2), std::optional<QString>("5"));
    QSqlQuery q = db->run("SELECT max(updated_at_block), sum(transfer_sides) FROM token_balances");
    QVERIFY(q.next());
    QCOMPARE(q.value(0).toInt(), 1); // nothing was written above the fork any more
    QCOMPARE(q.value(1).toInt(), 2);

    // And block 1: no holder is left.
    changes = book.revert(b1, 0);
    QCOMPARE(changes.size(), 2);
    QVERIFY(!book.current(h1) && !book.current(h2));
}

void TestIndexerUnits::checkpointCompareAndSwap()
{
    QTemporaryDir dir;
    auto db = store::Database::open(dir.filePath("cp.sqlite"));
    CheckpointStore a(*db, "env", 31337, "default");
    QVERIFY(!a.read().has_value()); // nothing indexed: no row, not block 0

    Checkpoint first;
    first.number = 10;
    first.hash = hashOf('\xa');
    first.startBlock = 5;
    first.policyVersion = "p";
    first.generation = 1;
    {
        store::WriteTransaction tx(*db);
        a.insertFirst(first);
        tx.commit();
    }
    {
        // A second "first" insert loses: the other writer got there first.
        store::WriteTransaction tx(*db);
        QVERIFY_THROWS_EXCEPTION(CheckpointMovedError, a.insertFirst(first));
    }
    {
        store::WriteTransaction tx(*db);
        a.advance(first, 12, hashOf('\xc'));
        tx.commit();
    }
    // A writer still holding the old value cannot overwrite, even with a bigger number.
    {
        store::WriteTransaction tx(*db);
        QVERIFY_THROWS_EXCEPTION(CheckpointMovedError, a.advance(first, 99, hashOf('\x63')));
    }
    const auto now = a.read();
    QVERIFY(now);
    QCOMPARE(now->number, 12u);
    QCOMPARE(now->hash, hashOf('\xc'));
    QCOMPARE(now->startBlock, 5u);
    // Same number, different hash (another branch): still refused.
    Checkpoint otherBranch = *now;
    otherBranch.hash = hashOf('\xd');
    {
        store::WriteTransaction tx(*db);
        QVERIFY_THROWS_EXCEPTION(CheckpointMovedError, a.advance(otherBranch, 13, hashOf('\xe')));
    }
    QCOMPARE(a.read()->number, 12u);
}

// BalanceBook::revert reads the rows it takes from in one ordered walk, stepping over a few
// rows and searching past more (kMaxRowsSkipped). Whatever the set of holders, dense,
// sparse, between stored rows, before the first or past the last, in two contracts, it must
// find exactly the rows a lookup per holder finds, and leave other environments alone.
void TestIndexerUnits::balanceRevertFindsEachStoredRow_data()
{
    QTest::addColumn<QList<int>>("holders"); // holder numbers, in both contracts
    const auto range = [](int from, int to, int step) {
        QList<int> out;
        for (int i = from; i < to; i += step)
            out << i;
        return out;
    };
    // Stored: holders 1..60 but every fifth (5, 10, ...), in both contracts.
    QTest::newRow("every holder, stored or not") << range(1, 61, 1);
    QTest::newRow("every third") << range(1, 61, 3);
    QTest::newRow("every twentieth: further than a walk steps") << range(1, 61, 20);
    QTest::newRow("only holders with no row") << range(5, 61, 5);
    QTest::newRow("past the last row") << QList<int>{58, 59, 200, 201};
    QTest::newRow("before the first row") << QList<int>{0, 1, 2};
    QTest::newRow("one holder") << QList<int>{33};
    QTest::newRow("the last holder alone") << QList<int>{60};
    QTest::newRow("a run, then a gap of thirty, then a run") << (range(1, 8, 1) + range(38, 46, 1));
    QTest::newRow("another environment's holders only") << QList<int>{300, 301};
}

void TestIndexerUnits::balanceRevertFindsEachStoredRow()
{
    QFETCH(QList<int>, holders);
    QTemporaryDir dir;
    auto db = store::Database::open(dir.filePath("walk.sqlite"));
    const QList<chain::Address> contracts{
        chain::Address::fromHex("0x00000000000000000000000000000000000000aa", "c"),
        chain::Address::fromHex("0x00000000000000000000000000000000000000bb", "c")};
    const auto holder = [](int n) {
        return chain::Address::fromHex(
            QStringLiteral("0x%1").arg(QString::number(n, 16), 40, QLatin1Char('0')), "h");
    };
    const auto stored = [](int n) { return n >= 1 && n <= 60 && n % 5 != 0; };
    // Odd holders keep a transfer side after the revert (their row is updated), even ones
    // lose their last (their row goes).
    HolderDeltas applied, removed, elsewhere;
    for (const chain::Address& c : contracts) {
        for (int n = 1; n <= 60; ++n)
            if (stored(n))
                applied.add({c, holder(n)}, {SignedAmount(1000 + n), 2, 1});
        for (int n : holders)
            removed.add({c, holder(n)}, n % 2 ? HolderDelta{SignedAmount(n), 1}
                                              : HolderDelta{SignedAmount(1000 + n), 2});
        // Another environment holds holders 300 and 301 and the stored ones, sorted between.
        for (int n : {3, 300, 301})
            elsewhere.add({c, holder(n)}, {SignedAmount(7), 1, 1});
    }
    BalanceBook book(*db, "env", 31337);
    BalanceBook other(*db, "env-b", 31337);
    store::WriteTransaction tx(*db);
    book.apply(applied);
    other.apply(elsewhere);

    const QList<BalanceChange> changes = book.revert(removed, 0);

    QMap<QString, QPair<QByteArray, QByteArray>> got, want;
    for (const BalanceChange& ch : changes)
        got.insert(ch.key.contract.toHex() + ch.key.holder.toHex(), {ch.before, ch.after});
    for (const chain::Address& c : contracts)
        for (int n : holders) {
            if (!stored(n))
                continue; // no row: nothing to take from, no change
            const QByteArray before = QByteArray::number(1000 + n);
            want.insert(c.toHex() + holder(n).toHex(),
                        {before, n % 2 ? QByteArray::number(1000) : QByteArray()});
        }
    QCOMPARE(got, want);
    // The table holds exactly what the model says, and env-b is untouched.
    for (const chain::Address& c : contracts)
        for (int n = 0; n <= 302; ++n) {
            const HolderKey key{c, holder(n)};
            std::optional<QString> expected;
            if (stored(n))
                expected = holders.contains(n)
                               ? (n % 2 ? std::optional<QString>("1000") : std::nullopt)
                               : std::optional<QString>(QString::number(1000 + n));
            QCOMPARE(book.current(key), expected);
            const bool inB = n == 3 || n == 300 || n == 301;
            QCOMPARE(other.current(key),
                     inB ? std::optional<QString>("7") : std::optional<QString>());
        }
}

// A walk that meets a damaged row throws, naming it; the next revert must start its own walk
// (a statement left mid-scan would silently keep the old one's place and bindings).
void TestIndexerUnits::balanceRevertStopsAtADamagedRowAndStartsAfresh()
{
    QTemporaryDir dir;
    auto db = store::Database::open(dir.filePath("damaged.sqlite"));
    const auto c = chain::Address::fromHex("0x00000000000000000000000000000000000000aa", "c");
    const auto h1 = chain::Address::fromHex("0x0000000000000000000000000000000000000001", "h");
    const auto h2 = chain::Address::fromHex("0x0000000000000000000000000000000000000002", "h");
    const auto x = chain::Address::fromHex("0x0000000000000000000000000000000000000600", "h");
    BalanceBook book(*db, "env", 31337);
    store::WriteTransaction tx(*db);
    book.apply({{{c, h1}, {SignedAmount(10), 2, 1}},
                {{c, h2}, {SignedAmount(20), 2, 1}},
                {{c, x}, {SignedAmount(30), 2, 1}}});
    // A holder of 19 bytes, sorted between h2 and x: the walk from h1 to x steps onto it.
    db->run(QStringLiteral("INSERT INTO balance_store VALUES ('env', 31337, ?, "
                           "x'00000000000000000000000000000000000005', '5', 1, 1)"),
            {c.toByteArray()});
    const HolderDeltas removed{{{c, h1}, {SignedAmount(1), 1}}, {{c, x}, {SignedAmount(3), 1}}};
    try {
        book.revert(removed, 0);
        QFAIL("a damaged row was read as a holder");
    } catch (const store::StoreError& e) {
        QVERIFY2(e.message().contains("balance_store.holder holds 19 bytes"),
                 qPrintable(e.message()));
    }
    db->run(QStringLiteral("DELETE FROM balance_store WHERE length(holder) <> 20"));
    const QList<BalanceChange> changes = book.revert(removed, 0);
    QCOMPARE(changes.size(), 2);
    QCOMPARE(book.current({c, h1}), std::optional<QString>("9"));
    QCOMPARE(book.current({c, h2}), std::optional<QString>("20"));
    QCOMPARE(book.current({c, x}), std::optional<QString>("27"));
}

// BalanceBook::revert writes balance rows back with INSERT OR REPLACE, which deletes the row
// it replaces: sound only while nothing else hangs on a balance_store row. An index, trigger
// or foreign key added to the table fails here, so the revert goes back to an UPDATE first.
void TestIndexerUnits::balanceRowsAreSafeToReplace()
{
    QTemporaryDir dir;
    auto db = store::Database::open(dir.filePath("replace.sqlite"));
    // UNION, not UNION ALL: a foreign key lists one row per column it spans.
    const auto hangers = [&db] {
        QSqlQuery q = db->run(QStringLiteral(
            "SELECT type || ' ' || name FROM sqlite_schema WHERE tbl_name = 'balance_store' AND "
            "type IN ('index', 'trigger') AND name NOT LIKE 'sqlite_autoindex_%' UNION "
            "SELECT 'foreign key from ' || t.name FROM sqlite_schema t, "
            "pragma_foreign_key_list(t.name) f WHERE t.type = 'table' AND f.\"table\" = "
            "'balance_store' ORDER BY 1"));
        QStringList found;
        while (q.next())
            found << q.value(0).toString();
        return found;
    };
    QCOMPARE(hangers(), QStringList());
    // The check sees each kind it looks for.
    db->run(QStringLiteral("CREATE INDEX balance_store_by_holder ON balance_store (holder)"));
    db->run(QStringLiteral("CREATE TRIGGER balance_store_audit AFTER DELETE ON balance_store "
                           "BEGIN SELECT 1; END"));
    db->run(QStringLiteral("CREATE TABLE balance_notes (environment_id TEXT, chain_id INTEGER, "
                           "contract BLOB, holder BLOB, FOREIGN KEY (environment_id, chain_id, "
                           "contract, holder) REFERENCES balance_store)"));
    QCOMPARE(hangers(), (QStringList{QStringLiteral("foreign key from balance_notes"),
                                     QStringLiteral("index balance_store_by_holder"),
                                     QStringLiteral("trigger balance_store_audit")}));
}

// A repair rebuilds token_balances from the transfers: a wrong row is corrected, a missing
// one written, a stray one removed, and what it writes reads as the contract's decimal text
// (a BLOB of the same digits would print alike in `sqlite3` and compare unequal to text).
void TestIndexerUnits::balanceRebuildCorrectsEveryRowAsText()
{
    QTemporaryDir dir;
    auto db = store::Database::open(dir.filePath("rebuild.sqlite"));
    const QString c = QStringLiteral("0x00000000000000000000000000000000000000cc");
    const auto holder = [](int n) { return QStringLiteral("0x%1").arg(n, 40, 16, QChar('0')); };
    store::WriteTransaction tx(*db);
    // Transfers: a mint of 10 to holder 1, then holder 1 sends 4 to holder 2.
    const auto transfer = [&](int block, const QString& from, const QString& to,
                              const QString& value) {
        const auto topic = [](const QString& a) -> QString {
            return "0x000000000000000000000000" + a.mid(2);
        };
        db->run(QStringLiteral(
                    "INSERT INTO log_store (environment_id, chain_id, block_number, log_index, "
                    "block_hash, tx_hash, address, topic0, topic1, topic2, data, transfer_value) "
                    "VALUES ('env', 31337, ?, 0, zeroblob(32), zeroblob(32), forkscope_unhex(?), "
                    "forkscope_unhex(?), forkscope_unhex(?), forkscope_unhex(?), zeroblob(32), ?)"),
                {block, c, "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
                 topic(from), topic(to), value});
    };
    transfer(1, holder(0), holder(1), QStringLiteral("10"));
    transfer(2, holder(1), holder(2), QStringLiteral("4"));
    // Stored: holder 1 wrong, holder 2 missing, holder 3 with no transfer at all.
    const auto storeBalance = [&](int n, const QString& balance) {
        db->run(QStringLiteral("INSERT INTO balance_store (environment_id, chain_id, contract, "
                               "holder, balance, updated_at_block, transfer_sides) VALUES ('env', "
                               "31337, forkscope_unhex(?), forkscope_unhex(?), ?, 1, 1)"),
                {c, holder(n), balance});
    };
    storeBalance(1, QStringLiteral("10"));
    storeBalance(3, QStringLiteral("7"));

    const QList<BalanceChange> changes = audit::rebuildBalances(*db, QStringLiteral("env"), 31337);
    QMap<QString, QPair<QByteArray, QByteArray>> got;
    for (const BalanceChange& ch : changes)
        got.insert(ch.key.holder.toHex(), {ch.before, ch.after});
    const QMap<QString, QPair<QByteArray, QByteArray>> want{
        {holder(1), {"10", "6"}}, {holder(2), {"", "4"}}, {holder(3), {"7", ""}}};
    QCOMPARE(got, want);

    QSqlQuery q = db->run(QStringLiteral("SELECT holder, balance, typeof(balance), "
                                         "updated_at_block FROM token_balances ORDER BY holder"));
    QStringList rows;
    while (q.next())
        rows << QStringLiteral("%1 %2 %3 %4")
                    .arg(q.value(0).toString(), q.value(1).toString(), q.value(2).toString())
                    .arg(q.value(3).toLongLong());
    QCOMPARE(rows, (QStringList{holder(1) + QStringLiteral(" 6 text 2"),
                                holder(2) + QStringLiteral(" 4 text 2")}));
    // Right now: a second rebuild changes nothing.
    QVERIFY(audit::rebuildBalances(*db, QStringLiteral("env"), 31337).isEmpty());
}

void TestIndexerUnits::rollbackSaysWhatItUndid_data()
{
    // The reorg line of `index` and `repair`: what was undone in the words of the data, each
    // count with its noun in the right number, never a count of database rows.
    QTest::addColumn<RollbackResult>("rollback");
    QTest::addColumn<QString>("said");
    RollbackResult r;
    r.reorgId = 3;
    r.oldCheckpoint = 412;
    r.forkBlock = 400;
    r.depth = 12;
    r.rowsRemoved = 362;
    r.transfersRemoved = 155;
    r.balancesChanged = 40;
    r.outboxDropped = 155;
    QTest::newRow("many") << r
                          << "checkpoint 412 -> fork 400, depth 12, 155 transfers removed, 40 "
                             "balances recomputed, 155 outbox rows dropped, reorg id 3";
    r.transfersRemoved = r.balancesChanged = r.outboxDropped = r.deliveredAffected = 1;
    QTest::newRow("one of each")
        << r
        << "checkpoint 412 -> fork 400, depth 12, 1 transfer removed, 1 balance recomputed, "
           "1 outbox row dropped, 1 delivered row retracted, reorg id 3";
    r.unconfirmedRetracted = 2;
    QTest::newRow("rows sent without an answer")
        << r
        << "checkpoint 412 -> fork 400, depth 12, 1 transfer removed, 1 balance recomputed, "
           "1 outbox row dropped, 1 delivered row retracted, 2 rows sent without an answer "
           "retracted, reorg id 3";
    r.unconfirmedRetracted = 0;
    r.transfersRemoved = r.balancesChanged = r.outboxDropped = r.deliveredAffected = 0;
    QTest::newRow("an empty block range")
        << r
        << "checkpoint 412 -> fork 400, depth 12, 0 transfers removed, 0 balances recomputed, "
           "0 outbox rows dropped, reorg id 3";
}

void TestIndexerUnits::rollbackSaysWhatItUndid()
{
    QFETCH(RollbackResult, rollback);
    QFETCH(QString, said);
    QCOMPARE(rollback.summary(), said);
}

QTEST_GUILESS_MAIN(TestIndexerUnits)
#include "tst_indexer_units.moc"
