#pragma once

#include <QLabel>

namespace forkscope::ui {

// A one-line plain-text label that gives up width instead of demanding it: it asks for its
// whole text but can shrink to a few characters, drawing "…" where the text is cut, and then
// shows the whole text on hover. The window's long texts (endpoints, database paths, panel
// summaries) are why its minimum width was 1,500 px: a QLabel's minimum is its text.
class ElidedLabel : public QLabel
{
    Q_OBJECT
public:
    explicit ElidedLabel(QWidget* parent = nullptr, Qt::TextElideMode mode = Qt::ElideRight);

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;
    // The text does not fit the label's width now.
    bool isElided() const;
    // Shown on hover after the whole text: what the words mean (Glossary.h).
    void setExplanation(const QString& text) { m_explanation = text; }
    QString explanation() const { return m_explanation; }

protected:
    bool event(QEvent* e) override;
    void paintEvent(QPaintEvent* e) override;

private:
    Qt::TextElideMode m_mode;
    QString m_explanation;
};

} // namespace forkscope::ui
