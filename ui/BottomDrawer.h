#pragma once

#include <QWidget>

class QSplitter;
class QStackedWidget;
class QTabBar;
class QToolButton;

namespace forkscope::ui {

class ElidedLabel;

// The tabs under the charts (event log, nodes, checkpoint, tables) as one drawer that is
// closed to its tab row until a tab is clicked, so the charts keep the window's height.
// Clicking the open tab again, or Hide, closes it; while the event log is not shown, the
// row carries the newest message, so nothing the engine says goes unseen.
class BottomDrawer : public QWidget
{
    Q_OBJECT
public:
    explicit BottomDrawer(QWidget* parent = nullptr);

    // Adds a page; returns its index.
    int addPage(QWidget* page, const QString& title);
    int pageCount() const;
    QWidget* page(int index) const;
    int indexOfPage(QWidget* page) const;
    QString pageTitle(int index) const;
    int currentPage() const;
    // Opens the drawer at `index`.
    void showPage(int index);
    bool isOpen() const { return m_open; }
    void setOpen(bool open);
    // The splitter that shares the height with the charts (the drawer is its last part).
    void setSplitter(QSplitter* splitter);
    // The height the drawer opens to, until the user drags it (then it keeps theirs).
    static constexpr int kOpenHeight = 240;

    // The newest message of the page `index`, shown on the tab row while that page is not
    // on screen; a click on it opens the page. `color` invalid: plain text.
    void setNote(int index, const QString& text, const QColor& color);
    QString noteText() const;
    QTabBar* tabBar() const { return m_tabs; }

signals:
    void openChanged(bool open);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    void updateNote();
    int closedHeight() const;

    QTabBar* m_tabs;
    QStackedWidget* m_stack;
    ElidedLabel* m_note;
    QToolButton* m_hide;
    QSplitter* m_splitter = nullptr;
    bool m_open = true;
    int m_openHeight = kOpenHeight;
    int m_notePage = -1;
};

} // namespace forkscope::ui
