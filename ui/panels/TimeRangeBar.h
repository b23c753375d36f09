#pragma once

#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QToolButton;

namespace forkscope::ui {

class TimeRange;

// The controls of the one time range all charts share, above them: the span, Fit, and
// Follow live, with a note of what the view shows once the user has dragged or zoomed
// away from now (so following never stops unnoticed).
class TimeRangeBar : public QWidget
{
    Q_OBJECT
public:
    explicit TimeRangeBar(TimeRange* range, QWidget* parent = nullptr);

    QComboBox* spanBox() const { return m_span; }
    QCheckBox* followBox() const { return m_follow; }
    QToolButton* fitButton() const { return m_fit; }
    QString viewText() const;

private:
    void update();

    TimeRange* m_range;
    QComboBox* m_span;
    QToolButton* m_fit;
    QCheckBox* m_follow;
    QLabel* m_view;
};

} // namespace forkscope::ui
