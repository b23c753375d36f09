// The main window's parts on their own, each given an EngineHost that never starts: every
// part connects itself to the host's signals (the test emits them as the engine would),
// renders what they carry, and the report exporter routes answers by ticket only.
#include "CheckpointView.h"
#include "DiscardLabConfirm.h"
#include "EngineErrorBanner.h"
#include "EngineToolBar.h"
#include "EnvironmentWindow.h"
#include "MainWindow.h"
#include "Palette.h"
#include "ReorgDiffDialog.h"
#include "TrayStatus.h"
#include "completeness/DataIncompleteBanner.h"
#include "engine/EngineHost.h"
#include "lab/DeepReorgBanner.h"
#include "lab/FaultProxyDialog.h"
#include "lab/LabToolBar.h"
#include "lab/VerdictBadge.h"
#include "panels/CursorLagPanel.h"
#include "panels/NodeHealthPanel.h"
#include "panels/OutboxPanel.h"
#include "panels/ReorgPanel.h"
#include "panels/StateStrip.h"
#include "report/ExportNotice.h"
#include "report/ReportExporter.h"

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSystemTrayIcon>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QToolButton>
#include <QtTest>
#include <qcustomplot.h>

#include <cmath>

using namespace forkscope;
using engine::EngineHost;
using engine::EngineStatus;

namespace {

EngineStatus withNode(const QString& url)
{
    EngineStatus s;
    s.connection = EngineStatus::Connection::Connected;
    s.updatedAt = QDateTime::currentDateTimeUtc();
    health::NodeHealth n;
    n.url = url;
    n.state = health::NodeState::CaughtUp;
    n.head = 120;
    s.health.nodes << n;
    s.health.at = s.updatedAt;
    return s;
}

// Environment env-x indexed through `url`, the one node watched.
EngineStatus indexingThrough(const QString& url)
{
    EngineStatus s = withNode(url);
    s.endpoint = url;
    s.environmentId = QStringLiteral("env-x");
    return s;
}

engine::ReorgMark reorg(qint64 id, const QString& reason, qint64 depth)
{
    return {id, QDateTime::currentDateTimeUtc(), depth, reason, 100 - depth, depth * 2};
}

report::CheckpointReport reportFor(const QString& environmentId)
{
    report::CheckpointReport r;
    r.environment.id = environmentId;
    r.environment.chainId = 31337;
    return r;
}

} // namespace

class TestUiParts : public QObject
{
    Q_OBJECT
private slots:
    void panelsFollowTheHost();
    void outboxChartsOnlyCountsItRead();
    void toolbarsFollowTheHost();
    void labToolBarTakesMoreActions();
    void reportsAreRoutedByTicket();
    void engineActionsSayWhatTheyDoAndAskBeforeDiscardingTheLab();
    void nodeLegendNamesOnlyWatchedNodes();
    void reorgDiffSaysWhatItAmountsTo();
    void reorgDiffShortensHashesOnce();
    void exportSuffixFollowsTheFilter_data();
    void exportSuffixFollowsTheFilter();
    void exportSaysWhereTheFileIs();
    void outboxSafeHeightInWords_data();
    void outboxSafeHeightInWords();
    void stateStripRowsAreLabelled();
    void trayFollowsTheOneState();
    void labOffersOnlyWhatCanWork_data();
    void labOffersOnlyWhatCanWork();
    void bannersSayWhatIsTrue();
    void cursorLagChartsTheHeadItsLagIsCountedFrom_data();
    void cursorLagChartsTheHeadItsLagIsCountedFrom();
    void theHeadShowsWhileSynced();
    void dataIncompleteBannerCountsInWords_data();
    void dataIncompleteBannerCountsInWords();
    void bannerDialogsKeepTheirOwnColours_data();
    void bannerDialogsKeepTheirOwnColours();
    void repairDialogIsReadable();
    void reorgDiffShowsTokenUnits();

private:
    QTemporaryDir m_config; // QSettings ("Don't ask again") go here, not to ~/.config
};

void TestUiParts::outboxChartsOnlyCountsItRead()
{
    // A database that cannot be opened: the environment is named, but its outbox counts
    // were never read. Zeros nobody read are not an empty outbox: nothing charted, and the
    // panel keeps saying why no data comes.
    EngineHost host;
    ui::OutboxPanel outbox(&host);
    EngineStatus s = withNode("http://a");
    s.environmentId = "env-x";
    s.indexerFailure = "database /tmp is a directory";
    emit host.statusAvailable(s);
    QCOMPARE(outbox.pointCount(ui::OutboxPanel::Pending), 0);
    QVERIFY(!outbox.placeholderText().isEmpty());
    // Once read, even zero is a count.
    s.storedReadAt = QDateTime::currentDateTimeUtc();
    emit host.statusAvailable(s);
    QCOMPARE(outbox.pointCount(ui::OutboxPanel::Pending), 1);
}

void TestUiParts::panelsFollowTheHost()
{
    EngineHost host;
    ui::CursorLagPanel lag(&host);
    ui::ReorgPanel reorgs(&host);
    ui::OutboxPanel outbox(&host);
    ui::NodeHealthPanel health(&host);
    ui::CheckpointView checkpoint(&host);

    // Nodes polled, nothing indexing yet: node health draws, the others keep waiting.
    EngineStatus s = withNode("http://a");
    emit host.statusAvailable(s);
    QVERIFY2(health.summary().contains("1 node: caught up"), qPrintable(health.summary()));
    QCOMPARE(health.stateStrip()->segmentCount("http://a"), 1);
    QVERIFY(health.placeholderText().isEmpty());
    QCOMPARE(lag.pointCount(ui::CursorLagPanel::Head), 0);
    QVERIFY(!lag.placeholderText().isEmpty());
    QCOMPARE(outbox.pointCount(ui::OutboxPanel::Pending), 0);
    QCOMPARE(checkpoint.field("number"), QStringLiteral("-"));

    // Indexing: every panel shows its part of the same snapshot.
    s.environmentId = "env-x";
    s.chainId = 31337;
    s.headBlock = 120;
    s.checkpoint = 100;
    s.storedCheckpoint = 100;
    s.checkpointHash = "0xabc";
    s.generation = 2;
    s.indexerState = "syncing";
    s.outboxPending = 4;
    s.recentReorgs = {reorg(7, "parent mismatch", 3), reorg(8, "absence", 5),
                      reorg(9, "repair", 12)};
    s.storedReadAt = QDateTime::currentDateTimeUtc(); // the counts were read
    emit host.statusAvailable(s);
    QCOMPARE(lag.pointCount(ui::CursorLagPanel::Lag), 1);
    QVERIFY2(lag.summary().contains("syncing | lag 20 blocks"), qPrintable(lag.summary()));
    QCOMPARE(outbox.pointCount(ui::OutboxPanel::Pending), 1);
    // No sink: the backlog only grows, so no chart, and the panel says why and where to go.
    QCOMPARE(outbox.summary(),
             QStringLiteral("No delivery sink configured; 4 rows kept at checkpoint 100"));
    QVERIFY(!outbox.isChartVisible());
    auto* notice = outbox.findChild<QLabel*>(QStringLiteral("noSinkNotice"));
    QVERIFY(notice && !notice->isHidden());
    QSignalSpy toSettings(&outbox, &ui::OutboxPanel::settingsRequested);
    emit notice->linkActivated(QStringLiteral("settings"));
    QCOMPARE(toSettings.size(), 1);
    s.outboxSink = "http://127.0.0.1:9/hook";
    s.safeHeight = 118;
    s.confirmations = 2;
    emit host.statusAvailable(s);
    QVERIFY(outbox.isChartVisible());
    QVERIFY(notice->isHidden());
    QVERIFY2(outbox.summary().startsWith("4 pending at checkpoint 100 (oldest"),
             qPrintable(outbox.summary()));
    QVERIFY2(outbox.summary().endsWith("deliverable up to block 118 (head 120, 2 confirmations)"),
             qPrintable(outbox.summary()));
    // One bar set per live reason, in the Palette's order; each bar knows its reorg.
    QCOMPARE(ui::Palette::liveReorgReasons(),
             (QStringList{"hash mismatch", "parent mismatch", "absence", "repair"}));
    QVERIFY(reorgs.barValues(0).isEmpty());
    QCOMPARE(reorgs.barValues(1), (QList<double>{3}));
    QCOMPARE(reorgs.barValues(2), (QList<double>{5}));
    QCOMPARE(reorgs.barValues(3), (QList<double>{12})); // a repair: a set of its own
    QCOMPARE(reorgs.reorgIdAt(1, 0), 7);
    QCOMPARE(reorgs.reorgIdAt(2, 0), 8);
    QCOMPARE(reorgs.reorgIdAt(3, 0), 9);
    QCOMPARE(reorgs.reorgIdAt(0, 0), -1);
    QCOMPARE(reorgs.summary(), QStringLiteral("3 reorgs"));
    QCOMPARE(checkpoint.field("environment"), QStringLiteral("env-x"));
    QCOMPARE(checkpoint.field("number"), QStringLiteral("100"));
    QCOMPARE(checkpoint.field("hash"), QStringLiteral("0xabc"));
    QCOMPARE(checkpoint.field("generation"), QStringLiteral("2"));
    QCOMPARE(checkpoint.field("nope"), QString());
    // The live checkpoint moves on before the next stored row is read: the view keeps the
    // stored number with its own hash, never the new number beside the old hash.
    s.checkpoint = 101;
    emit host.statusAvailable(s);
    QCOMPARE(checkpoint.field("number"), QStringLiteral("100"));
    QCOMPARE(checkpoint.field("hash"), QStringLiteral("0xabc"));
    // So does the outbox count, read in the same snapshot as the stored row.
    QVERIFY2(outbox.summary().startsWith("4 pending at checkpoint 100 ("),
             qPrintable(outbox.summary()));
    s.storedCheckpoint = 101;
    s.checkpointHash = "0xdef";
    emit host.statusAvailable(s);
    QCOMPARE(checkpoint.field("number"), QStringLiteral("101"));
    QCOMPARE(checkpoint.field("hash"), QStringLiteral("0xdef"));

    // The diff the host sends opens in the reorg panel, replacing the previous one.
    engine::ReorgDiff diff;
    diff.reorg = s.recentReorgs.first();
    emit host.reorgDiffAvailable(diff);
    QPointer<ui::ReorgDiffDialog> first = reorgs.lastDiffDialog();
    QVERIFY(first);
    QVERIFY2(first->summary().startsWith("Reorg 7 (parent mismatch)"),
             qPrintable(first->summary()));
    diff.reorg = s.recentReorgs.last();
    emit host.reorgDiffAvailable(diff);
    QVERIFY(reorgs.lastDiffDialog() && reorgs.lastDiffDialog() != first);
    QTRY_VERIFY(!first); // closed, deleted on close
}

void TestUiParts::toolbarsFollowTheHost()
{
    EngineHost host;
    ui::EngineToolBar engineBar(&host);
    ui::LabToolBar labBar(&host);
    QVERIFY(!engineBar.devnetAction()->isEnabled());
    QVERIFY(!labBar.action("reorg")->isEnabled());
    QCOMPARE(labBar.verdictBadge()->state(), engine::InvariantVerdict::State::None);

    EngineStatus s = withNode("http://a");
    s.managedDevnet = true;
    s.devnetRunning = true;
    s.labReady = true;
    s.environmentId = "env-x";
    s.demoTraffic = true;
    s.verdict.state = engine::InvariantVerdict::State::Holds;
    emit host.statusAvailable(s);
    QVERIFY(engineBar.devnetAction()->isEnabled());
    // Named by what a click does, never a check mark beside "Stop devnet".
    QCOMPARE(engineBar.devnetAction()->text(), QStringLiteral("Stop devnet"));
    QVERIFY(!engineBar.devnetAction()->isCheckable());
    QVERIFY(!engineBar.pauseAction()->isCheckable());
    QVERIFY(labBar.action("reorg")->isEnabled());
    QVERIFY(labBar.action("check")->isEnabled());
    QVERIFY(!labBar.action("proxy")->isEnabled()); // no lab nodes to put faults on
    QVERIFY(labBar.action("demo")->isChecked());
    ui::VerdictBadge* badge = labBar.verdictBadge();
    QCOMPARE(badge->text(), QStringLiteral("invariants hold"));
    QVERIFY(badge->styleSheet().contains(
        ui::Palette::verdict(engine::InvariantVerdict::State::Holds).name()));
    // An open completeness alert: what is stored holds, but not green over the gap.
    s.openAlerts << indexer::CompletenessAlert{};
    emit host.statusAvailable(s);
    QCOMPARE(badge->text(), QStringLiteral("invariants hold for what is stored; data incomplete"));
    QVERIFY(badge->styleSheet().contains(ui::Palette::screen(ui::Palette::Tone::Caution).name()));
    QVERIFY(!badge->styleSheet().contains(
        ui::Palette::verdict(engine::InvariantVerdict::State::Holds).name()));
    s.openAlerts.clear();
    s.labNodes = {"http://127.0.0.1:1"};
    s.verdict.state = engine::InvariantVerdict::State::Violated;
    s.crashArmed = "after-commit";
    emit host.statusAvailable(s);
    QVERIFY(labBar.action("proxy")->isEnabled());
    QCOMPARE(badge->text(), QStringLiteral("invariants VIOLATED | crash armed at after-commit"));
    QVERIFY(badge->styleSheet().contains(ui::Palette::screen(ui::Palette::Tone::Bad).name()));

    // Pause follows the engine when the engine's state changes, not a snapshot that was
    // already on its way when the user clicked.
    const QString resume = QStringLiteral("Resume indexing");
    s.indexingPaused = true;
    emit host.statusAvailable(s);
    QCOMPARE(engineBar.pauseAction()->text(), resume);
    engineBar.pauseAction()->trigger(); // the user resumes
    QCOMPARE(engineBar.pauseAction()->text(), QStringLiteral("Pause indexing"));
    emit host.statusAvailable(s); // still says paused
    QCOMPARE(engineBar.pauseAction()->text(), QStringLiteral("Pause indexing"));
    s.indexingPaused = false;
    emit host.statusAvailable(s);
    s.indexingPaused = true; // paused again by the engine (a crash, a reset)
    emit host.statusAvailable(s);
    QCOMPARE(engineBar.pauseAction()->text(), resume);
    s.indexingPaused = false;

    // The engine stopped: the lab and the devnet control wait for it.
    s.connection = EngineStatus::Connection::Stopped;
    emit host.statusAvailable(s);
    QVERIFY(!engineBar.devnetAction()->isEnabled());
    QVERIFY(!labBar.action("reorg")->isEnabled());
    QVERIFY(labBar.action("check")->isEnabled()); // any environment can be checked
    QSignalSpy restart(&engineBar, &ui::EngineToolBar::restartRequested);
    for (QAction* a : engineBar.menu()->actions())
        if (a->text() == QLatin1String("Restart engine"))
            a->trigger();
    QCOMPARE(restart.size(), 1);
}

void TestUiParts::reorgDiffShortensHashesOnce()
{
    // Real lengths: a 32-byte tx hash, 20-byte addresses. Each shortened value fits its
    // column as the dialog opens ("0x47d7…2266"), never shortened again by the view
    // ("0x47d7……").
    engine::ReorgDiff diff;
    diff.reorg = reorg(4, "hash mismatch", 3);
    engine::ReorgDiff::Item it;
    it.kind = QStringLiteral("transfer_removed");
    it.blockNumber = 405;
    it.logIndex = 12;
    it.txHash =
        QStringLiteral("0x47d7c2f0e1b8a4d3c6e9f2a5b8c1d4e7f0a3b6c9d2e5f8a1b4c7d0e3f6a92266");
    it.contract = QStringLiteral("0x5fbdb2315678afecb367f032d93f642f64180aa3");
    it.from = QStringLiteral("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
    it.to = QStringLiteral("0x70997970c51812dc3a010c7d01b50e0d17dc79c8");
    it.value = QStringLiteral("1000");
    diff.items = {it};
    ui::ReorgDiffDialog dialog(diff);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QTableWidget* t = dialog.table();
    const QFontMetrics fm(t->font());
    // The delegate's text margin, each side.
    const int margin = t->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, t) + 1;
    int hashes = 0;
    for (int c = 0; c < t->columnCount(); ++c) {
        const QString text = t->item(0, c)->text();
        if (!text.startsWith("0x"))
            continue;
        ++hashes;
        QCOMPARE(text.count(QChar(0x2026)), 1);
        const int room = t->visualItemRect(t->item(0, c)).width() - 2 * margin;
        QVERIFY2(fm.horizontalAdvance(text) <= room,
                 qPrintable(QStringLiteral("column %1: \"%2\" is %3 px in %4")
                                .arg(c)
                                .arg(text)
                                .arg(fm.horizontalAdvance(text))
                                .arg(room)));
    }
    QCOMPARE(hashes, 4);
    // A column the user narrows: what the view paints keeps one ellipsis and the end.
    const QString shown = t->item(0, 3)->text();
    t->setColumnWidth(3, fm.horizontalAdvance(shown) / 2 + 2 * margin);
    const QString painted = fm.elidedText(shown, t->textElideMode(),
                                          t->visualItemRect(t->item(0, 3)).width() - 2 * margin);
    QVERIFY2(painted.count(QChar(0x2026)) == 1 && painted.startsWith("0x") && painted.endsWith("6"),
             qPrintable(painted));
}

void TestUiParts::reorgDiffSaysWhatItAmountsTo()
{
    engine::ReorgDiff diff;
    diff.reorg = reorg(4, "hash mismatch", 3);
    using Again = engine::ReorgDiff::Item::Again;
    const auto item = [](const QString& kind, Again again = Again::No) {
        engine::ReorgDiff::Item it;
        it.kind = kind;
        it.again = again;
        it.txHash = "0x" + QString(64, 'b');
        return it;
    };
    diff.items = {item("transfer_removed", Again::SameTransaction), item("transfer_removed"),
                  item("outbox_dropped"), item("balance_changed")};
    QCOMPARE(ui::ReorgDiffDialog::countsText(diff),
             QStringLiteral("2 transfers removed (1 back in the re-indexed chain), 1 outbox row "
                            "dropped, 0 delivered rows retracted, 1 holder's balance changed"));
    engine::ReorgDiff moved = diff;
    moved.items[1].again = Again::OtherTransaction;
    QCOMPARE(
        ui::ReorgDiffDialog::countsText(moved),
        QStringLiteral(
            "2 transfers removed (2 back in the re-indexed chain, 1 of them in "
            "other transactions), 1 outbox row dropped, 0 delivered rows retracted, 1 holder's "
            "balance changed"));
    // Rows sent without an answer are retracted like delivered ones, and named apart.
    engine::ReorgDiff unanswered = diff;
    unanswered.items << item("outbox_unconfirmed_retracted") << item("outbox_unconfirmed_retracted")
                     << item("outbox_delivered_reorged");
    QCOMPARE(ui::ReorgDiffDialog::countsText(unanswered),
             QStringLiteral("2 transfers removed (1 back in the re-indexed chain), 1 outbox row "
                            "dropped, 1 delivered row and 2 rows sent without an answer "
                            "retracted, 1 holder's balance changed"));
    QCOMPARE(ui::ReorgDiffDialog::againText(Again::OtherTransaction),
             QStringLiteral("yes, in another transaction"));
    ui::ReorgDiffDialog dialog(diff);
    QTableWidget* t = dialog.table();
    // The tx hash column elides, with the whole hash on hover; re-included says so.
    QCOMPARE(t->item(0, 3)->text(), QString("0xbbbb\u2026bbbb"));
    QCOMPARE(t->item(0, 3)->toolTip(), "0x" + QString(64, 'b'));
    QCOMPARE(t->item(0, 8)->text(), QStringLiteral("yes"));
    QCOMPARE(t->item(1, 8)->text(), QStringLiteral("no"));
    QCOMPARE(t->horizontalHeaderItem(10)->text(),
             QStringLiteral("after rollback, before re-index"));
    dialog.kindFilter()->setCurrentIndex(1); // transfers
    QList<bool> hidden;
    for (int r = 0; r < t->rowCount(); ++r)
        hidden << t->isRowHidden(r);
    QCOMPARE(hidden, (QList<bool>{false, false, true, true}));
    dialog.kindFilter()->setCurrentIndex(0);
    QVERIFY(!t->isRowHidden(3));
    // The reorg list beside the bars: newest first, a click asks for that diff.
    EngineHost host;
    ui::ReorgPanel panel(&host);
    EngineStatus s = withNode("http://a");
    s.environmentId = "env-x";
    s.recentReorgs = {reorg(7, "parent mismatch", 3), reorg(8, "absence", 5)};
    emit host.statusAvailable(s);
    QCOMPARE(panel.reorgList()->count(), 2);
    QVERIFY(panel.reorgList()->item(0)->text().startsWith("#8 "));
}

void TestUiParts::exportSuffixFollowsTheFilter_data()
{
    QTest::addColumn<QString>("typed");
    QTest::addColumn<QString>("filter");
    QTest::addColumn<QString>("path");
    const QString pdf = "PDF report (*.pdf)";
    const QString json = "JSON, machine-readable (*.json)";
    QTest::newRow("no suffix takes the filter's") << "/tmp/report" << pdf << "/tmp/report.pdf";
    QTest::newRow("a wrong suffix too") << "/tmp/report.txt" << json << "/tmp/report.txt.json";
    QTest::newRow("a format suffix stays") << "/tmp/report.csv" << pdf << "/tmp/report.csv";
    QTest::newRow("upper case is a format") << "/tmp/R.PDF" << json << "/tmp/R.PDF";
    QTest::newRow("no filter: unchanged") << "/tmp/report"
                                          << ""
                                          << "/tmp/report";
}

void TestUiParts::exportSuffixFollowsTheFilter()
{
    QFETCH(QString, typed);
    QFETCH(QString, filter);
    QFETCH(QString, path);
    QCOMPARE(ui::ReportExporter::withFormatSuffix(typed, filter), path);
}

void TestUiParts::exportSaysWhereTheFileIs()
{
    ui::ExportNotice notice;
    QCOMPARE(notice.text(), QString());
    notice.showExported(m_config.filePath("out/report.pdf"));
    // The file's name (the status bar has no room for a path); where it is, on hover.
    QCOMPARE(notice.text(), QStringLiteral("Exported report.pdf"));
    QCOMPARE(notice.path(), m_config.filePath("out/report.pdf"));
    QCOMPARE(notice.findChild<QToolButton*>(QStringLiteral("openExport"))->text(),
             QStringLiteral("report.pdf"));
    QVERIFY(notice.findChild<QToolButton*>(QStringLiteral("openExport"))
                ->toolTip()
                .contains(m_config.filePath("out/report.pdf")));
    QSignalSpy open(&notice, &ui::ExportNotice::openRequested);
    notice.findChild<QToolButton*>(QStringLiteral("openExport"))->click();
    notice.findChild<QToolButton*>(QStringLiteral("showExportFolder"))->click();
    QCOMPARE(open.size(), 2);
    QCOMPARE(open[0][0].toUrl(), QUrl::fromLocalFile(m_config.filePath("out/report.pdf")));
    QCOMPARE(open[1][0].toUrl(), QUrl::fromLocalFile(m_config.filePath("out")));
    // An archived environment's window exports too.
    EngineHost host;
    ui::EnvironmentWindow w("lab-archived", true, &host);
    QSignalSpy asked(&w, &ui::EnvironmentWindow::exportRequested);
    w.findChild<QPushButton*>(QStringLiteral("exportEnvironmentReport"))->click();
    QCOMPARE(asked.size(), 1);
    QCOMPARE(asked[0][0].toString(), QStringLiteral("lab-archived"));
}

void TestUiParts::nodeLegendNamesOnlyWatchedNodes()
{
    EngineHost host;
    ui::NodeHealthPanel health(&host);
    EngineStatus s = withNode("http://127.0.0.1:1001");
    s.environmentId = "lab-a";
    emit host.statusAvailable(s);
    // A restart: new lab nodes on new ports; the old one is not named any more.
    s = withNode("http://127.0.0.1:2001");
    s.environmentId = "lab-b";
    emit host.statusAvailable(s);
    QVERIFY(!health.isSeriesInLegend(0));
    QVERIFY(health.isSeriesInLegend(1));
    QCOMPARE(health.segmentMarkCount(), 1);
}

void TestUiParts::outboxSafeHeightInWords_data()
{
    QTest::addColumn<int>("safe"); // -1: none
    QTest::addColumn<int>("head");
    QTest::addColumn<int>("confirmations");
    QTest::addColumn<QString>("text");
    QTest::newRow("at the head") << 44 << 44 << 0
                                 << "deliverable up to block 44 (head 44, 0 confirmations)";
    QTest::newRow("one confirmation")
        << 43 << 44 << 1 << "deliverable up to block 43 (head 44, 1 confirmation)";
    QTest::newRow("no ready node")
        << -1 << 44 << 12 << "nothing deliverable yet (no ready node; 12 confirmations)";
}

void TestUiParts::outboxSafeHeightInWords()
{
    QFETCH(int, safe);
    QFETCH(int, head);
    QFETCH(int, confirmations);
    QFETCH(QString, text);
    EngineStatus s;
    if (safe >= 0)
        s.safeHeight = quint64(safe);
    s.headBlock = quint64(head);
    s.confirmations = quint64(confirmations);
    QCOMPARE(ui::OutboxPanel::deliverableText(s), text);
}

// Answers the next modal confirmation: clicks the button whose text starts with `button`,
// ticking "Don't ask again" first when asked to. Records the question's title.
void answerNextConfirmation(const QString& button, bool dontAskAgain, QString* title)
{
    QTimer::singleShot(0, [=] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        QVERIFY(box);
        *title = box->windowTitle();
        if (dontAskAgain)
            box->checkBox()->setChecked(true);
        for (QAbstractButton* b : box->buttons())
            if (b->text().startsWith(button)) {
                b->click();
                return;
            }
        QFAIL("no such button");
    });
}

void TestUiParts::engineActionsSayWhatTheyDoAndAskBeforeDiscardingTheLab()
{
    QVERIFY(m_config.isValid());
    qputenv("XDG_CONFIG_HOME", m_config.path().toUtf8());
    QSettings().remove(ui::discardLabConfirmKey());
    EngineHost host;
    QWidget window;
    ui::EngineToolBar bar(&host, &window);
    QSignalSpy restart(&bar, &ui::EngineToolBar::restartRequested);
    QSignalSpy stop(&bar, &ui::EngineToolBar::stopRequested);
    EngineStatus s = withNode("http://127.0.0.1:8545");
    s.managedDevnet = true;
    s.devnetRunning = true;
    emit host.statusAvailable(s);

    // Toggles are labelled by the click's effect.
    QCOMPARE(bar.pauseAction()->text(), QStringLiteral("Pause indexing"));
    QCOMPARE(bar.devnetAction()->text(), QStringLiteral("Stop devnet"));
    s.indexingPaused = true;
    s.devnetRunning = false;
    emit host.statusAvailable(s);
    QCOMPARE(bar.pauseAction()->text(), QStringLiteral("Resume indexing"));
    QCOMPARE(bar.devnetAction()->text(), QStringLiteral("Start devnet"));
    QVERIFY(!bar.startAction()->isEnabled()); // running: nothing to start

    // A managed lab: Stop asks first, and Cancel changes nothing.
    QString title;
    answerNextConfirmation("Cancel", false, &title);
    bar.stopAction()->trigger();
    QCOMPARE(title, QStringLiteral("Stop the engine?"));
    QCOMPARE(stop.size(), 0);
    answerNextConfirmation("Restart the engine", false, &title);
    for (QAction* a : bar.menu()->actions())
        if (a->text() == QLatin1String("Restart engine"))
            a->trigger();
    QCOMPARE(title, QStringLiteral("Restart the engine?"));
    QCOMPARE(restart.size(), 1);
    // "Don't ask again" is remembered.
    answerNextConfirmation("Stop the engine", true, &title);
    bar.stopAction()->trigger();
    QCOMPARE(stop.size(), 1);
    QVERIFY(!QSettings().value(ui::discardLabConfirmKey(), true).toBool());
    title.clear();
    bar.stopAction()->trigger(); // no dialog: it would block here
    QCOMPARE(stop.size(), 2);

    // Stopped: Start engine appears, Stop goes.
    QSettings().remove(ui::discardLabConfirmKey());
    s.connection = EngineStatus::Connection::Stopped;
    emit host.statusAvailable(s);
    QVERIFY(bar.startAction()->isEnabled());
    QVERIFY(!bar.stopAction()->isEnabled());
    bar.startAction()->trigger(); // nothing to discard: no question
    QCOMPARE(restart.size(), 2);
    QCOMPARE(bar.pauseAction()->text(), QStringLiteral("Pause indexing"));
}

void TestUiParts::labToolBarTakesMoreActions()
{
    EngineHost host;
    ui::LabToolBar labBar(&host);
    QAction* mine = labBar.addLabAction(
        {.name = "mine", .text = "Mine a block", .enabledWhen = [](const EngineStatus& s) {
             return s.headBlock.has_value();
         }});
    QAction* quiet = labBar.addLabAction({.name = "quiet", .text = "Menu only", .menuOnly = true});
    QAction* toggle = labBar.addLabAction(
        {.name = "toggle",
         .text = "Forked replica",
         .enabledWhen = [](const EngineStatus&) { return true; },
         .checkedWhen = [](const EngineStatus& s) { return !s.replicaUrl.isEmpty(); }});
    QVERIFY(!mine->isCheckable());
    QVERIFY(toggle->isCheckable());
    QCOMPARE(labBar.action("mine"), mine);
    QVERIFY(labBar.menu()->actions().contains(mine));
    QVERIFY(labBar.menu()->actions().contains(quiet));
    QVERIFY(!labBar.actions().contains(quiet));
    // On the toolbar after the built-in actions; the verdict badge stays first, where an
    // overflowing toolbar still shows it.
    const QList<QAction*> onBar = labBar.actions();
    QCOMPARE(labBar.widgetForAction(onBar.first()), labBar.verdictBadge());
    QVERIFY(onBar.indexOf(mine) > onBar.indexOf(labBar.action("reset")));
    QVERIFY(onBar.indexOf(mine) > 1); // after the badge and its separator
    // Enabled by its own condition, snapshot by snapshot.
    QVERIFY(!mine->isEnabled());
    EngineStatus s;
    s.headBlock = 5;
    emit host.statusAvailable(s);
    QVERIFY(mine->isEnabled());
    QVERIFY(!quiet->isEnabled());
    emit host.statusAvailable(EngineStatus{});
    QVERIFY(!mine->isEnabled());
    // A toggle follows the snapshots without sending anything back.
    QSignalSpy toggled(toggle, &QAction::toggled);
    s.replicaUrl = "http://127.0.0.1:2";
    emit host.statusAvailable(s);
    QVERIFY(toggle->isChecked());
    emit host.statusAvailable(EngineStatus{});
    QVERIFY(!toggle->isChecked());
    QCOMPARE(toggled.size(), 0);
}

void TestUiParts::reportsAreRoutedByTicket()
{
    QTemporaryDir dir;
    EngineHost host;
    ui::ReportExporter exporter(&host);
    ui::EnvironmentWindow window("env-old", true, &host);
    QSignalSpy finished(&exporter, &ui::ReportExporter::exportFinished);
    QSignalSpy logged(&exporter, &ui::ReportExporter::logMessage);

    const QString json = dir.filePath("report.json");
    // The window's state at the time: a live export carries it.
    EngineStatus paused = withNode("http://a");
    paused.environmentId = "env-live";
    paused.indexingPaused = true;
    paused.checkpoint = 100;
    paused.headBlock = 120;
    emit host.statusAvailable(paused);
    exporter.exportReport(json);
    QCOMPARE(exporter.pendingTickets().size(), 1);
    const quint64 exportTicket = exporter.pendingTickets().first();
    exporter.requestFor(&window);
    QCOMPARE(exporter.pendingTickets().size(), 2);
    const quint64 windowTicket =
        exporter.pendingTickets().at(exporter.pendingTickets().first() == exportTicket ? 1 : 0);
    QVERIFY(windowTicket != exportTicket);

    // Another caller's ticket: nothing happens.
    emit host.reportAvailable(std::max(exportTicket, windowTicket) + 1000, reportFor("env-x"));
    QCOMPARE(finished.size(), 0);
    QCOMPARE(exporter.pendingTickets().size(), 2);
    QVERIFY(!QFile::exists(json));
    // Each answer goes where its ticket says, whatever the order.
    emit host.reportAvailable(windowTicket, reportFor("env-old"));
    QVERIFY2(window.summaryText().startsWith("Environment env-old"),
             qPrintable(window.summaryText()));
    QVERIFY(!QFile::exists(json));
    emit host.reportAvailable(exportTicket, reportFor("env-live"));
    QCOMPARE(finished.size(), 1);
    QCOMPARE(finished.first().at(0).toString(), json);
    QVERIFY2(finished.first().at(1).toBool(), qPrintable(finished.first().at(2).toString()));
    QFile f(json);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QJsonObject exported = QJsonDocument::fromJson(f.readAll()).object();
    QCOMPARE(exported.value("environment").toObject().value("id").toString(),
             QStringLiteral("env-live"));
    QCOMPARE(exported.value("app_state").toString(), QStringLiteral("paused"));
    QVERIFY(!window.summaryText().contains("env-live"));
    QVERIFY(exporter.pendingTickets().isEmpty());
    // A second answer for a ticket already served is dropped.
    emit host.reportAvailable(exportTicket, reportFor("env-other"));
    QCOMPARE(finished.size(), 1);

    // A failure reaches the export that asked, and the log.
    const QString csv = dir.filePath("report.csv");
    exporter.exportReport(csv);
    const quint64 failing = exporter.pendingTickets().first();
    logged.clear();
    emit host.reportFailed(failing, "node gone");
    QCOMPARE(finished.size(), 2);
    QCOMPARE(finished.last().at(0).toString(), csv);
    QVERIFY(!finished.last().at(1).toBool());
    QVERIFY(finished.last().at(2).toString().contains("node gone"));
    QCOMPARE(logged.size(), 1);
    QCOMPARE(logged.first().at(0).toString(), QStringLiteral("error"));
    QVERIFY(!QFile::exists(csv));
    // A window closed before its answer came: the answer is dropped.
    auto* closed = new ui::EnvironmentWindow("env-gone", true, &host);
    exporter.requestFor(closed);
    const quint64 orphan = exporter.pendingTickets().first();
    delete closed;
    emit host.reportAvailable(orphan, reportFor("env-gone"));
    QVERIFY(exporter.pendingTickets().isEmpty());
    // A suffix it cannot write is refused at once, without asking the engine.
    exporter.exportReport(dir.filePath("report.txt"));
    QCOMPARE(finished.size(), 3);
    QVERIFY(!finished.last().at(1).toBool());
    QVERIFY(exporter.pendingTickets().isEmpty());
    // Whatever the host still sends for the tickets served above (queued) is dropped.
    QCoreApplication::processEvents();
    QCOMPARE(finished.size(), 3);
    QVERIFY(!QFile::exists(csv));
}

void TestUiParts::stateStripRowsAreLabelled()
{
    ui::StateStrip strip;
    strip.addSample("http://127.0.0.1:8545", 100, health::NodeState::CaughtUp);
    strip.addSample("http://127.0.0.1:8546", 100, health::NodeState::Offline);
    strip.addSample("http://127.0.0.1:8546", 110, health::NodeState::Offline);
    strip.setTimeRange(100, 120, 60, 260);
    strip.resize(300, strip.sizeHint().height());
    QCOMPARE(strip.rowLabel(0), QStringLiteral("127.0.0.1:8545"));
    QCOMPARE(strip.rowLabel(1), QStringLiteral("127.0.0.1:8546"));
    QCOMPARE(strip.rowAt(3), 0);
    QCOMPARE(strip.rowAt(16), 1);
    QCOMPARE(strip.rowAt(200), -1);
    // Hover: the node, its state at that time and what it means.
    const QString hover = strip.hoverTextAt(QPoint(160, 16));
    QVERIFY2(hover.startsWith("http://127.0.0.1:8546\noffline: "), qPrintable(hover));
    // The labels are drawn in the margin left of the chart's axis (pixels there are not all
    // background), and nothing is drawn there without a margin.
    QImage image(strip.size(), QImage::Format_ARGB32);
    image.fill(Qt::white);
    strip.render(&image);
    int ink = 0;
    for (int x = 0; x < 56; ++x)
        for (int y = 0; y < image.height(); ++y)
            ink += image.pixelColor(x, y).lightness() < 128;
    QVERIFY2(ink > 20, qPrintable(QString::number(ink)));
}

void TestUiParts::trayFollowsTheOneState()
{
    EngineHost host;
    QWidget window;
    ui::TrayStatus tray(&host, &window);
    QSignalSpy announced(&tray, &ui::TrayStatus::announced);
    QCOMPARE(tray.text(), QStringLiteral("Forkscope: starting"));
    EngineStatus s = withNode("http://a");
    s.environmentId = "lab-1";
    s.chainId = 31337;
    s.headBlock = 100;
    s.checkpoint = 100;
    emit host.statusAvailable(s);
    QCOMPARE(tray.text(), QStringLiteral("Forkscope: synced (lab-1)"));
    QCOMPARE(announced.size(), 0);
    // Into a bad state: said once, not on every status that repeats it.
    s.connection = EngineStatus::Connection::Failed;
    s.message = "database /tmp is a directory";
    emit host.statusAvailable(s);
    emit host.statusAvailable(s);
    QCOMPARE(tray.text(),
             QStringLiteral("Forkscope: failed: database /tmp is a directory (lab-1)"));
    QCOMPARE(announced.size(), 1);
    QCOMPARE(announced.first().first().toString(), tray.text());
    // Back to good: quiet; another failure: said again.
    s.connection = EngineStatus::Connection::Connected;
    emit host.statusAvailable(s);
    QCOMPARE(tray.text(), QStringLiteral("Forkscope: synced (lab-1)"));
    QCOMPARE(announced.size(), 1);
    s.connection = EngineStatus::Connection::Failed;
    emit host.statusAvailable(s);
    QCOMPARE(announced.size(), 2);
    // The offscreen platform has no tray: no icon, the text still answers.
    QCOMPARE(tray.hasIcon(), QSystemTrayIcon::isSystemTrayAvailable());
}

void TestUiParts::labOffersOnlyWhatCanWork_data()
{
    // A lab that is set up, its indexer stopped for one reason or another: what changes the
    // chain is offered only while something indexes it; the fault proxy (to remove the
    // fault) and the reset stay.
    QTest::addColumn<int>("halt");
    QTest::addColumn<bool>("chain");
    QTest::newRow("indexing") << int(EngineStatus::IndexerHalt::None) << true;
    QTest::newRow("stopped at a deep reorg") << int(EngineStatus::IndexerHalt::DeepReorg) << false;
    QTest::newRow("waiting at a block not fetched whole")
        << int(EngineStatus::IndexerHalt::DataIncomplete) << false;
}

void TestUiParts::labOffersOnlyWhatCanWork()
{
    QFETCH(int, halt);
    QFETCH(bool, chain);
    EngineHost host;
    ui::LabToolBar bar(&host);
    EngineStatus s = withNode("http://127.0.0.1:1");
    s.managedDevnet = true;
    s.devnetRunning = true;
    s.labReady = true;
    s.environmentId = "lab-1";
    s.labNodes = {"http://127.0.0.1:1", "http://127.0.0.1:2"};
    s.indexerHalt = EngineStatus::IndexerHalt(halt);
    emit host.statusAvailable(s);
    for (const char* name : {"reorg", "rollback", "crash", "replica", "writers", "lostack",
                             "outboxlostack", "deepreorg"})
        QVERIFY2(bar.action(name)->isEnabled() == chain, name);
    for (const char* name : {"proxy", "demo", "check", "reset"})
        QVERIFY2(bar.action(name)->isEnabled(), name);
}

void TestUiParts::bannersSayWhatIsTrue()
{
    QVERIFY(m_config.isValid());
    qputenv("XDG_CONFIG_HOME", m_config.path().toUtf8());
    EngineHost host;
    QSignalSpy logs(&host, &EngineHost::logMessage);

    // The Fault proxy dialog marks the node the indexer reads now, not node 1 for ever.
    const QStringList nodes{"http://127.0.0.1:1", "http://127.0.0.1:2"};
    ui::FaultProxyDialog proxy(nodes, {QJsonObject{}, QJsonObject{}}, nodes[1]);
    QVERIFY2(!proxy.nodeLabel(0).contains("indexed"), qPrintable(proxy.nodeLabel(0)));
    QVERIFY2(proxy.nodeLabel(1).contains("indexed"), qPrintable(proxy.nodeLabel(1)));

    // A devnet the user stopped: said as that, in caution colours, with Start devnet.
    ui::EngineErrorBanner banner;
    QSignalSpy startDevnet(&banner, &ui::EngineErrorBanner::startDevnetRequested);
    EngineStatus s = withNode("http://127.0.0.1:1");
    s.managedDevnet = true;
    s.devnetStoppedByUser = true;
    s.connection = EngineStatus::Connection::Unreachable;
    s.message = "HTTP 502";
    banner.apply(s);
    QVERIFY2(banner.text().startsWith("DEVNET STOPPED"), qPrintable(banner.text()));
    QVERIFY(!banner.text().contains("502"));
    QVERIFY(banner.styleSheet().contains(ui::Palette::screen(ui::Palette::Tone::Caution).name()));
    QVERIFY(!banner.button("retry")->isVisibleTo(&banner));
    QVERIFY(banner.button("startDevnet")->isVisibleTo(&banner));
    banner.button("startDevnet")->click();
    QCOMPARE(startDevnet.size(), 1);

    // The verdict after a real deep reorg says the stored blocks are not the node's chain.
    ui::VerdictBadge badge(&host);
    s.verdict.state = engine::InvariantVerdict::State::Diverged;
    emit host.statusAvailable(s);
    QCOMPARE(badge.text(), QStringLiteral("stored blocks are no longer the node's chain"));

    // The deep-reorg banner's Reset asks first, as the Lab menu's does: Cancel does nothing.
    ui::DeepReorgBanner deep(&host);
    s.deepReorgLimit = 3;
    s.deepReorgCheckpoint = 40;
    s.environmentId = "lab-1";
    s.indexerHalt = EngineStatus::IndexerHalt::DeepReorg;
    s.indexerFailure = "reorg deeper than --max-reorg-depth 3";
    s.devnetStoppedByUser = false;
    s.connection = EngineStatus::Connection::Connected;
    emit host.statusAvailable(s);
    QVERIFY(!deep.isHidden());
    // One banner for the stop: the error banner's Retry would lead back to it.
    banner.apply(s);
    QVERIFY2(banner.isHidden(), qPrintable(banner.text()));
    QString title;
    answerNextConfirmation("Cancel", false, &title);
    deep.resetButton()->click();
    QCOMPARE(title, QStringLiteral("Reset lab environment"));
    QCOMPARE(logs.size(), 0); // nothing was asked of the engine
    answerNextConfirmation("Reset", false, &title);
    deep.resetButton()->click();
    QTRY_COMPARE(logs.size(), 1); // asked (this host runs no lab, so it says why not)
    QVERIFY2(logs.first().at(1).toString().startsWith("lab reset"),
             qPrintable(logs.first().at(1).toString()));
}

void TestUiParts::cursorLagChartsTheHeadItsLagIsCountedFrom_data()
{
    QTest::addColumn<quint64>("indexerHead"); // the head the indexer saw last
    QTest::addColumn<quint64>("nodeHead");    // the indexed node's head, from node health
    QTest::addColumn<quint64>("checkpoint");
    QTest::addColumn<QString>("head");
    QTest::addColumn<QString>("lag");
    QTest::newRow("synced") << quint64(404) << quint64(404) << quint64(404) << "block 404"
                            << "0 blocks";
    QTest::newRow("syncing") << quint64(420) << quint64(420) << quint64(400) << "block 420"
                             << "20 blocks";
    // The indexer stopped at 404 (data incomplete); its node ran on to 435.
    QTest::newRow("stalled indexer, the node runs on")
        << quint64(404) << quint64(435) << quint64(404) << "block 435"
        << "31 blocks";
    QTest::newRow("one block behind") << quint64(405) << quint64(405) << quint64(404) << "block 405"
                                      << "1 block";
}

void TestUiParts::cursorLagChartsTheHeadItsLagIsCountedFrom()
{
    QFETCH(quint64, indexerHead);
    QFETCH(quint64, nodeHead);
    QFETCH(quint64, checkpoint);
    QFETCH(QString, head);
    QFETCH(QString, lag);
    EngineHost host;
    ui::CursorLagPanel panel(&host);
    panel.resize(640, 300);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    EngineStatus s = indexingThrough("http://a");
    s.headBlock = indexerHead;
    s.health.nodes[0].head = nodeHead;
    s.checkpoint = checkpoint;
    const QDateTime t0 = s.updatedAt;
    for (int i = 0; i < 30; ++i) {
        s.updatedAt = t0.addSecs(i);
        emit host.statusAvailable(s);
    }
    QCustomPlot* plot = panel.plot();
    plot->replot();
    // The head drawn is the one the lag is counted from: head - checkpoint is the lag.
    const auto newest = [plot](int series) {
        return (plot->graph(series)->data()->constEnd() - 1)->value;
    };
    QCOMPARE(newest(ui::CursorLagPanel::Head) - newest(ui::CursorLagPanel::Checkpoint),
             newest(ui::CursorLagPanel::Lag));
    // And the hover says it in blocks, not in an axis title.
    const double t = double(t0.addSecs(25).toMSecsSinceEpoch()) / 1000.0;
    const QPoint at(int(plot->xAxis->coordToPixel(t)), plot->axisRect()->rect().center().y());
    const QString hover = panel.hoverTextAt(at);
    QVERIFY2(hover.contains("head: " + head), qPrintable(hover));
    QVERIFY2(hover.contains(QStringLiteral("checkpoint: block %1").arg(checkpoint)),
             qPrintable(hover));
    QVERIFY2(hover.contains("lag: " + lag), qPrintable(hover));
    QVERIFY2(!hover.contains("height"), qPrintable(hover));
}

void TestUiParts::theHeadShowsWhileSynced()
{
    // Synced, head and checkpoint are the same line; the head must still be seen on the
    // chart (not only in its legend).
    EngineHost host;
    ui::CursorLagPanel panel(&host);
    panel.resize(640, 300);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    EngineStatus s = indexingThrough("http://a");
    const QDateTime t0 = s.updatedAt;
    for (int i = 0; i < 60; ++i) {
        s.updatedAt = t0.addSecs(i);
        s.headBlock = quint64(100 + i);
        s.health.nodes[0].head = s.headBlock;
        s.checkpoint = s.headBlock;
        emit host.statusAvailable(s);
    }
    QCustomPlot* plot = panel.plot();
    plot->replot();
    const QImage image = plot->toPixmap().toImage();
    const QRect data = plot->axisRect()->rect();
    const QColor headColor = ui::Palette::series(ui::Palette::Series::Head);
    int head = 0;
    for (int x = data.left(); x <= data.right(); ++x)
        for (int y = data.top(); y <= data.bottom(); ++y) {
            const QColor c = image.pixelColor(x, y);
            // The head's blue (pale where drawn translucently): blue well above red and
            // green, as neither the checkpoint's green nor the lag's red are.
            head += c.blue() > c.red() + 40 && c.blue() > c.green() + 15 ? 1 : 0;
        }
    QVERIFY2(head > 100, qPrintable(QStringLiteral("%1 pixels of the head's %2 in the chart")
                                        .arg(head)
                                        .arg(headColor.name())));
}

void TestUiParts::dataIncompleteBannerCountsInWords_data()
{
    QTest::addColumn<int>("alerts");
    QTest::addColumn<QString>("more"); // what the banner adds after the first alert
    QTest::newRow("one") << 1 << QString();
    QTest::newRow("two") << 2 << " (and 1 more range)";
    QTest::newRow("many") << 27 << " (and 26 more ranges)";
}

void TestUiParts::dataIncompleteBannerCountsInWords()
{
    QFETCH(int, alerts);
    QFETCH(QString, more);
    QList<indexer::CompletenessAlert> list;
    for (int i = 0; i < alerts; ++i) {
        indexer::CompletenessAlert a;
        a.id = i + 1;
        a.node = "http://127.0.0.1:1";
        a.fromBlock = a.toBlock = std::uint64_t(100 + i);
        a.what = "missing logs";
        list.append(a);
    }
    ui::DataIncompleteBanner banner;
    banner.setAlerts(list, {});
    QVERIFY2(!banner.text().contains("(s)"), qPrintable(banner.text()));
    if (more.isEmpty())
        QVERIFY2(!banner.text().contains("more"), qPrintable(banner.text()));
    else
        QVERIFY2(banner.text().contains(more), qPrintable(banner.text()));
}

void TestUiParts::bannerDialogsKeepTheirOwnColours_data()
{
    QTest::addColumn<QString>("banner");
    QTest::newRow("data incomplete") << "dataIncompleteBanner";
    QTest::newRow("engine error") << "engineErrorBanner";
    QTest::newRow("deep reorg") << "deepReorgBanner";
}

namespace {
// WCAG's contrast ratio of two colours (1 to 21; 4.5 is the floor for text).
double contrast(const QColor& a, const QColor& b)
{
    const auto luminance = [](const QColor& c) {
        const auto channel = [](double v) {
            return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
        };
        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) +
               0.0722 * channel(c.blueF());
    };
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

// How `label` is drawn on `surface`: its text colour against the surface's background.
double labelContrast(QLabel* label, QWidget* surface)
{
    surface->ensurePolished();
    label->ensurePolished();
    return contrast(label->palette().color(label->foregroundRole()),
                    surface->palette().color(surface->backgroundRole()));
}
} // namespace

void TestUiParts::bannerDialogsKeepTheirOwnColours()
{
    QFETCH(QString, banner);
    EngineHost host;
    ui::MainWindow w(&host);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* frame = w.findChild<QFrame*>(banner);
    QVERIFY(frame);
    // The banner's own text: white on red.
    auto* own = frame->findChild<QLabel*>(QString(), Qt::FindDirectChildrenOnly);
    QVERIFY(own);
    QVERIFY2(labelContrast(own, frame) >= 4.5,
             qPrintable(QString::number(labelContrast(own, frame))));
    // A dialog it opens (its child, as a confirmation is): the dialog's own colours.
    QDialog dialog(frame);
    auto* text = new QLabel("Roll back to block 404 and fetch again?", &dialog);
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    const double ratio = labelContrast(text, &dialog);
    QVERIFY2(ratio >= 4.5, qPrintable(QStringLiteral("contrast %1").arg(ratio)));
}

void TestUiParts::repairDialogIsReadable()
{
    // The one recovery flow the red banner offers: its dialog reads as a dialog.
    EngineHost host;
    ui::MainWindow w(&host);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    EngineStatus s = withNode("http://a");
    s.environmentId = "env-x";
    indexer::CompletenessAlert alert;
    alert.kind = "fetch";
    alert.what = "eth_getLogs returned fewer logs than the block's bloom commits to";
    alert.fromBlock = 405;
    alert.toBlock = 405;
    alert.node = "http://a";
    s.openAlerts << alert;
    emit host.statusAvailable(s);
    auto* repair = w.dataIncompleteBanner()->findChild<QPushButton*>("repairButton");
    QVERIFY(repair && repair->isVisible());
    double worst = 100;
    int labels = 0;
    QTimer::singleShot(0, [&] {
        auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget());
        if (!dialog)
            return;
        for (QLabel* l : dialog->findChildren<QLabel*>()) {
            if (l->text().isEmpty())
                continue;
            ++labels;
            worst = std::min(worst, labelContrast(l, dialog));
        }
        dialog->reject();
    });
    repair->click();
    QVERIFY(labels > 0);
    QVERIFY2(worst >= 4.5, qPrintable(QStringLiteral("contrast %1").arg(worst)));
}

void TestUiParts::reorgDiffShowsTokenUnits()
{
    engine::ReorgDiff diff;
    diff.reorg = reorg(4, "hash mismatch", 1);
    engine::ReorgDiff::Item transfer;
    transfer.kind = "transfer_removed";
    transfer.contract = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
    transfer.value = "12500000000000000000";
    engine::ReorgDiff::Item balance;
    balance.kind = "balance_changed";
    balance.contract = transfer.contract;
    balance.before = "999999987500000000000000000";
    balance.after = "1000000000000000000000000000";
    engine::ReorgDiff::Item other = transfer; // a token whose metadata was not read
    other.contract = "0x" + QString(40, 'e');
    diff.items = {transfer, balance, other};
    diff.tokens.insert(transfer.contract, chain::TokenInfo{18, "FSD"});
    ui::ReorgDiffDialog dialog(diff);
    QTableWidget* t = dialog.table();
    using D = ui::ReorgDiffDialog;
    QCOMPARE(t->item(0, D::ValueColumn)->text(), QStringLiteral("12.5 FSD"));
    QCOMPARE(t->item(0, D::ValueColumn)->toolTip(),
             QStringLiteral("12500000000000000000 raw units (18 decimals)"));
    QCOMPARE(t->item(1, D::BeforeColumn)->text(), QStringLiteral("999,999,987.5 FSD"));
    QCOMPARE(t->item(1, D::AfterColumn)->text(), QStringLiteral("1,000,000,000 FSD"));
    QCOMPARE(t->item(2, D::ValueColumn)->text(), other.value); // raw, not guessed
    // What it undid, in words: not a count of database rows.
    QVERIFY2(!dialog.summary().contains("rows"), qPrintable(dialog.summary()));
    QVERIFY2(dialog.summary().contains("1 block replaced after block 99"),
             qPrintable(dialog.summary()));
}

QTEST_MAIN(TestUiParts)
#include "tst_uiparts.moc"
