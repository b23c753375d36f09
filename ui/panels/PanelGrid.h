#pragma once

#include <QScrollArea>

class QGridLayout;

namespace forkscope::ui {

class PlotPanel;

// The four chart panels, two by two while the window is wide enough and one above the
// other (scrolling) when it is not, so the window's minimum size is a laptop's, not the sum
// of four charts.
class PanelGrid : public QScrollArea
{
    Q_OBJECT
public:
    // Below this viewport width the panels stack in one column.
    static constexpr int kTwoColumnMinWidth = 880; // two charts of ~440 px

    explicit PanelGrid(const QList<PlotPanel*>& panels, QWidget* parent = nullptr);
    int columns() const { return m_columns; }
    QSize minimumSizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* e) override;

private:
    void reflow(int columns);

    QList<PlotPanel*> m_panels;
    QGridLayout* m_grid;
    int m_columns = 0;
};

} // namespace forkscope::ui
