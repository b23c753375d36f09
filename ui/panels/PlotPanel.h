#pragma once

#include <QWidget>

class QCustomPlot;
class QLabel;

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

private:
    QString m_title;
    QLabel* m_header;
    QLabel* m_placeholder;
    QCustomPlot* m_plot;
};

} // namespace forkscope::ui
