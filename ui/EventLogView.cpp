#include "EventLogView.h"
#include "Palette.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QVBoxLayout>

namespace forkscope::ui {

EventLogView::EventLogView(QWidget* parent)
    : QWidget(parent), m_filter(new QComboBox(this)), m_text(new QPlainTextEdit(this))
{
    m_filter->setObjectName(QStringLiteral("levelFilter"));
    m_filter->addItems({tr("All messages"), tr("Warnings and errors"), tr("Errors only")});
    m_text->setReadOnly(true);
    m_text->setMaximumBlockCount(kMaxEntries);
    connect(m_filter, &QComboBox::currentIndexChanged, this, &EventLogView::render);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Show:"), this));
    top->addWidget(m_filter);
    top->addStretch(1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(m_text, 1);
}

int EventLogView::severity(const QString& level)
{
    if (level == QLatin1String("error") || level == QLatin1String("fail") ||
        level == QLatin1String("ok"))
        return 2;
    if (level == QLatin1String("warning"))
        return 1;
    return 0;
}

void EventLogView::append(const QString& level, const QString& text)
{
    m_entries.push_back({QDateTime::currentDateTime(), level, text});
    while (m_entries.size() > size_t(kMaxEntries))
        m_entries.pop_front();
    if (severity(level) >= minimumSeverity())
        appendRendered(m_entries.back());
}

void EventLogView::setMinimumSeverity(int s)
{
    m_filter->setCurrentIndex(std::clamp(s, 0, 2));
}

int EventLogView::minimumSeverity() const
{
    return m_filter->currentIndex();
}

void EventLogView::appendRendered(const Entry& e)
{
    const QColor level = Palette::logLevel(e.level);
    const QString color = level.isValid() ? level.name() : QString();
    const QString line = QStringLiteral("%1 [%2] %3")
                             .arg(e.at.toString(QStringLiteral("HH:mm:ss")), e.level, e.text);
    if (color.isEmpty())
        m_text->appendPlainText(line);
    else
        m_text->appendHtml(
            QStringLiteral("<span style=\"color:%1\">%2</span>").arg(color, line.toHtmlEscaped()));
}

void EventLogView::render()
{
    m_text->clear();
    const int min = minimumSeverity();
    for (const Entry& e : m_entries)
        if (severity(e.level) >= min)
            appendRendered(e);
    m_text->verticalScrollBar()->setValue(m_text->verticalScrollBar()->maximum());
}

QStringList EventLogView::visibleLines() const
{
    return m_text->toPlainText().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

} // namespace forkscope::ui
