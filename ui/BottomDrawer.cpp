#include "BottomDrawer.h"
#include "widgets/ElidedLabel.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QMouseEvent>
#include <QSplitter>
#include <QStackedWidget>
#include <QTabBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <numeric>

namespace forkscope::ui {

BottomDrawer::BottomDrawer(QWidget* parent)
    : QWidget(parent), m_tabs(new QTabBar(this)), m_stack(new QStackedWidget(this)),
      m_note(new ElidedLabel(this)), m_hide(new QToolButton(this))
{
    setObjectName(QStringLiteral("bottomDrawer"));
    m_tabs->setObjectName(QStringLiteral("drawerTabs"));
    m_tabs->setDrawBase(false);
    m_tabs->setExpanding(false);
    // Every tab readable: the newest message beside them gives up width first; only a
    // window too narrow for all of them scrolls the tabs.
    m_tabs->setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    m_tabs->setUsesScrollButtons(true);
    m_note->setObjectName(QStringLiteral("drawerNote"));
    m_note->setCursor(Qt::PointingHandCursor);
    m_note->installEventFilter(this);
    m_hide->setObjectName(QStringLiteral("drawerHide"));
    m_hide->setAutoRaise(true);
    m_hide->setToolTip(tr("Close the tabs' panel, so the charts take the window's height"));
    connect(m_hide, &QToolButton::clicked, this, [this] { setOpen(!m_open); });
    // A click on the open tab closes the drawer; on another tab, or on a closed drawer's
    // tab, shows that tab.
    connect(m_tabs, &QTabBar::tabBarClicked, this, [this](int index) {
        if (index < 0)
            return;
        if (m_open && index == m_tabs->currentIndex())
            setOpen(false);
        else
            showPage(index);
    });
    connect(m_tabs, &QTabBar::currentChanged, this, [this](int index) {
        m_stack->setCurrentIndex(index);
        // The arrow keys on the focused tab row choose a tab as a click does: shown.
        if (m_tabs->hasFocus())
            setOpen(true);
        updateNote();
    });
    auto* row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 4, 0);
    row->addWidget(m_tabs);
    row->addWidget(m_note, 1);
    // Holds the tabs to the left while there is no message beside them.
    row->addSpacerItem(new QSpacerItem(0, 0, QSizePolicy::Expanding, QSizePolicy::Minimum));
    row->addWidget(m_hide);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(row);
    layout->addWidget(m_stack, 1);
    setOpen(false);
}

int BottomDrawer::addPage(QWidget* page, const QString& title)
{
    m_stack->addWidget(page);
    const int index = m_tabs->addTab(title);
    // A hidden QTabBar does not say that its size changed; the row must know.
    m_tabs->updateGeometry();
    setOpen(m_open); // the closed height is the tab row's, which a tab may change
    return index;
}

int BottomDrawer::pageCount() const
{
    return m_tabs->count();
}

QWidget* BottomDrawer::page(int index) const
{
    return m_stack->widget(index);
}

int BottomDrawer::indexOfPage(QWidget* page) const
{
    return m_stack->indexOf(page);
}

QString BottomDrawer::pageTitle(int index) const
{
    return m_tabs->tabText(index);
}

int BottomDrawer::currentPage() const
{
    return m_tabs->currentIndex();
}

void BottomDrawer::showPage(int index)
{
    m_tabs->setCurrentIndex(index);
    setOpen(true);
}

int BottomDrawer::closedHeight() const
{
    return std::max(
        {m_tabs->sizeHint().height(), m_hide->sizeHint().height(), m_note->sizeHint().height()});
}

void BottomDrawer::setSplitter(QSplitter* splitter)
{
    m_splitter = splitter;
    // The user's drag sets the height the drawer opens to next time.
    connect(splitter, &QSplitter::splitterMoved, this, [this] {
        if (m_open && height() > closedHeight())
            m_openHeight = height();
    });
    setOpen(m_open);
}

void BottomDrawer::setOpen(bool open)
{
    const bool changed = open != m_open;
    m_open = open;
    m_stack->setVisible(open);
    m_hide->setText(open ? tr("Hide \u25be") : tr("Show \u25b4"));
    // Closed, the drawer is its tab row: nothing can drag it taller.
    setMaximumHeight(open ? QWIDGETSIZE_MAX : closedHeight());
    if (m_splitter) {
        const int index = m_splitter->indexOf(this);
        if (QSplitterHandle* handle = m_splitter->handle(index))
            handle->setEnabled(open);
        // Closed, there is nothing to drag: no handle either.
        m_splitter->setHandleWidth(open ? -1 : 0);
        QList<int> sizes = m_splitter->sizes();
        const int total = std::accumulate(sizes.begin(), sizes.end(), 0);
        if (index > 0 && total > 0) {
            // Open: the height it had (half the window at most); closed: its tab row.
            const int mine = open ? std::min(m_openHeight, total / 2) : closedHeight();
            sizes[index] = mine;
            sizes[0] = total - mine;
            m_splitter->setSizes(sizes);
        }
    }
    updateNote();
    if (changed)
        emit openChanged(open);
}

void BottomDrawer::setNote(int index, const QString& text, const QColor& color)
{
    m_notePage = index;
    m_note->setText(text);
    m_note->setStyleSheet(color.isValid() ? QStringLiteral("color: %1").arg(color.name())
                                          : QString());
    updateNote();
}

QString BottomDrawer::noteText() const
{
    return m_note->isHidden() ? QString() : m_note->text();
}

void BottomDrawer::updateNote()
{
    // Pointless while its page is on screen.
    const bool pageShown = m_open && m_tabs->currentIndex() == m_notePage;
    m_note->setVisible(m_notePage >= 0 && !m_note->text().isEmpty() && !pageShown);
    m_note->setToolTip(
        m_notePage >= 0
            ? tr("%1\nClick to open %2").arg(m_note->text(), m_tabs->tabText(m_notePage))
            : QString());
}

void BottomDrawer::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    setOpen(m_open); // the splitter has its real height only now
}

bool BottomDrawer::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_note && event->type() == QEvent::MouseButtonRelease &&
        static_cast<QMouseEvent*>(event)->button() == Qt::LeftButton && m_notePage >= 0) {
        showPage(m_notePage);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace forkscope::ui
