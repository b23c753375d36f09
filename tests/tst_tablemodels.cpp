// The lazily loaded table models, against a scripted engine: pages arrive by queued
// signal, stale pages are dropped, sorting and filtering restart paging, and the models
// keep Qt's model contract (QAbstractItemModelTester) throughout.
#include "ShortHex.h"
#include "TableBrowser.h"
#include "engine/TableQuery.h"
#include "models/PagedTableModel.h"

#include <QAbstractItemModelTester>
#include <QClipboard>
#include <QGuiApplication>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollBar>
#include <QSignalSpy>
#include <QStyle>
#include <QTableView>
#include <QtTest>

using namespace forkscope;
using engine::TablePage;
using engine::TableRequest;

namespace {
// Answers like the engine: `total` transfer rows, sorted by block (column 0).
class FakeEngine : public QObject
{
    Q_OBJECT
public:
    int total = 450;
    QList<TableRequest> requests;
    bool fail = false;
    QHash<QString, chain::TokenInfo> tokens; // sent with every page
    bool hold = false;                       // keep requests unanswered (answer() later)
    bool realHex = false;                    // hashes and addresses of their real length
    QList<TableRequest> held;

    void serve(const TableRequest& r)
    {
        requests << r;
        if (hold) {
            held << r;
            return;
        }
        QMetaObject::invokeMethod(
            this, [this, r] { emit pageAvailable(answer(r)); }, Qt::QueuedConnection);
    }
    TablePage answer(const TableRequest& r) const
    {
        TablePage p;
        p.request = r;
        if (fail) {
            p.error = "database is locked";
            p.atEnd = true;
            return p;
        }
        for (int i = r.offset; i < std::min(total, r.offset + r.limit); ++i) {
            const int block = r.descending ? total - i : i + 1;
            if (!r.filter.isEmpty() && !QString::number(block).contains(r.filter))
                continue;
            p.rows << QStringList{
                QString::number(block),
                QDateTime::fromSecsSinceEpoch(1'796'169'025 + block, Qt::UTC).toString(Qt::ISODate),
                "0",
                "0xtx",
                "0xtoken",
                "0xfrom",
                "0xto",
                "1"};
        }
        if (realHex)
            for (QStringList& row : p.rows) {
                row[3] = "0x47d7" + QString(56, 'c') + "2266";
                row[4] = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
                row[5] = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
                row[6] = "0x0000000000000000000000000000000000100021";
            }
        p.atEnd = r.offset + r.limit >= total;
        p.tokens = tokens;
        return p;
    }
signals:
    void pageAvailable(const engine::TablePage& page);
};
} // namespace

class TestTableModels : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        qRegisterMetaType<TablePage>();
        qRegisterMetaType<TableRequest>();
    }
    void loadsPageByPageAsTheViewScrolls();
    void sortingRestartsFromTheFirstPage();
    void stalePagesAreIgnored();
    void errorsAreShownNotHidden();
    void filterFromTheBrowser();
    void columnsPerKind_data();
    void columnsPerKind();
    void reloadKeepsSelectionAndScroll();
    void hashesElideInTheMiddle_data();
    void hashesElideInTheMiddle();
    void copyTakesWholeValues();
    void tokenAmountsUseDecimalsAndSymbol();
    void transfersSayWhen_data();
    void transfersSayWhen();
    void hexIsShortenedOnce_data();
    void hexIsShortenedOnce();
    void openInReorgDiffWhereItApplies_data();
    void openInReorgDiffWhereItApplies();
    void autoRefreshWaitsWhileARowIsSelected();
    void refreshFindsTheSelectedRowAgain();
};

static void connectModel(ui::PagedTableModel& m, FakeEngine& e)
{
    QObject::connect(&m, &ui::PagedTableModel::pageRequested, &e, &FakeEngine::serve);
    QObject::connect(&e, &FakeEngine::pageAvailable, &m, &ui::PagedTableModel::applyPage);
}

// A transfers browser on screen with its first page loaded, as a user opens the tab.
static void showFirstPage(ui::TableBrowser& browser, FakeEngine& engine)
{
    connectModel(*browser.model(), engine);
    browser.resize(600, 300);
    browser.show();
    QTRY_COMPARE(browser.model()->rowCount(), 200);
}

void TestTableModels::loadsPageByPageAsTheViewScrolls()
{
    ui::PagedTableModel model(TableRequest::Kind::Transfers);
    FakeEngine engine;
    connectModel(model, engine);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.columnCount(), 8); // block, time, log, tx hash, token, from, to, value
    // The tester, like a view, asked for the first page; one page is in flight at a time.
    QVERIFY(model.isLoading());
    QVERIFY(!model.canFetchMore({}));
    QTRY_COMPARE(model.rowCount(), ui::PagedTableModel::kPageSize);
    QCOMPARE(model.data(model.index(0, 0)).toString(), QStringLiteral("450"));
    model.fetchMore({});
    QTRY_COMPARE(model.rowCount(), 400);
    model.fetchMore({});
    QTRY_COMPARE(model.rowCount(), 450);
    QVERIFY(model.atEnd());
    QVERIFY(!model.canFetchMore({}));
    QCOMPARE(engine.requests.size(), 3);
    QCOMPARE(engine.requests[2].offset, 400);
    // Never more than was asked for: the model holds what was scrolled to, not the table.
    QCOMPARE(engine.requests[0].limit, ui::PagedTableModel::kPageSize);
}

void TestTableModels::sortingRestartsFromTheFirstPage()
{
    ui::PagedTableModel model(TableRequest::Kind::Transfers);
    FakeEngine engine;
    connectModel(model, engine);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QTRY_COMPARE(model.rowCount(), 200);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    model.sort(0, Qt::AscendingOrder);
    QCOMPARE(resets.size(), 1);
    QTRY_COMPARE(model.rowCount(), 200);
    QCOMPARE(model.data(model.index(0, 0)).toString(), QStringLiteral("1"));
    QCOMPARE(engine.requests.last().offset, 0);
    QVERIFY(!engine.requests.last().descending);
}

void TestTableModels::stalePagesAreIgnored()
{
    ui::PagedTableModel model(TableRequest::Kind::Transfers);
    FakeEngine engine;
    engine.hold = true;
    connectModel(model, engine);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.setFilter("44"); // supersedes the request in flight (the tester's first fetch)
    QCOMPARE(engine.held.size(), 2);
    // The old (unfiltered) answer arrives late: dropped.
    model.applyPage(engine.answer(engine.held[0]));
    QCOMPARE(model.rowCount(), 0);
    QVERIFY(model.isLoading());
    model.applyPage(engine.answer(engine.held[1]));
    QVERIFY(model.rowCount() > 0);
    for (int r = 0; r < model.rowCount(); ++r)
        QVERIFY(model.data(model.index(r, 0)).toString().contains("44"));
    // A page meant for another model is not ours either.
    TablePage foreign = engine.answer(engine.held[1]);
    foreign.request.requester = &engine;
    const int before = model.rowCount();
    model.applyPage(foreign);
    QCOMPARE(model.rowCount(), before);
}

void TestTableModels::errorsAreShownNotHidden()
{
    ui::TableBrowser browser(TableRequest::Kind::Balances, "filter");
    FakeEngine engine;
    engine.fail = true;
    connectModel(*browser.model(), engine);
    browser.model()->fetchMore({});
    QTRY_VERIFY(browser.statusText().contains("database is locked"));
    QCOMPARE(browser.model()->rowCount(), 0);
    QVERIFY(!browser.model()->canFetchMore({})); // no retry storm; Refresh asks again
    engine.fail = false;
    browser.model()->refresh();
    QTRY_VERIFY(browser.model()->rowCount() > 0);
    QVERIFY(browser.model()->lastError().isEmpty());
}

void TestTableModels::filterFromTheBrowser()
{
    ui::TableBrowser browser(TableRequest::Kind::Transfers, "filter");
    FakeEngine engine;
    connectModel(*browser.model(), engine);
    QAbstractItemModelTester tester(browser.model(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    browser.show();
    QVERIFY(QTest::qWaitForWindowExposed(&browser));
    QTRY_VERIFY(browser.model()->rowCount() > 0); // the view asked for the first page itself
    QTest::keyClicks(browser.filterEdit(), "12");
    QTRY_COMPARE(engine.requests.last().filter, QStringLiteral("12"));
    QTRY_VERIFY(browser.statusText().contains("matching \"12\""));
    for (int r = 0; r < browser.model()->rowCount(); ++r)
        QVERIFY(browser.model()->data(browser.model()->index(r, 0)).toString().contains("12"));
    // The header click sorts through the model (in SQL), not in the view.
    browser.view()->sortByColumn(6, Qt::AscendingOrder);
    QTRY_COMPARE(engine.requests.last().sortColumn, 6);
}

void TestTableModels::columnsPerKind_data()
{
    // clang-format off
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("firstColumn");
    QTest::addColumn<int>("count");
    QTest::newRow("transfers") << int(TableRequest::Kind::Transfers) << "block" << 8;
    QTest::newRow("balances") << int(TableRequest::Kind::Balances) << "token" << 4;
    QTest::newRow("backfill") << int(TableRequest::Kind::Backfill) << "from block" << 6;
    // clang-format on
}

void TestTableModels::columnsPerKind()
{
    QFETCH(int, kind);
    QFETCH(QString, firstColumn);
    QFETCH(int, count);
    ui::PagedTableModel model{TableRequest::Kind(kind)};
    QCOMPARE(model.columnCount(), count);
    QCOMPARE(model.headerData(0, Qt::Horizontal).toString(), firstColumn);
}

void TestTableModels::reloadKeepsSelectionAndScroll()
{
    FakeEngine engine;
    ui::TableBrowser browser(TableRequest::Kind::Transfers, "filter");
    ui::PagedTableModel& model = *browser.model();
    connectModel(model, engine);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    browser.resize(600, 300);
    browser.show();
    QTRY_COMPARE(model.rowCount(), 200);
    QTableView* view = browser.view();
    view->selectRow(120);
    view->scrollTo(model.index(120, 0));
    const int scrolled = view->verticalScrollBar()->value();
    QVERIFY(scrolled > 0);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
    engine.total = 455; // five new transfers at the top
    model.reload();
    QTRY_VERIFY(!model.isLoading());
    QCOMPARE(resets.size(), 0); // updated in place, not reset
    QCOMPARE(model.rowCount(), 200);
    QCOMPARE(model.data(model.index(0, 0)).toString(), QStringLiteral("455"));
    QCOMPARE(view->selectionModel()->selectedRows().value(0).row(), 120);
    QCOMPARE(view->verticalScrollBar()->value(), scrolled);
    QCOMPARE(engine.requests.last().offset, 0);
    QCOMPARE(engine.requests.last().limit, 200);
}

void TestTableModels::hashesElideInTheMiddle_data()
{
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("shown");
    const QString addr = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
    QTest::newRow("address") << addr << QString("0x5fbd\u20260aa3");
    QTest::newRow("hash") << "0x" + QString(64, 'a') << QString("0xaaaa\u2026aaaa");
    QTest::newRow("short hex stays") << "0x1234"
                                     << "0x1234";
    QTest::newRow("decimal amount stays") << "1000000000000000000000"
                                          << "1000000000000000000000";
    QTest::newRow("environment id stays") << "lab-20261201-183600-1a2b"
                                          << "lab-20261201-183600-1a2b";
}

void TestTableModels::hashesElideInTheMiddle()
{
    QFETCH(QString, value);
    QFETCH(QString, shown);
    QCOMPARE(ui::shortHex(value), shown);
}

void TestTableModels::copyTakesWholeValues()
{
    FakeEngine engine;
    ui::TableBrowser browser(TableRequest::Kind::Transfers, "filter");
    connectModel(*browser.model(), engine);
    browser.show();
    QTRY_COMPARE(browser.model()->rowCount(), 200);
    const QModelIndex cell = browser.model()->index(3, 0);
    browser.copyCell(cell);
    QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("447"));
    browser.copyRow(3);
    QCOMPARE(QGuiApplication::clipboard()->text(),
             QStringLiteral("447\t2026-12-01T23:57:52Z\t0\t0xtx\t0xtoken\t0xfrom\t0xto\t1"));
    // The display elides, the tooltip does not.
    QCOMPARE(browser.model()->data(cell, Qt::ToolTipRole).toString(), QStringLiteral("447"));
}

void TestTableModels::tokenAmountsUseDecimalsAndSymbol()
{
    FakeEngine engine;
    engine.total = 3;
    engine.tokens.insert("0xtoken", chain::TokenInfo{3, "TOK"});
    ui::PagedTableModel model(TableRequest::Kind::Transfers);
    connectModel(model, engine);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.fetchMore({});
    QTRY_COMPARE(model.rowCount(), 3);
    const QModelIndex value = model.index(0, 7); // raw "1" at 3 decimals
    QCOMPARE(model.data(value).toString(), QStringLiteral("0.001 TOK"));
    QCOMPARE(model.data(value, Qt::ToolTipRole).toString(),
             QStringLiteral("1 raw units (3 decimals)"));
    QCOMPARE(model.fullText(value), QStringLiteral("1")); // copies and exports: raw
    QCOMPARE(model.data(value, Qt::TextAlignmentRole).value<Qt::Alignment>(),
             Qt::AlignRight | Qt::AlignVCenter);
    // The token column itself is not an amount.
    QCOMPARE(model.data(model.index(0, 4)).toString(), QStringLiteral("0xtoken"));
    // Another environment: its tokens are read again (none here), amounts raw.
    engine.tokens.clear();
    model.setEnvironment("lab-archived");
    QTRY_COMPARE(model.rowCount(), 3);
    QCOMPARE(model.data(model.index(0, 7)).toString(), QStringLiteral("1"));
}

void TestTableModels::transfersSayWhen_data()
{
    QTest::addColumn<QByteArray>("zone");
    QTest::addColumn<QString>("shown");
    QTest::newRow("UTC") << QByteArray("UTC") << QString("2026-12-01\u00a023:57:52");
    QTest::newRow("Berlin (UTC+1)")
        << QByteArray("Europe/Berlin") << QString("2026-12-02\u00a000:57:52");
}

void TestTableModels::transfersSayWhen()
{
    QFETCH(QByteArray, zone);
    QFETCH(QString, shown);
    const QByteArray savedZone = qgetenv("TZ");
    qputenv("TZ", zone);
    FakeEngine engine;
    engine.total = 447;
    ui::PagedTableModel model(TableRequest::Kind::Transfers);
    connectModel(model, engine);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.fetchMore({});
    QTRY_VERIFY(model.rowCount() > 0);
    // The block's time, second column: local on screen, UTC on hover, ISO in copies.
    QCOMPARE(model.headerData(1, Qt::Horizontal).toString(), QStringLiteral("time"));
    const QModelIndex time = model.index(0, 1); // block 447
    QCOMPARE(model.data(time).toString(), shown);
    QCOMPARE(model.data(time, Qt::ToolTipRole).toString(),
             QStringLiteral("2026-12-01 23:57:52 UTC"));
    QCOMPARE(model.fullText(time), QStringLiteral("2026-12-01T23:57:52Z"));
    if (savedZone.isNull())
        qunsetenv("TZ");
    else
        qputenv("TZ", savedZone);
}

void TestTableModels::hexIsShortenedOnce_data()
{
    QTest::addColumn<int>("width"); // the browser's width
    QTest::newRow("the drawer at 1280") << 1270;
    QTest::newRow("an environment window") << 880;
}

void TestTableModels::hexIsShortenedOnce()
{
    QFETCH(int, width);
    // Real lengths: a 32-byte tx hash, 20-byte addresses.
    FakeEngine engine;
    engine.realHex = true;
    engine.total = 30;
    ui::TableBrowser browser(TableRequest::Kind::Transfers, "filter");
    connectModel(*browser.model(), engine);
    browser.resize(width, 300);
    browser.show();
    QVERIFY(QTest::qWaitForWindowExposed(&browser));
    QTRY_COMPARE(browser.model()->rowCount(), 30);
    // Every shortened value fits its column: "0x47d7…2266", never "0x47d7……".
    QTableView* view = browser.view();
    const QFontMetrics fm(view->font());
    // The delegate's text margin, each side.
    const int margin = view->style()->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, view) + 1;
    for (int c = 0; c < browser.model()->columnCount(); ++c) {
        const QModelIndex cell = browser.model()->index(0, c);
        const QString text = browser.model()->data(cell).toString();
        if (!text.startsWith("0x"))
            continue;
        QVERIFY2(text.contains(QChar(0x2026)), qPrintable(text));
        const int room = view->visualRect(cell).width() - 2 * margin;
        QVERIFY2(fm.horizontalAdvance(text) <= room,
                 qPrintable(QStringLiteral("column %1: \"%2\" is %3 px in %4")
                                .arg(c)
                                .arg(text)
                                .arg(fm.horizontalAdvance(text))
                                .arg(room)));
        // Narrowed by the user: what the view paints keeps one ellipsis and the end.
        view->setColumnWidth(c, fm.horizontalAdvance(text) / 2 + 2 * margin);
        const QString painted =
            fm.elidedText(text, view->textElideMode(), view->visualRect(cell).width() - 2 * margin);
        QVERIFY2(painted.count(QChar(0x2026)) == 1 && painted.endsWith(text.back()),
                 qPrintable(QStringLiteral("column %1: \"%2\"").arg(c).arg(painted)));
    }
}

void TestTableModels::openInReorgDiffWhereItApplies_data()
{
    QTest::addColumn<int>("kind");
    QTest::addColumn<int>("row");
    QTest::addColumn<QList<qint64>>("offered");
    // FakeEngine's rows are blocks total..1 newest first; reorg #1 rewrote 6..8 (fork 5,
    // depth 3), #2 rewrote 8..9.
    QTest::newRow("block 8: both, newest first")
        << int(TableRequest::Kind::Transfers) << 2 << QList<qint64>{2, 1};
    QTest::newRow("block 6: the first")
        << int(TableRequest::Kind::Transfers) << 4 << QList<qint64>{1};
    QTest::newRow("block 5, the fork itself: none")
        << int(TableRequest::Kind::Transfers) << 5 << QList<qint64>{};
    QTest::newRow("block 10, above both: none")
        << int(TableRequest::Kind::Transfers) << 0 << QList<qint64>{};
    QTest::newRow("backfill rows: never")
        << int(TableRequest::Kind::Backfill) << 2 << QList<qint64>{};
}

void TestTableModels::openInReorgDiffWhereItApplies()
{
    QFETCH(int, kind);
    QFETCH(int, row);
    QFETCH(QList<qint64>, offered);
    FakeEngine engine;
    engine.total = 10;
    ui::TableBrowser browser(TableRequest::Kind(kind), "filter");
    connectModel(*browser.model(), engine);
    browser.model()->fetchMore({});
    QTRY_COMPARE(browser.model()->rowCount(), 10);
    engine::ReorgMark first;
    first.id = 1;
    first.forkBlock = 5;
    first.depth = 3;
    engine::ReorgMark second;
    second.id = 2;
    second.forkBlock = 7;
    second.depth = 2;
    browser.setReorgs({first, second});
    QSignalSpy asked(&browser, &ui::TableBrowser::reorgDiffRequested);
    QObject owner;
    const QList<QAction*> actions = browser.contextActions(browser.model()->index(row, 1), &owner);
    QCOMPARE(actions.value(0)->text(), QStringLiteral("Copy value"));
    QCOMPARE(actions.value(1)->text(), QStringLiteral("Copy row"));
    QCOMPARE(actions.size(), 2 + offered.size());
    for (int i = 0; i < offered.size(); ++i) {
        QVERIFY2(actions[2 + i]->text().startsWith(
                     QStringLiteral("Open in reorg diff (reorg #%1,").arg(offered[i])),
                 qPrintable(actions[2 + i]->text()));
        actions[2 + i]->trigger();
        QCOMPARE(asked.size(), i + 1);
        QCOMPARE(asked.last().value(0).toLongLong(), offered[i]);
    }
}

void TestTableModels::autoRefreshWaitsWhileARowIsSelected()
{
    FakeEngine engine;
    ui::TableBrowser browser(TableRequest::Kind::Transfers, "filter");
    showFirstPage(browser, engine);
    QVERIFY(browser.autoRefreshAllowed());
    browser.view()->selectRow(3);
    QVERIFY(!browser.autoRefreshAllowed()); // new rows would slide under the selection
    browser.view()->clearSelection();
    QVERIFY(browser.autoRefreshAllowed());
    browser.view()->scrollTo(browser.model()->index(150, 0));
    QVERIFY(!browser.autoRefreshAllowed()); // scrolled away from the newest rows
    // And the timer honours it: with a row selected, no reload is sent for longer than the
    // refresh interval.
    browser.view()->selectRow(3);
    const qsizetype sent = engine.requests.size();
    QTest::qWait(3500);
    QCOMPARE(engine.requests.size(), sent);
}

void TestTableModels::refreshFindsTheSelectedRowAgain()
{
    FakeEngine engine;
    ui::TableBrowser browser(TableRequest::Kind::Transfers, "filter");
    showFirstPage(browser, engine);
    browser.view()->selectRow(10); // block 440
    QCOMPARE(browser.model()->fullText(browser.model()->index(10, 0)), QStringLiteral("440"));
    engine.total = 453; // three new transfers at the top
    auto* refresh = browser.findChild<QPushButton*>();
    QVERIFY(refresh);
    refresh->click();
    QTRY_VERIFY(!browser.model()->isLoading());
    const QModelIndexList selected = browser.view()->selectionModel()->selectedRows();
    QCOMPARE(selected.size(), 1);
    QCOMPARE(selected.first().row(), 13);
    QCOMPARE(browser.model()->fullText(selected.first()), QStringLiteral("440"));
}

QTEST_MAIN(TestTableModels)
#include "tst_tablemodels.moc"
