// Watching another indexer from the app, the window's side, offscreen: the dialog refuses
// bad input with one line naming the field; the panel draws the lag and the findings count
// from snapshots, says loudly when a check could not run (never a clean state over the
// gap); the findings table (checked by QAbstractItemModelTester) opens a finding next to
// what the chain holds, and a finding in a block the lab's reorg replaced opens that reorg's
// diff (against a real lab); the Lab menu has the entry.
#include "ForeignTableWriter.h"
#include "GuiLab.h"
#include "MainWindow.h"
#include "ReorgDiffDialog.h"
#include "engine/EngineHost.h"
#include "foreign/ForeignFindingDialog.h"
#include "foreign/ForeignFindingsModel.h"
#include "foreign/ForeignWatchPanel.h"
#include "foreign/WatchIndexerDialog.h"
#include "lab/ReorgTxMode.h"
#include "panels/PlotPanel.h"
#include "panels/ReorgPanel.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTableWidget>
#include <QtTest>
#include <qcustomplot.h>

using namespace forkscope;
using foreign::ForeignFinding;
using foreign::ForeignWatchSnapshot;
using ui::ForeignWatchPanel;

namespace {

const QString kToken = QStringLiteral("0x5fbdb2315678afecb367f032d93f642f64180aa3");

ForeignFinding finding(ForeignFinding::Kind kind, std::uint64_t block, std::uint64_t log)
{
    ForeignFinding f;
    f.kind = kind;
    f.block = block;
    f.logIndex = log;
    f.txHash = QStringLiteral("0x") + QString(64, QLatin1Char('a'));
    f.contract = kToken;
    f.row = QStringLiteral("%1-%2").arg(block).arg(log);
    f.detail = QStringLiteral("value 5 (the chain's 7)");
    f.fields = {QStringLiteral("value")};
    return f;
}

ForeignWatchSnapshot snapshot(quint64 id, ForeignWatchSnapshot::State state, qint64 secs)
{
    ForeignWatchSnapshot s;
    s.id = id;
    s.state = state;
    s.target = QStringLiteral("indexer.sqlite");
    s.at = QDateTime::fromSecsSinceEpoch(1'800'000'000 + secs, Qt::UTC);
    s.checks = secs + 1;
    if (s.checkRan()) {
        s.lastCheckRan = s.at;
        s.labHead = 40;
        s.foreignHead = 37;
        s.auditedFrom = 1;
        s.auditedTo = 37;
    } else {
        s.problem = QStringLiteral("--target indexer.sqlite: no such file");
    }
    return s;
}

// The values a series drew, its breaks (NaN) left out.
QList<double> values(const ForeignWatchPanel& panel, int series)
{
    QList<double> out;
    for (const auto& p : *panel.chart()->plot()->graph(series)->data())
        if (!qIsNaN(p.value))
            out << p.value;
    return out;
}

} // namespace

class TestForeignWatchPanel : public QObject
{
    Q_OBJECT
private slots:
    void dialogRefusesBadInput_data();
    void dialogRefusesBadInput();
    void panelDrawsLagAndFindings();
    void aGapIsSaidNeverGreen();
    void aFindingOpensNextToTheChain();
    void theReorgThatReplacedABlock_data();
    void theReorgThatReplacedABlock();
    void aFindingInAReplacedBlockOpensItsReorg();
    void theLabMenuHasTheEntry();
};

void TestForeignWatchPanel::dialogRefusesBadInput_data()
{
    QTest::addColumn<QString>("target");
    QTest::addColumn<QString>("preset");
    QTest::addColumn<QString>("table");
    QTest::addColumn<QString>("query");
    QTest::addColumn<QString>("contracts");
    QTest::addColumn<QString>("message"); // empty: accepted

    const QString q = QStringLiteral("SELECT * FROM transfers");
    QTest::newRow("a file and a query") << "indexer.sqlite"
                                        << ""
                                        << "" << q << ""
                                        << "";
    QTest::newRow("a URL and a preset") << "postgresql://postgres@127.0.0.1:5432/squid"
                                        << "subsquid"
                                        << "public.transfer"
                                        << "" << kToken << "";
    QTest::newRow("no target") << ""
                               << ""
                               << "" << q << ""
                               << "target: expected a SQLite file or a postgresql:// URL";
    QTest::newRow("not postgresql") << "mysql://db/x"
                                    << ""
                                    << "" << q << ""
                                    << "target: `mysql://db/x` is not a postgresql:// URL (or "
                                       "give a SQLite file)";
    QTest::newRow("no query nor preset") << "indexer.sqlite"
                                         << ""
                                         << ""
                                         << ""
                                         << ""
                                         << "give a query or a preset (one of them)";
    QTest::newRow("bad table") << "indexer.sqlite"
                               << "ponder"
                               << "a;drop"
                               << ""
                               << ""
                               << "table: `a;drop` is not a table name (letters, digits and _, "
                                  "optionally schema.table)";
    QTest::newRow("bad contract") << "indexer.sqlite"
                                  << ""
                                  << "" << q << "0x1234"
                                  << "";
}

void TestForeignWatchPanel::dialogRefusesBadInput()
{
    QFETCH(QString, target);
    QFETCH(QString, preset);
    QFETCH(QString, table);
    QFETCH(QString, query);
    QFETCH(QString, contracts);
    QFETCH(QString, message);
    ui::WatchIndexerDialog d;
    d.targetEdit()->setText(target);
    d.presetBox()->setCurrentIndex(d.presetBox()->findData(preset));
    d.tableEdit()->setText(table);
    d.queryEdit()->setPlainText(query);
    d.contractsEdit()->setText(contracts);
    d.buttons()->button(QDialogButtonBox::Ok)->click();
    if (QTest::currentDataTag() == QByteArray("bad contract")) {
        // The address parser's own line, naming the field and the value.
        QVERIFY2(d.message().startsWith(QStringLiteral("field \"contract\"")),
                 qPrintable(d.message()));
        QVERIFY(d.message().contains(QStringLiteral("0x1234")));
        QCOMPARE(d.result(), int(QDialog::Rejected));
        return;
    }
    QCOMPARE(d.message(), message);
    QCOMPARE(d.result(), message.isEmpty() ? int(QDialog::Accepted) : int(QDialog::Rejected));
    if (message.isEmpty()) {
        QCOMPARE(d.spec().target, target);
        QCOMPARE(foreign::validateWatchSpec(d.spec()), QString());
    }
}

void TestForeignWatchPanel::panelDrawsLagAndFindings()
{
    engine::EngineHost host;
    ForeignWatchPanel panel(&host, 7, QStringLiteral("indexer.sqlite"));
    QAbstractItemModelTester tester(panel.findings(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    using S = ForeignWatchSnapshot::State;
    ForeignWatchSnapshot clean = snapshot(7, S::Watching, 0);
    panel.apply(clean);
    QCOMPARE(panel.chart()->pointCount(ForeignWatchPanel::Lag), 1);
    QCOMPARE(panel.chart()->pointCount(ForeignWatchPanel::Findings), 1);
    QVERIFY2(panel.bannerText().startsWith(QStringLiteral("Clean: blocks 1..37")),
             qPrintable(panel.bannerText()));
    QVERIFY(panel.bannerText().contains(QStringLiteral("lag 3 blocks")));
    QCOMPARE(ForeignWatchPanel::tone(clean), ui::Palette::Tone::Good);

    ForeignWatchSnapshot found = snapshot(7, S::Watching, 2);
    found.findings = {finding(ForeignFinding::Kind::Altered, 30, 1),
                      finding(ForeignFinding::Kind::Missing, 12, 0)};
    found.counts[std::size_t(ForeignFinding::Kind::Altered)] = 1;
    found.counts[std::size_t(ForeignFinding::Kind::Missing)] = 1;
    panel.apply(found);
    QCOMPARE(panel.findings()->rowCount(), 2);
    QCOMPARE(panel.findings()->index(0, ui::ForeignFindingsModel::KindColumn).data().toString(),
             QStringLiteral("altered"));
    QCOMPARE(panel.findings()->index(1, ui::ForeignFindingsModel::BlockColumn).data().toString(),
             QStringLiteral("12"));
    QVERIFY2(panel.bannerText().startsWith(QStringLiteral("2 findings in blocks 1..37")),
             qPrintable(panel.bannerText()));
    QCOMPARE(ForeignWatchPanel::tone(found), ui::Palette::Tone::Bad);
    QCOMPARE(panel.chart()->pointCount(ForeignWatchPanel::Findings), 2);

    // Another watch's snapshot is not this panel's.
    ForeignWatchSnapshot other = snapshot(8, S::Watching, 4);
    panel.apply(other);
    QCOMPARE(panel.findings()->rowCount(), 2);
    QCOMPARE(panel.chart()->pointCount(ForeignWatchPanel::Findings), 2);
}

void TestForeignWatchPanel::aGapIsSaidNeverGreen()
{
    engine::EngineHost host;
    ForeignWatchPanel panel(&host, 3, QStringLiteral("indexer.sqlite"));
    using S = ForeignWatchSnapshot::State;
    panel.apply(snapshot(3, S::Watching, 0));
    QCOMPARE(ForeignWatchPanel::tone(snapshot(3, S::Watching, 0)), ui::Palette::Tone::Good);
    for (const S state :
         {S::TargetUnreachable, S::NodeUnreachable, S::QueryFailed, S::NodeUntrusted}) {
        ForeignWatchSnapshot gap = snapshot(3, state, 10);
        gap.lastCheckRan = QDateTime::fromSecsSinceEpoch(1'800'000'000, Qt::UTC);
        panel.apply(gap);
        QCOMPARE(ForeignWatchPanel::tone(gap), ui::Palette::Tone::Bad);
        QVERIFY2(panel.bannerText().startsWith(QStringLiteral("NOT CHECKED: ") +
                                               foreign::watchStateName(state).toUpper()),
                 qPrintable(panel.bannerText()));
        QVERIFY(panel.bannerText().contains(gap.problem));
        QVERIFY(panel.bannerText().contains(QStringLiteral("the last check that ran was at")));
        QVERIFY(!panel.bannerText().contains(QStringLiteral("Clean")));
        // No value while nothing was checked: the lines break there.
        for (const int series : {ForeignWatchPanel::Lag, ForeignWatchPanel::Findings}) {
            QCOMPARE(values(panel, series).size(), 1);
            QVERIFY(qIsNaN((panel.chart()->plot()->graph(series)->data()->end() - 1)->value));
        }
    }
    // Back: green again, a new value.
    panel.apply(snapshot(3, S::Watching, 20));
    QVERIFY(panel.bannerText().startsWith(QStringLiteral("Clean")));
    QCOMPARE(values(panel, ForeignWatchPanel::Lag), (QList<double>{3, 3}));
    // A refusal ends the panel's watch, said as such.
    ForeignWatchPanel refused(&host, 4, QStringLiteral("x"));
    ForeignWatchSnapshot r = snapshot(4, S::Refused, 0);
    r.problem = QStringLiteral("give a query or a preset (one of them)");
    refused.apply(r);
    QCOMPARE(refused.bannerText(),
             QStringLiteral("NOT WATCHED: give a query or a preset (one of them)"));
    QCOMPARE(ForeignWatchPanel::tone(r), ui::Palette::Tone::Bad);
}

void TestForeignWatchPanel::aFindingOpensNextToTheChain()
{
    engine::EngineHost host;
    ForeignWatchPanel panel(&host, 9, QStringLiteral("indexer.sqlite"));
    ForeignWatchSnapshot s = snapshot(9, ForeignWatchSnapshot::State::Watching, 0);
    s.findings = {finding(ForeignFinding::Kind::Altered, 30, 1)};
    s.counts[std::size_t(ForeignFinding::Kind::Altered)] = 1;
    panel.apply(s);
    QSignalSpy opened(&panel, &ForeignWatchPanel::findingOpened);
    panel.openFinding(0);

    foreign::ForeignBlockView v;
    v.watchId = 9;
    v.block = 30;
    v.canonicalHash = QStringLiteral("0x") + QString(64, QLatin1Char('c'));
    foreign::ForeignBlockView::Event row;
    row.logIndex = 1;
    row.contract = kToken;
    row.value = QStringLiteral("5");
    row.label = QStringLiteral("30-1");
    foreign::ForeignBlockView::Event chain = row;
    chain.value = QStringLiteral("7");
    chain.label.clear();
    v.rows = {row};
    v.chain = {chain};
    // Another block's answer is not the one asked for.
    foreign::ForeignBlockView otherBlock = v;
    otherBlock.block = 31;
    panel.applyBlock(otherBlock);
    QCOMPARE(opened.size(), 0);
    panel.applyBlock(v);
    QCOMPARE(opened.size(), 1);
    auto* dialog = qobject_cast<ui::ForeignFindingDialog*>(opened.first().at(0).value<QDialog*>());
    QVERIFY(dialog);
    QVERIFY(dialog->summary().startsWith(QStringLiteral("ALTERED")));
    QVERIFY(dialog->summary().contains(v.canonicalHash));
    QCOMPARE(dialog->rowsTable()->rowCount(), 1);
    QCOMPARE(dialog->chainTable()->rowCount(), 1);
    QCOMPARE(dialog->rowsTable()->item(0, ui::ForeignFindingDialog::ValueColumn)->text(),
             QStringLiteral("5"));
    QCOMPARE(dialog->chainTable()->item(0, ui::ForeignFindingDialog::ValueColumn)->text(),
             QStringLiteral("7"));
    // The finding's log index is selected on both sides.
    QVERIFY(dialog->rowsTable()->item(0, 0)->isSelected());
    QVERIFY(dialog->chainTable()->item(0, 0)->isSelected());
    // The view's double-click goes the same way.
    panel.findingsView()->activated(panel.findings()->index(0, 0));
    panel.applyBlock(v);
    QCOMPARE(opened.size(), 2);
}

void TestForeignWatchPanel::theReorgThatReplacedABlock_data()
{
    QTest::addColumn<quint64>("block");
    QTest::addColumn<qint64>("reorg"); // -1: none
    // #1 replaced 11-13, #2 replaced 13-14 (after 12), #3 depth 0 replaced nothing.
    QTest::newRow("the fork block itself") << quint64(10) << qint64(-1);
    QTest::newRow("first replaced") << quint64(11) << qint64(1);
    QTest::newRow("replaced twice: the newest") << quint64(13) << qint64(2);
    QTest::newRow("last replaced") << quint64(14) << qint64(2);
    QTest::newRow("above") << quint64(15) << qint64(-1);
    QTest::newRow("a zero-depth mark") << quint64(31) << qint64(-1);
}

void TestForeignWatchPanel::theReorgThatReplacedABlock()
{
    QFETCH(quint64, block);
    QFETCH(qint64, reorg);
    const auto mark = [](qint64 id, qint64 fork, qint64 depth) {
        engine::ReorgMark m;
        m.id = id;
        m.forkBlock = fork;
        m.depth = depth;
        return m;
    };
    // Oldest first, as the status lists them.
    const QList<engine::ReorgMark> reorgs{mark(1, 10, 3), mark(2, 12, 2), mark(3, 30, 0)};
    const auto found = ForeignWatchPanel::reorgThatReplaced(reorgs, block);
    QCOMPARE(found ? found->id : -1, reorg);
}

void TestForeignWatchPanel::aFindingInAReplacedBlockOpensItsReorg()
{
    // A careless indexer keeps the rows of blocks a reorg replaced: its table is the lab's
    // Transfers as they stood before the reorg. Watched from the Lab menu, the finding in a
    // replaced block names the lab's reorg, and its button opens that reorg's diff.
    test::Lab lab;
    lab.start(0, [](engine::EngineConfig& c) {
        c.demoInterval = std::chrono::milliseconds(100);
        c.demoTransfersPerTick = 2;
    });
    QTRY_VERIFY_WITH_TIMEOUT(lab.w.labAction("reorg")->isEnabled(), 30000);
    test::settle(lab, 8);
    rpc::JsonRpcClient anvil{QUrl(lab.last().endpoint)};
    rpc::EthClient eth(anvil);
    const quint64 head = eth.blockNumber();
    QList<test::ForeignTableRow> rows;
    for (const QString& c : lab.last().contracts)
        rows << test::nodeTransferRows(eth, c);
    const auto inTop = [&](const test::ForeignTableRow& r) { return r.block + 3 > head; };
    QVERIFY2(std::any_of(rows.cbegin(), rows.cend(), inTop), "no Transfer in the top 3 blocks");
    const QString table = lab.dir.filePath(QStringLiteral("careless.sqlite"));
    test::writeGenericTable(table, QStringLiteral("transfers"), rows);

    const qsizetype reorgsBefore = lab.last().recentReorgs.size();
    lab.host.injectReorg(3, int(lab::ReorgTxMode::Drop));
    QTRY_COMPARE_WITH_TIMEOUT(lab.last().recentReorgs.size(), reorgsBefore + 1, 60000);
    const engine::ReorgMark mark = lab.last().recentReorgs.last();
    QCOMPARE(mark.forkBlock, qint64(head - 3));

    test::answerNextDialog<ui::WatchIndexerDialog>([&](ui::WatchIndexerDialog* d) {
        d->targetEdit()->setText(table);
        d->queryEdit()->setPlainText(QStringLiteral("SELECT * FROM transfers"));
    });
    lab.w.findChild<QAction*>(QStringLiteral("watchAnotherIndexer"))->trigger();
    auto* panel = lab.w.findChild<ForeignWatchPanel*>();
    QVERIFY(panel);
    const auto orphanedRow = [&] {
        for (int i = 0; i < panel->findings()->rowCount(); ++i) {
            const ForeignFinding f = panel->findings()->finding(i);
            if (f.kind == ForeignFinding::Kind::Orphaned && f.block > head - 3)
                return i;
        }
        return -1;
    };
    QTRY_VERIFY2_WITH_TIMEOUT(orphanedRow() >= 0, qPrintable(panel->bannerText()), 60000);

    QSignalSpy opened(panel, &ForeignWatchPanel::findingOpened);
    panel->openFinding(orphanedRow());
    QVERIFY(opened.wait(20000));
    auto* dialog = qobject_cast<ui::ForeignFindingDialog*>(opened.first().at(0).value<QDialog*>());
    QVERIFY(dialog);
    QVERIFY2(dialog->summary().contains(QStringLiteral("in reorg #%1").arg(mark.id)),
             qPrintable(dialog->summary()));
    QVERIFY(dialog->openReorgButton());
    QCOMPARE(dialog->openReorgButton()->text(), QStringLiteral("Open reorg #%1").arg(mark.id));

    QSignalSpy diffs(&lab.host, &engine::EngineApi::reorgDiffAvailable);
    dialog->openReorgButton()->click();
    QVERIFY(diffs.wait(20000));
    const auto diff = diffs.first().at(0).value<engine::ReorgDiff>();
    QCOMPARE(diff.reorg.id, mark.id);
    // Every Transfer the careless table kept in the replaced blocks is one the reorg took.
    const qint64 kept = std::count_if(rows.cbegin(), rows.cend(), inTop);
    const qint64 removed =
        std::count_if(diff.items.cbegin(), diff.items.cend(), [](const auto& item) {
            return item.kind == QLatin1String("transfer_removed");
        });
    QVERIFY2(removed >= kept, qPrintable(QStringLiteral("%1 < %2").arg(removed).arg(kept)));
    // The diff opens in the window's reorg diff view.
    QTRY_VERIFY(lab.w.reorgPanel()->lastDiffDialog() &&
                lab.w.reorgPanel()->lastDiffDialog()->isVisible());
    QVERIFY2(lab.w.reorgPanel()->lastDiffDialog()->counts().startsWith(
                 QStringLiteral("%1 transfer").arg(removed)),
             qPrintable(lab.w.reorgPanel()->lastDiffDialog()->counts()));
    lab.host.shutdown();
}

void TestForeignWatchPanel::theLabMenuHasTheEntry()
{
    engine::EngineHost host;
    ui::MainWindow w(&host);
    auto* entry = w.findChild<QAction*>(QStringLiteral("watchAnotherIndexer"));
    QVERIFY(entry);
    QCOMPARE(entry->text(), QStringLiteral("Watch another indexer..."));
    // The entry asks, then opens the panel of the watch it asked the engine for: an engine
    // with no node refuses it, and the panel says so.
    test::answerNextDialog<ui::WatchIndexerDialog>([](ui::WatchIndexerDialog* d) {
        d->targetEdit()->setText(QStringLiteral("indexer.sqlite"));
        d->queryEdit()->setPlainText(QStringLiteral("SELECT * FROM transfers"));
    });
    entry->trigger();
    auto* panel = w.findChild<ForeignWatchPanel*>();
    QVERIFY(panel);
    QVERIFY(panel->isWindow());
    QTRY_VERIFY2(
        panel->bannerText().startsWith(QStringLiteral("NOT WATCHED: the engine has no node yet")),
        qPrintable(panel->bannerText()));
    QCOMPARE(ForeignWatchPanel::tone(ForeignWatchSnapshot{}), ui::Palette::Tone::Muted);
}

QTEST_MAIN(TestForeignWatchPanel)
#include "tst_foreignwatchpanel.moc"
