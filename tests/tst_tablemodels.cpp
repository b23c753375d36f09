// The lazily loaded table models, against a scripted engine: pages arrive by queued
// signal, stale pages are dropped, sorting and filtering restart paging, and the models
// keep Qt's model contract (QAbstractItemModelTester) throughout.
#include "TableBrowser.h"
#include "engine/TableQuery.h"
#include "models/PagedTableModel.h"

#include <QAbstractItemModelTester>
#include <QClipboard>
#include <QGuiApplication>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalSpy>
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
    bool hold = false; // keep requests unanswered (answer() later)
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
                QString::number(block), "0", "0xtx", "0xtoken", "0xfrom", "0xto", "1"};
        }
        p.atEnd = r.offset + r.limit >= total;
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
};

static void wire(ui::PagedTableModel& m, FakeEngine& e)
{
    QObject::connect(&m, &ui::PagedTableModel::pageRequested, &e, &FakeEngine::serve);
    QObject::connect(&e, &FakeEngine::pageAvailable, &m, &ui::PagedTableModel::applyPage);
}

void TestTableModels::loadsPageByPageAsTheViewScrolls()
{
    ui::PagedTableModel model(TableRequest::Kind::Transfers);
    FakeEngine engine;
    wire(model, engine);
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.columnCount(), 7);
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
    wire(model, engine);
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
    wire(model, engine);
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
    wire(*browser.model(), engine);
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
    wire(*browser.model(), engine);
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
    QTest::newRow("transfers") << int(TableRequest::Kind::Transfers) << "block" << 7;
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
    wire(model, engine);
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
    QCOMPARE(ui::PagedTableModel::shortHex(value), shown);
}

void TestTableModels::copyTakesWholeValues()
{
    FakeEngine engine;
    ui::TableBrowser browser(TableRequest::Kind::Transfers, "filter");
    wire(*browser.model(), engine);
    browser.show();
    QTRY_COMPARE(browser.model()->rowCount(), 200);
    const QModelIndex cell = browser.model()->index(3, 0);
    browser.copyCell(cell);
    QCOMPARE(QGuiApplication::clipboard()->text(), QStringLiteral("447"));
    browser.copyRow(3);
    QCOMPARE(QGuiApplication::clipboard()->text(),
             QStringLiteral("447\t0\t0xtx\t0xtoken\t0xfrom\t0xto\t1"));
    // The display elides, the tooltip does not.
    QCOMPARE(browser.model()->data(cell, Qt::ToolTipRole).toString(), QStringLiteral("447"));
}

QTEST_MAIN(TestTableModels)
#include "tst_tablemodels.moc"
