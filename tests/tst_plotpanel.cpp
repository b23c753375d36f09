// PlotPanel's memory: a series keeps a day at one point a second, whatever the rate of the
// statuses that feed it (they arrive up to ten times a second).
#include "panels/PlotPanel.h"

#include <QComboBox>
#include <QToolButton>
#include <QtTest>
#include <qcustomplot.h>

using namespace forkscope;

class TestPlotPanel : public QObject
{
    Q_OBJECT
private slots:
    void aDayOfSamplesAtAnyRateIsBounded_data();
    void aDayOfSamplesAtAnyRateIsBounded();
    void newestPointIsTheLatestSample();
    void viewFitsYoungDataAndNeverGoesBelowZero();
    void anOutageIsAGapNotARamp();
    void aNewEnvironmentStartsAMarkedSegment();
    void rangePresetsAndFit_data();
    void rangePresetsAndFit();
    void aClickOnTheLegendHidesItsSeries();
};

void TestPlotPanel::aDayOfSamplesAtAnyRateIsBounded_data()
{
    QTest::addColumn<int>("perSecond");
    QTest::newRow("one a second") << 1;
    QTest::newRow("three a second") << 3;
    QTest::newRow("ten a second (the status cap)") << 10;
}

void TestPlotPanel::aDayOfSamplesAtAnyRateIsBounded()
{
    QFETCH(int, perSecond);
    ui::PlotPanel panel("Cursor lag", "height (blocks)");
    const int head = panel.addSeries("head", Qt::blue);
    panel.setFollowLive(false); // the view is not what is measured
    const double t0 = 1'800'000'000;
    const double span = ui::PlotPanel::kHistorySecs + 3600; // a day and an hour
    const qint64 samples = qint64(span) * perSecond;
    int most = 0;
    for (qint64 i = 0; i <= samples; ++i) {
        panel.appendPoint(head, t0 + double(i) / perSecond, double(i % 1000));
        if (i % 3600 == 0)
            most = std::max(most, panel.pointCount(head));
    }
    // Never more than the cap, at any time of the run...
    most = std::max(most, panel.pointCount(head));
    QVERIFY2(most <= ui::PlotPanel::kMaxPoints, qPrintable(QString::number(most)));
    // ...and the cap holds a day, not the last hours of a fast feed.
    const QCPGraphDataContainer& data = *panel.plot()->graph(head)->data();
    const double oldest = data.constBegin()->key;
    const double newest = (data.constEnd() - 1)->key;
    QCOMPARE(newest, t0 + span);
    QVERIFY2(newest - oldest >= ui::PlotPanel::kHistorySecs - 2 &&
                 newest - oldest <= ui::PlotPanel::kHistorySecs,
             qPrintable(QString::number(newest - oldest)));
    // Stored points a second apart (all but the newest, which moves with the samples).
    for (auto it = data.constBegin() + 1; it != data.constEnd() - 1; ++it)
        QVERIFY2(it->key - (it - 1)->key >= ui::PlotPanel::kMinSpacingSecs - 1e-6,
                 qPrintable(QString::number(it->key, 'f', 3)));
}

void TestPlotPanel::newestPointIsTheLatestSample()
{
    ui::PlotPanel panel("Outbox backlog", "rows");
    const int pending = panel.addSeries("pending rows", Qt::red);
    const double t0 = 1'800'000'000;
    for (int i = 0; i <= 25; ++i) // 2.5 s at ten samples a second
        panel.appendPoint(pending, t0 + i / 10.0, 100 + i);
    const QCPGraphDataContainer& data = *panel.plot()->graph(pending)->data();
    // One point for each of the seconds 0, 1 and 2, and the newest: the latest sample, exactly.
    QCOMPARE(panel.pointCount(pending), 4);
    QCOMPARE((data.constEnd() - 1)->key, t0 + 2.5);
    QCOMPARE((data.constEnd() - 1)->value, 125.0);
    QCOMPARE(data.constBegin()->key, t0);
    QCOMPARE(data.constBegin()->value, 100.0);
    // The view follows the latest sample, as before.
    QCOMPARE(panel.plot()->xAxis->range().upper, t0 + 2.5 + 5);
    // A sample from the past (a late status) is kept in order, not moved onto the newest.
    panel.appendPoint(pending, t0 + 0.5, 7);
    QCOMPARE(panel.pointCount(pending), 5);
    QCOMPARE((data.constEnd() - 1)->value, 125.0);
}

void TestPlotPanel::viewFitsYoungDataAndNeverGoesBelowZero()
{
    ui::PlotPanel panel("Cursor lag", "height (blocks)");
    const int lag = panel.addSeries("lag", Qt::red);
    const double t0 = 1'800'000'000;
    // Nothing yet: 0..1, not -1..1.
    panel.plot()->replot();
    QCOMPARE(panel.plot()->yAxis->range().lower, 0.0);
    // Ninety seconds of lag 0 and 1: the view is those seconds (not the right 30% of five
    // minutes), and the value axis starts at 0.
    for (int i = 0; i <= 90; ++i)
        panel.appendPoint(lag, t0 + i, i % 2);
    panel.plot()->replot();
    QCOMPARE(panel.plot()->xAxis->range().lower, t0 - 2);
    QCOMPARE(panel.plot()->xAxis->range().upper, t0 + 90 + 5);
    QCOMPARE(panel.plot()->yAxis->range().lower, 0.0);
    QVERIFY(panel.plot()->yAxis->range().upper >= 1.0);
    // Ten seconds of data still get a minute's view.
    ui::PlotPanel young("Outbox backlog", "rows");
    const int rows = young.addSeries("rows", Qt::blue);
    for (int i = 0; i <= 10; ++i)
        young.appendPoint(rows, t0 + i, 5);
    QCOMPARE(young.plot()->xAxis->range().lower, t0 + 10 - ui::PlotPanel::kMinFitSecs);
    // Once the data spans more than the live window, the window follows the newest.
    for (int i = 91; i <= 400; ++i)
        panel.appendPoint(lag, t0 + i, 3);
    QCOMPARE(panel.plot()->xAxis->range().lower, t0 + 400 - ui::PlotPanel::kLiveWindowSecs);
}

void TestPlotPanel::anOutageIsAGapNotARamp()
{
    ui::PlotPanel panel("Cursor lag", "height (blocks)");
    const int head = panel.addSeries("head", Qt::blue);
    panel.setStepLine(head);
    QCOMPARE(panel.plot()->graph(head)->lineStyle(), QCPGraph::lsStepLeft);
    const double t0 = 1'800'000'000;
    for (int i = 0; i <= 3; ++i)
        panel.appendPoint(head, t0 + i, 100 + i);
    panel.appendPoint(head, t0 + 60, 160); // a minute without samples
    const QCPGraphDataContainer& data = *panel.plot()->graph(head)->data();
    int gaps = 0;
    for (auto it = data.constBegin(); it != data.constEnd(); ++it)
        gaps += qIsNaN(it->value) ? 1 : 0;
    QCOMPARE(gaps, 1);
    QCOMPARE((data.constEnd() - 1)->value, 160.0);
    QVERIFY(qIsNaN((data.constEnd() - 2)->value));
    // The next sample a second later continues the line (not moved onto the gap).
    panel.appendPoint(head, t0 + 61, 161);
    QCOMPARE((data.constEnd() - 1)->value, 161.0);
    QCOMPARE((data.constEnd() - 2)->value, 160.0);
    // Samples a second apart never make a gap.
    for (int i = 62; i <= 70; ++i)
        panel.appendPoint(head, t0 + i, 100);
    gaps = 0;
    for (auto it = data.constBegin(); it != data.constEnd(); ++it)
        gaps += qIsNaN(it->value) ? 1 : 0;
    QCOMPARE(gaps, 1);
}

void TestPlotPanel::aNewEnvironmentStartsAMarkedSegment()
{
    ui::PlotPanel panel("Cursor lag", "height (blocks)");
    const int head = panel.addSeries("head", Qt::blue);
    const double t0 = 1'800'000'000;
    panel.noteEnvironment("lab-a", t0);
    for (int i = 0; i <= 3; ++i)
        panel.appendPoint(head, t0 + i, 790 + i);
    panel.noteEnvironment("lab-a", t0 + 4); // the same one: nothing
    QCOMPARE(panel.segmentMarkCount(), 0);
    // A reset: the new chain starts at 0 one second later; no line down from 793.
    panel.noteEnvironment("lab-b", t0 + 4);
    panel.appendPoint(head, t0 + 4, 0);
    QCOMPARE(panel.segmentMarkCount(), 1);
    const QCPGraphDataContainer& data = *panel.plot()->graph(head)->data();
    QCOMPARE((data.constEnd() - 1)->value, 0.0);
    QVERIFY(qIsNaN((data.constEnd() - 2)->value));
    QCOMPARE((data.constEnd() - 3)->value, 793.0);
    // Bounded.
    for (int i = 0; i < ui::PlotPanel::kMaxSegmentMarks + 5; ++i)
        panel.noteEnvironment(QStringLiteral("lab-%1").arg(i), t0 + 10 + i);
    QCOMPARE(panel.segmentMarkCount(), ui::PlotPanel::kMaxSegmentMarks);
}

void TestPlotPanel::rangePresetsAndFit_data()
{
    QTest::addColumn<int>("preset"); // index into the combo box
    QTest::addColumn<double>("shownFrom");
    const double t0 = 1'800'000'000, newest = t0 + 7200; // two hours of samples
    QTest::newRow("1 min") << 0 << newest - 60;
    QTest::newRow("5 min") << 1 << newest - 300;
    QTest::newRow("1 h") << 2 << newest - 3600;
    QTest::newRow("24 h: all there is") << 3 << t0 - 2;
    QTest::newRow("All") << 4 << t0 - 2;
}

void TestPlotPanel::rangePresetsAndFit()
{
    QFETCH(int, preset);
    QFETCH(double, shownFrom);
    ui::PlotPanel panel("Cursor lag", "height (blocks)");
    const int lag = panel.addSeries("lag", Qt::red);
    const double t0 = 1'800'000'000;
    for (int i = 0; i <= 7200; i += 1)
        panel.appendPoint(lag, t0 + i, 1);
    auto* range = panel.findChild<QComboBox*>("timeRange");
    QVERIFY(range);
    QCOMPARE(range->count(), 5);
    QCOMPARE(range->currentText(), QStringLiteral("5 min")); // the default
    panel.setFollowLive(false);                              // a preset brings following back
    range->setCurrentIndex(preset);
    emit range->activated(preset);
    QVERIFY(panel.followLive());
    QCOMPARE(panel.plot()->xAxis->range().lower, shownFrom);
    QCOMPARE(panel.plot()->xAxis->range().upper, t0 + 7200 + 5);
    // The preset holds as data arrives.
    panel.appendPoint(lag, t0 + 7210, 1);
    QCOMPARE(panel.plot()->xAxis->range().upper, t0 + 7210 + 5);
    // Fit: every sample kept, and no more following.
    panel.plot()->xAxis->setRange(t0 + 100, t0 + 110); // zoomed in somewhere
    auto* fit = panel.findChild<QToolButton*>("fit");
    QVERIFY(fit);
    fit->click();
    QVERIFY(!panel.followLive());
    QCOMPARE(panel.plot()->xAxis->range().lower, t0 - 2);
    QCOMPARE(panel.plot()->xAxis->range().upper, t0 + 7210 + 5);
}

void TestPlotPanel::aClickOnTheLegendHidesItsSeries()
{
    ui::PlotPanel panel("Node health", "height");
    const int a = panel.addSeries("node a", Qt::red);
    const int b = panel.addSeries("node b", Qt::blue);
    const double t0 = 1'800'000'000;
    for (int i = 0; i <= 60; ++i) {
        panel.appendPoint(a, t0 + i, 1000);
        panel.appendPoint(b, t0 + i, 10);
    }
    panel.resize(600, 300);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.plot()->replot();
    QVERIFY(panel.plot()->yAxis->range().upper > 1000);
    // A real click on the legend entry of "node a".
    QCPPlottableLegendItem* entry = panel.plot()->legend->itemWithPlottable(panel.plot()->graph(a));
    QVERIFY(entry);
    QTest::mouseClick(panel.plot(), Qt::LeftButton, {}, entry->rect().center());
    QVERIFY(!panel.isSeriesVisible("node a"));
    QVERIFY(panel.isSeriesVisible("node b"));
    QCOMPARE(entry->textColor(), QColor(Qt::gray));
    // The value scale is the visible series': node b's 10, not node a's 1000.
    panel.plot()->replot();
    QVERIFY2(panel.plot()->yAxis->range().upper < 100,
             qPrintable(QString::number(panel.plot()->yAxis->range().upper)));
    // Hover names only what is shown.
    const QPoint at(int(panel.plot()->xAxis->coordToPixel(t0 + 30)),
                    int(panel.plot()->yAxis->coordToPixel(10)));
    const QString hover = panel.hoverTextAt(at);
    QVERIFY2(hover.contains("node b") && !hover.contains("node a"), qPrintable(hover));
    // A second click brings it back.
    QTest::mouseClick(panel.plot(), Qt::LeftButton, {}, entry->rect().center());
    QVERIFY(panel.isSeriesVisible("node a"));
}

QTEST_MAIN(TestPlotPanel)
#include "tst_plotpanel.moc"
