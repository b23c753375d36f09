// PlotPanel: a series keeps a day at one point a second, whatever the rate of the statuses
// that feed it (they arrive up to ten times a second); every panel shows the one time range
// the bar above them names; whole-number axes tick whole numbers; legends stay off the
// data; the wheel scrolls and Ctrl+wheel zooms.
#include "panels/PlotPanel.h"
#include "panels/TimeRange.h"
#include "panels/TimeRangeBar.h"

#include <QCheckBox>
#include <QComboBox>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpontaneKeyEvent>
#include <QToolButton>
#include <QVBoxLayout>
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
    void viewIsTheChosenSpanAndNeverGoesBelowZero();
    void everyPanelShowsTheOneRange_data();
    void everyPanelShowsTheOneRange();
    void wholeNumberAxesTickWholeNumbers_data();
    void wholeNumberAxesTickWholeNumbers();
    void legendsAreOffTheData();
    void theWheelScrollsCtrlWheelZooms_data();
    void theWheelScrollsCtrlWheelZooms();
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

void TestPlotPanel::viewIsTheChosenSpanAndNeverGoesBelowZero()
{
    ui::PlotPanel panel("Cursor lag", "height (blocks)");
    const int lag = panel.addSeries("lag", Qt::red);
    const double t0 = 1'800'000'000;
    // Nothing yet: 0..1, not -1..1.
    panel.plot()->replot();
    QCOMPARE(panel.plot()->yAxis->range().lower, 0.0);
    // Ninety seconds of lag 0 and 1: "5 min" shows five minutes, the data at the right
    // (not fitted to the ninety seconds, which would make "5 min" mean something else on
    // every panel), and the value axis starts at 0.
    for (int i = 0; i <= 90; ++i)
        panel.appendPoint(lag, t0 + i, i % 2);
    panel.plot()->replot();
    QCOMPARE(panel.plot()->xAxis->range().lower, t0 + 90 - ui::PlotPanel::kLiveWindowSecs);
    QCOMPARE(panel.plot()->xAxis->range().upper, t0 + 90 + ui::TimeRange::kRightPadSecs);
    QCOMPARE(panel.plot()->yAxis->range().lower, 0.0);
    QVERIFY(panel.plot()->yAxis->range().upper >= 1.0);
    // Once the data spans more than the live window, the window follows the newest.
    for (int i = 91; i <= 400; ++i)
        panel.appendPoint(lag, t0 + i, 3);
    QCOMPARE(panel.plot()->xAxis->range().lower, t0 + 400 - ui::PlotPanel::kLiveWindowSecs);
}

void TestPlotPanel::everyPanelShowsTheOneRange_data()
{
    QTest::addColumn<double>("span");
    QTest::addColumn<double>("dataSecs"); // how long the line panel has had samples
    QTest::newRow("5 min, 1 min of data") << 300.0 << 60.0;
    QTest::newRow("5 min, 10 min of data") << 300.0 << 600.0;
    QTest::newRow("1 min, 10 min of data") << 60.0 << 600.0;
    QTest::newRow("1 h, 10 min of data") << 3600.0 << 600.0;
}

void TestPlotPanel::everyPanelShowsTheOneRange()
{
    QFETCH(double, span);
    QFETCH(double, dataSecs);
    // A line panel with samples every second, a bar panel with one bar and the clock, as
    // the cursor lag and reorg panels are fed.
    ui::TimeRange range;
    ui::TimeRangeBar bar(&range);
    ui::PlotPanel lines("Cursor lag", "height (blocks)");
    ui::PlotPanel bars("Reorg events", "depth (blocks)");
    lines.setTimeRange(&range);
    bars.setTimeRange(&range);
    const int head = lines.addSeries("head", Qt::blue);
    const int reorgs = bars.addBars("hash mismatch", Qt::red);
    const double t0 = 1'800'000'000, now = t0 + dataSecs;
    bar.spanBox()->setCurrentIndex(int(ui::TimeRange::presets().indexOf(span)));
    emit bar.spanBox()->activated(bar.spanBox()->currentIndex());
    for (double t = t0; t <= now; t += 1) {
        lines.appendPoint(head, t, 100 + (t - t0));
        bars.advanceTo(t);
    }
    bars.setBars(reorgs, {now - 20}, {3});
    // The same view on both, and it is the span the box names.
    for (ui::PlotPanel* p : {&lines, &bars}) {
        QCOMPARE(p->plot()->xAxis->range().lower, now - span);
        QCOMPARE(p->plot()->xAxis->range().upper, now + ui::TimeRange::kRightPadSecs);
    }
    QCOMPARE(bar.spanBox()->currentData().toDouble(), span);
    // A drag on one (its axis moved) is the view of both, and following stops, visibly.
    lines.plot()->xAxis->setRange(now - 100, now - 40);
    QCOMPARE(bars.plot()->xAxis->range(), QCPRange(now - 100, now - 40));
    QVERIFY(!bar.followBox()->isChecked());
    QVERIFY2(bar.viewText().contains("not live"), qPrintable(bar.viewText()));
    lines.appendPoint(head, now + 1, 1);
    QCOMPARE(bars.plot()->xAxis->range(), QCPRange(now - 100, now - 40));
    // Follow live again: both jump to now.
    bar.followBox()->click();
    QCOMPARE(bars.plot()->xAxis->range().upper, now + 1 + ui::TimeRange::kRightPadSecs);
    QCOMPARE(lines.plot()->xAxis->range().upper, now + 1 + ui::TimeRange::kRightPadSecs);
    QVERIFY(bar.viewText().isEmpty());
}

void TestPlotPanel::wholeNumberAxesTickWholeNumbers_data()
{
    QTest::addColumn<double>("bottom"); // the smallest value of the left axis' series
    QTest::addColumn<double>("top");    // the largest value shown
    QTest::addColumn<int>("ticks");     // at least this many labelled ticks on the left axis
    QTest::newRow("nothing (0..1)") << 0.0 << 0.0 << 2;
    QTest::newRow("lag 1") << 0.0 << 1.0 << 2;
    QTest::newRow("3 reorgs") << 0.0 << 3.0 << 2;
    QTest::newRow("depth 7") << 0.0 << 7.0 << 2;
    QTest::newRow("lag 62") << 52.0 << 62.0 << 2;
    QTest::newRow("height 404") << 394.0 << 404.0 << 2;
    QTest::newRow("height 123456789") << 123456779.0 << 123456789.0 << 2;
    // A checkpoint held at 115 while the head ran to 960 (a deep-reorg stop): a step of 250
    // is whole; rounding it up to 500 left one labelled tick on the axis.
    QTest::newRow("heights 115..960") << 115.0 << 960.0 << 3;
}

void TestPlotPanel::wholeNumberAxesTickWholeNumbers()
{
    QFETCH(double, bottom);
    QFETCH(double, top);
    QFETCH(int, ticks);
    ui::PlotPanel panel("Cursor lag", "height (blocks)");
    const int head = panel.addSeries("head", Qt::blue);
    const int lag = panel.addSeries("lag", Qt::red, ui::PlotPanel::Axis::Right);
    const double t0 = 1'800'000'000;
    for (int i = 0; i <= 10; ++i) {
        panel.appendPoint(head, t0 + i, bottom + (top - bottom) * i / 10);
        panel.appendPoint(lag, t0 + i, top * i / 10);
    }
    panel.resize(600, 300);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.plot()->replot();
    for (QCPAxis* axis : {panel.plot()->yAxis, panel.plot()->yAxis2}) {
        QVERIFY(axis->tickVector().size() >= 2);
        for (double tick : axis->tickVector())
            QVERIFY2(tick == std::floor(tick), qPrintable(QString::number(tick, 'g', 12)));
        for (const QString& label : axis->tickVectorLabels())
            QVERIFY2(!label.contains('.') && !label.contains('e'), qPrintable(label));
    }
    int shown = 0;
    for (double tick : panel.plot()->yAxis->tickVector())
        shown += panel.plot()->yAxis->range().contains(tick) ? 1 : 0;
    QVERIFY2(shown >= ticks, qPrintable(QString::number(shown)));
}

void TestPlotPanel::legendsAreOffTheData()
{
    ui::PlotPanel panel("Reorg events", "depth (blocks)");
    QList<int> sets;
    for (const char* reason : {"hash mismatch", "parent mismatch", "absence", "repair"})
        sets << panel.addBars(reason, Qt::red);
    for (int set : sets)
        panel.setBarsInLegend(set, false);
    const double t0 = 1'800'000'000;
    panel.advanceTo(t0 + 60);
    panel.setBars(sets[0], {t0 + 58}, {3}); // the newest bar, at the right edge
    panel.setBarsInLegend(sets[0], true);
    panel.resize(600, 300);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.plot()->replot();
    // Only the reason there is, and not over the plot.
    QCOMPARE(panel.plot()->legend->itemCount(), 1);
    QVERIFY(panel.plot()->legend->visible());
    const QRect legend = panel.plot()->legend->outerRect();
    const QRect data = panel.plot()->axisRect()->rect();
    QVERIFY2(!legend.intersects(data), qPrintable(QStringLiteral("legend %1,%2 %3x%4")
                                                      .arg(legend.x())
                                                      .arg(legend.y())
                                                      .arg(legend.width())
                                                      .arg(legend.height())));
    // The bar is drawn where the data is, visible at a day's span too (pixels, not seconds).
    panel.setRangeSecs(24 * 3600);
    panel.plot()->replot();
    QCPBars* bars = qobject_cast<QCPBars*>(panel.plot()->plottable(sets[0]));
    QVERIFY(bars);
    QVERIFY(bars->widthType() == QCPBars::wtAbsolute && bars->width() >= 5);
}

void TestPlotPanel::theWheelScrollsCtrlWheelZooms_data()
{
    QTest::addColumn<bool>("ctrl");
    QTest::newRow("wheel: the page scrolls, the chart stays") << false;
    QTest::newRow("Ctrl+wheel: the chart zooms") << true;
}

void TestPlotPanel::theWheelScrollsCtrlWheelZooms()
{
    QFETCH(bool, ctrl);
    // A chart in a scrolling column, as in a narrow window.
    QScrollArea area;
    auto* column = new QWidget;
    auto* layout = new QVBoxLayout(column);
    auto* panel = new ui::PlotPanel("Cursor lag", "height (blocks)");
    panel->setMinimumHeight(400);
    layout->addWidget(panel);
    layout->addSpacing(800);
    area.setWidget(column);
    area.setWidgetResizable(true);
    area.resize(600, 400);
    area.show();
    QVERIFY(QTest::qWaitForWindowExposed(&area));
    const int head = panel->addSeries("head", Qt::blue);
    const double t0 = 1'800'000'000;
    for (int i = 0; i <= 600; ++i)
        panel->appendPoint(head, t0 + i, 100 + i);
    QCustomPlot* plot = panel->plot();
    plot->replot();
    const QCPRange before = plot->xAxis->range();
    const QPoint at = plot->axisRect()->rect().center();
    QWheelEvent wheel(QPointF(at), plot->mapToGlobal(QPointF(at)), {}, QPoint(0, -120),
                      Qt::NoButton, ctrl ? Qt::ControlModifier : Qt::NoModifier, Qt::NoScrollPhase,
                      false);
    // As the window system delivers it: only a spontaneous wheel event goes on to the
    // parents of a widget that ignores it.
    QSpontaneKeyEvent::setSpontaneous(&wheel);
    qApp->notify(plot, &wheel);
    if (ctrl) {
        QVERIFY(plot->xAxis->range() != before);
        QVERIFY(!panel->followLive());
    } else {
        QCOMPARE(plot->xAxis->range(), before);
        QVERIFY(panel->followLive());
        QVERIFY2(area.verticalScrollBar()->value() > 0, "the page did not scroll");
    }
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
    // The value axis shows the new environment's heights, not the old chain's 793 above them.
    for (int i = 1; i <= 5; ++i)
        panel.appendPoint(head, t0 + 4 + i, i);
    panel.advanceTo(t0 + 10);
    panel.plot()->replot();
    QVERIFY2(panel.plot()->yAxis->range().upper < 20,
             qPrintable(QString::number(panel.plot()->yAxis->range().upper)));
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
    QTest::newRow("24 h") << 3 << newest - 24 * 3600;
    QTest::newRow("All") << 4 << t0 - 2;
}

void TestPlotPanel::rangePresetsAndFit()
{
    QFETCH(int, preset);
    QFETCH(double, shownFrom);
    ui::TimeRange range;
    ui::TimeRangeBar bar(&range);
    ui::PlotPanel panel("Cursor lag", "height (blocks)");
    panel.setTimeRange(&range);
    const int lag = panel.addSeries("lag", Qt::red);
    const double t0 = 1'800'000'000;
    for (int i = 0; i <= 7200; i += 1)
        panel.appendPoint(lag, t0 + i, 1);
    QComboBox* spans = bar.spanBox();
    QCOMPARE(spans->count(), 5);
    QCOMPARE(spans->currentText(), QStringLiteral("last 5 min")); // the default
    panel.setFollowLive(false);                                   // a preset follows again
    spans->setCurrentIndex(preset);
    emit spans->activated(preset);
    QVERIFY(panel.followLive());
    QCOMPARE(panel.plot()->xAxis->range().lower, shownFrom);
    QCOMPARE(panel.plot()->xAxis->range().upper, t0 + 7200 + 5);
    // The preset holds as data arrives.
    panel.appendPoint(lag, t0 + 7210, 1);
    QCOMPARE(panel.plot()->xAxis->range().upper, t0 + 7210 + 5);
    // Fit: every sample kept, and no more following.
    panel.plot()->xAxis->setRange(t0 + 100, t0 + 110); // zoomed in somewhere
    bar.fitButton()->click();
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
