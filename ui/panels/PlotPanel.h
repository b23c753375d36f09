#pragma once

#include <QWidget>

class QCustomPlot;
class QLabel;
class QCPBars;

namespace forkscope::ui {

// One titled chart panel with a time axis. Data arrives in later steps; until then the
// panel says plainly that it is waiting rather than drawing invented numbers.
class PlotPanel : public QWidget
{
    Q_OBJECT
public:
    PlotPanel(const QString& title, const QString& valueAxisLabel, QWidget* parent = nullptr);

    QCustomPlot* plot() const { return m_plot; }
    QString title() const { return m_title; }
    void setPlaceholderText(const QString& text);
    QString placeholderText() const;
    void setSummary(const QString& text);
    QString summary() const;

    // A named series; points are appended with appendPoint, the oldest dropped beyond
    // kMaxPoints (24 h at one sample a second), and redraws are queued, not immediate.
    int addSeries(const QString& name, const QColor& color);
    void appendPoint(int series, double timeSecs, double value);
    int pointCount(int series) const;
    // Bars (e.g. one set per reorg reason), replaced as a whole on each update.
    int addBars(const QString& name, const QColor& color);
    void setBars(int bars, const QList<double>& timeSecs, const QList<double>& values);
    QList<double> barValues(int bars) const;
    static constexpr int kMaxPoints = 86400;

signals:
    // A bar (of addBars set `bars`) was clicked; `index` is its position in that set.
    void barClicked(int bars, int index);

private:
    QString m_title;
    QLabel* m_header;
    QLabel* m_summary;
    QLabel* m_placeholder;
    QCustomPlot* m_plot;
    QList<QCPBars*> m_bars;
};

} // namespace forkscope::ui
