// The Fork tree tab at 1280x720 on a storm of 200 random reorgs (support/ForkTreeSim answers
// its window requests as the read service would): every rollback's branch is drawn at its fork
// point with its depth, a click on an orphaned block asks for that block and the side table
// lists what comes back, jumps, pans with at most one request in flight, PNG and SVG exports.
#include "ForkTreeSim.h"
#include "Palette.h"
#include "forktree/ForkBlockRowsModel.h"
#include "forktree/ForkTreeCanvas.h"
#include "forktree/ForkTreePainter.h"
#include "forktree/ForkTreeView.h"

#include <QAbstractItemModelTester>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QSet>
#include <QSignalSpy>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QtTest>

using namespace forkscope;

namespace {

// Answers each request on the next turn of the event loop, as a queued reply would, and
// counts how many were ever outstanding at once.
class Responder : public QObject
{
public:
    Responder(ui::ForkTreeView& view, const lab::ForkTreeSim& sim) : m_view(view), m_sim(sim)
    {
        connect(&view, &ui::ForkTreeView::windowWanted, this,
                [this](const forktree::ForkTreeRequest& r) {
                    ++asked;
                    maxOutstanding = std::max(maxOutstanding, asked - answered);
                    last = r;
                    if (answering)
                        QTimer::singleShot(0, this, [this, r] { answer(r); });
                });
    }
    void answer(const forktree::ForkTreeRequest& r)
    {
        ++answered;
        m_view.showTree(forktree::laidOut(m_sim.window(r.fromBlock, r.toBlock)));
    }
    int asked = 0;
    int answered = 0;
    int maxOutstanding = 0;
    bool answering = true;
    forktree::ForkTreeRequest last;

private:
    ui::ForkTreeView& m_view;
    const lab::ForkTreeSim& m_sim;
};

} // namespace

class TestForkTreeView : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void everyBranchDrawn();
    void clickListsRows_data();
    void clickListsRows();
    void oneRequestInFlight();
    void aMoveRightAfterARefreshIsReadOnceItPasses_data();
    void aMoveRightAfterARefreshIsReadOnceItPasses();
    void jumpToBlock_data();
    void jumpToBlock();
    void zoomKeys();
    void exports_data();
    void exports();
    void reportPicture();

private:
    lab::ForkTreeSim m_sim;
};

void TestForkTreeView::initTestCase()
{
    QVERIFY(m_sim.run(lab::ForkTreeSim::stormScript(2026, 200)));
    QCOMPARE(m_sim.branches().size(), 200);
    QVERIFY(m_sim.run(
        QStringLiteral("poll node-a %1; own node-b %2").arg(m_sim.head()).arg(m_sim.head() - 3)));
}

void TestForkTreeView::everyBranchDrawn()
{
    ui::ForkTreeView view;
    view.resize(1280, 720);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    Responder r(view, m_sim);
    view.showCheckpoint(m_sim.head());
    QTRY_VERIFY(r.answered >= 1);
    for (const forktree::OrphanBranch& b : m_sim.branches()) {
        QVERIFY(view.jumpToReorg(b.reorgId));
        QTRY_VERIFY(!view.requestInFlight() && r.asked == r.answered);
        const forktree::ForkTreeLayout& l = view.treeLayout();
        const auto i = l.findBranch(b.reorgId);
        QVERIFY2(i, qPrintable(QStringLiteral("reorg %1 not drawn").arg(b.reorgId)));
        const forktree::LayoutBranch& lb = l.branches[*i];
        QCOMPARE(lb.forkPoint, b.forkPoint);
        QCOMPARE(lb.depth, int(b.blocks.size()));
        // Its first block is on screen where a click finds it, filled with its reason's colour.
        const int box = view.canvas()->selectedBox();
        QVERIFY(box >= 0);
        QCOMPARE(l.boxes[box].branch, *i);
        QCOMPARE(l.boxes[box].number, b.forkPoint + 1);
        const QRectF rect = view.canvas()->boxRect(box);
        QVERIFY(view.canvas()->rect().contains(rect.toRect()));
        QCOMPARE(ui::ForkTreePainter::boxAt(view.canvas()->rect(), l, view.canvas()->viewport(),
                                            rect.center()),
                 std::optional<int>(box));
        if (b.reorgId % 50 == 0) { // the pixels, now and then: painting is the slow part
            const QImage shot = view.canvas()->grab().toImage();
            const QPoint inside(int(rect.left()) + 3, int(rect.center().y()));
            QCOMPARE(shot.pixelColor(inside).rgb(),
                     ui::Palette::branchReason(b.reason).lighter(160).rgb());
        }
    }
    QCOMPARE(r.maxOutstanding, 1);
    // The node on its own head is a stub below the spine, not a branch.
    const forktree::ForkTreeLayout& l = view.treeLayout();
    view.jumpToBlock(m_sim.head() - 3);
    QTRY_VERIFY(!view.requestInFlight() && r.asked == r.answered);
    bool stub = false;
    for (const forktree::LayoutBox& b : view.treeLayout().boxes)
        stub |= b.kind == forktree::BoxKind::Stub && b.number == m_sim.head() - 3;
    QVERIFY(stub);
    QVERIFY(l.reorgCount == 200);
}

void TestForkTreeView::clickListsRows_data()
{
    QTest::addColumn<qint64>("reorg");
    QTest::addColumn<int>("rows");
    QTest::newRow("an early reorg") << qint64(3) << 2;
    QTest::newRow("a late reorg") << qint64(197) << 5;
}

void TestForkTreeView::clickListsRows()
{
    QFETCH(qint64, reorg);
    QFETCH(int, rows);
    ui::ForkTreeView view;
    view.resize(1280, 720);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    Responder r(view, m_sim);
    view.showCheckpoint(m_sim.head());
    QTRY_VERIFY(r.answered >= 1);
    QVERIFY(view.jumpToReorg(reorg));
    QTRY_VERIFY(!view.requestInFlight() && r.asked == r.answered);
    const int box = view.canvas()->selectedBox();
    QVERIFY(box >= 0);
    const forktree::LayoutBox target = view.treeLayout().boxes[box];
    QCOMPARE(target.kind, forktree::BoxKind::Orphan);
    view.canvas()->setSelectedBox(-1);

    QSignalSpy wanted(&view, &ui::ForkTreeView::blockWanted);
    QTest::mouseClick(view.canvas(), Qt::LeftButton, {},
                      view.canvas()->boxRect(box).center().toPoint());
    QCOMPARE(wanted.size(), 1);
    QCOMPARE(wanted.at(0).at(0).value<chain::Hash32>(), target.hash);
    QCOMPARE(view.canvas()->selectedBox(), box);

    QAbstractItemModelTester tester(view.blockRows(),
                                    QAbstractItemModelTester::FailureReportingMode::QtTest);
    // An answer for another block (an earlier click) is not shown.
    forktree::ForkBlockRows other;
    other.hash = lab::ForkTreeSim().freshHash();
    other.rows.resize(9);
    view.showBlock(other);
    QCOMPARE(view.blockRows()->rowCount(), 0);

    forktree::ForkBlockRows answer;
    answer.number = target.number;
    answer.hash = target.hash;
    answer.orphaned = true;
    answer.reorgId = reorg;
    for (int i = 0; i < rows; ++i) {
        forktree::ForkBlockRow row;
        row.kind =
            i % 2 ? forktree::ForkBlockRow::Kind::Transfer : forktree::ForkBlockRow::Kind::Log;
        row.logIndex = quint32(i);
        row.contract = QStringLiteral("0x5fbdb2315678afecb367f032d93f642f64180aa3");
        row.from = QStringLiteral("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266");
        row.to = QStringLiteral("0x70997970c51812dc3a010c7d01b50e0d17dc79c8");
        row.value = QString::number(1000 + i);
        row.cameBack = i == 0;
        answer.rows.append(row);
    }
    view.showBlock(answer);
    QCOMPARE(view.blockRows()->rowCount(), rows);
    const QAbstractItemModel* m = view.blockRows();
    QCOMPARE(m->index(0, ui::ForkBlockRowsModel::CameBack).data().toString(),
             QStringLiteral("yes"));
    QCOMPARE(m->index(1, ui::ForkBlockRowsModel::CameBack).data().toString(), QStringLiteral("no"));
    QCOMPARE(m->index(1, ui::ForkBlockRowsModel::Kind).data().toString(),
             QStringLiteral("Transfer"));
    QCOMPARE(m->index(1, ui::ForkBlockRowsModel::Value).data().toString(), QStringLiteral("1001"));
    QCOMPARE(m->index(1, ui::ForkBlockRowsModel::From).data(Qt::UserRole).toString(),
             answer.rows[1].from);
    QVERIFY(view.findChild<QLabel*>(QStringLiteral("forkTreeBlockTitle"))
                ->text()
                .contains(QStringLiteral("reorg #%1").arg(reorg)));
}

void TestForkTreeView::oneRequestInFlight()
{
    ui::ForkTreeView view;
    view.resize(1280, 720);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    Responder r(view, m_sim);
    view.showCheckpoint(m_sim.head());
    QTRY_VERIFY(r.answered >= 1);
    QTRY_VERIFY(!view.requestInFlight());
    r.answering = false;
    const int before = r.asked;
    // A long drag, in steps: nothing is asked until it pauses.
    for (int i = 0; i < 40; ++i)
        view.canvas()->panBy(200, 0);
    QCOMPARE(r.asked, before);
    QTRY_COMPARE(r.asked, before + 1);
    // More panning while that request is out: nothing more is sent...
    for (int i = 0; i < 40; ++i)
        view.canvas()->panBy(200, 0);
    QTest::qWait(ui::ForkTreeView::kSettleMs * 3);
    QCOMPARE(r.asked, before + 1);
    // ...until it is answered; then the latest wish goes out, for where the view is now.
    r.answering = true;
    r.answer(r.last);
    QCOMPARE(r.asked, before + 2);
    QVERIFY(r.last.fromBlock <= view.canvas()->firstVisibleNumber());
    QTRY_VERIFY(!view.requestInFlight() && r.asked == r.answered);
    QCOMPARE(r.maxOutstanding, 1);
}

void TestForkTreeView::aMoveRightAfterARefreshIsReadOnceItPasses_data()
{
    QTest::addColumn<bool>("sighting"); // what moves: a node's stored head, else the checkpoint
    QTest::newRow("the checkpoint") << false;
    QTest::newRow("a node's head") << true;
}

void TestForkTreeView::aMoveRightAfterARefreshIsReadOnceItPasses()
{
    QFETCH(bool, sighting);
    // The tree is read again at most every kRefreshMs as the chain moves; a move that comes
    // sooner must not be lost (the nodes' marks stayed "behind" after the chain stopped).
    ui::ForkTreeView view;
    view.resize(1280, 720);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    Responder r(view, m_sim);
    const quint64 at = m_sim.head() - 5;
    view.showCheckpoint(at);
    QTRY_VERIFY(r.answered == 1 && !view.requestInFlight());
    QSignalSpy asked(&view, &ui::ForkTreeView::windowWanted);
    for (int i = 1; i <= 3; ++i) {
        if (sighting)
            view.showSightings(i);
        else
            view.showCheckpoint(at + quint64(i));
    }
    QVERIFY(asked.isEmpty()); // not at once: the last read was just now
    QVERIFY(asked.wait(ui::ForkTreeView::kRefreshMs * 3));
    QCOMPARE(asked.size(), 1);                                // one read for the three moves
    QVERIFY(!asked.wait(ui::ForkTreeView::kRefreshMs + 500)); // and none once nothing moves
}

void TestForkTreeView::jumpToBlock_data()
{
    QTest::addColumn<quint64>("block");
    QTest::newRow("near the head") << quint64(m_sim.head() - 40);
    QTest::newRow("far back") << quint64(120);
}

void TestForkTreeView::jumpToBlock()
{
    QFETCH(quint64, block);
    ui::ForkTreeView view;
    view.resize(1280, 720);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    Responder r(view, m_sim);
    view.showCheckpoint(m_sim.head());
    QTRY_VERIFY(r.answered >= 1);
    view.jumpToBlock(block);
    QTRY_VERIFY(!view.requestInFlight() && r.asked == r.answered);
    const forktree::ForkTreeLayout& l = view.treeLayout();
    QVERIFY(l.fromBlock <= block && block <= l.toBlock);
    QCOMPARE(view.canvas()->centreNumber(), block);
    const int c = l.columnAtOrBefore(block);
    QVERIFY(c >= 0);
    QCOMPARE(l.columns[c].first, block); // a column of its own, not collapsed
}

void TestForkTreeView::zoomKeys()
{
    ui::ForkTreeView view;
    view.resize(1280, 720);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const double before = view.canvas()->viewport().columnPx;
    QTest::keyClick(view.canvas(), Qt::Key_Minus);
    QVERIFY(view.canvas()->viewport().columnPx < before);
    QTest::keyClick(view.canvas(), Qt::Key_Plus);
    QTest::keyClick(view.canvas(), Qt::Key_Plus);
    QVERIFY(view.canvas()->viewport().columnPx > before);
}

void TestForkTreeView::exports_data()
{
    QTest::addColumn<QString>("format");
    QTest::newRow("png") << "png";
    QTest::newRow("svg") << "svg";
}

void TestForkTreeView::exports()
{
    QFETCH(QString, format);
    ui::ForkTreeView view;
    view.resize(1280, 720);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    Responder r(view, m_sim);
    view.showCheckpoint(m_sim.head());
    QTRY_VERIFY(r.answered >= 1);
    QTRY_VERIFY(!view.requestInFlight() && r.asked == r.answered);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("tree.") + format);
    QString error;
    const QSize size = view.canvas()->size();
    if (format == QLatin1String("png")) {
        QVERIFY2(view.exportPng(path, &error), qPrintable(error));
        const QImage image(path);
        QCOMPARE(image.size(), size);
        // The picture is the canvas's: the same pixels as on screen.
        QCOMPARE(image.convertToFormat(QImage::Format_RGB32),
                 view.canvas()->grab().toImage().convertToFormat(QImage::Format_RGB32));
    } else {
        QVERIFY2(view.exportSvg(path, &error), qPrintable(error));
        QSvgRenderer svg(path);
        QVERIFY(svg.isValid());
        // Its drawing is the canvas's size in pixels (its width and height attributes say mm).
        QCOMPARE(svg.viewBox(), QRect(QPoint(0, 0), size));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        QVERIFY(f.readAll().contains("blocks"));
    }
    QVERIFY(QFileInfo(path).size() > 1000);
    // An unwritable place gets one clear line naming the file.
    const QString bad = dir.filePath(QStringLiteral("missing/tree.") + format);
    QVERIFY(!(format == QLatin1String("png") ? view.exportPng(bad, &error)
                                             : view.exportSvg(bad, &error)));
    QVERIFY2(error.contains(bad), qPrintable(error));
}

// The report's picture: the whole window fitted into a page rectangle at 300 dpi, every branch
// drawn (zoomed out, as lines in their reasons' colours).
void TestForkTreeView::reportPicture()
{
    QImage page(2400, 900, QImage::Format_RGB32);
    page.setDotsPerMeterX(11811); // 300 dpi
    page.setDotsPerMeterY(11811);
    page.fill(Qt::black);
    const QRectF rect(100, 100, 2200, 700);
    {
        QPainter p(&page);
        ui::ForkTreePainter::paintWindow(p, rect, m_sim.window());
    }
    QCOMPARE(page.pixelColor(50, 50), QColor(Qt::black)); // nothing outside the rectangle
    QSet<QRgb> colours; // right of the legend, which shows the same colours
    for (int y = 100; y < 800; y += 2)
        for (int x = 1000; x < 2300; x += 2)
            colours.insert(page.pixel(x, y));
    QVERIFY(colours.contains(QColor(Qt::white).rgb()));
    for (const forktree::BranchReason r :
         {forktree::BranchReason::HashMismatch, forktree::BranchReason::ParentMismatch,
          forktree::BranchReason::Absence, forktree::BranchReason::Repair})
        QVERIFY2(colours.contains(ui::Palette::branchReason(r).rgb()),
                 qPrintable(ui::Palette::branchReasonName(r)));
}

QTEST_MAIN(TestForkTreeView)
#include "tst_forktreeview.moc"
