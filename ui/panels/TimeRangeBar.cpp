#include "TimeRangeBar.h"
#include "TimeRange.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace forkscope::ui {

TimeRangeBar::TimeRangeBar(TimeRange* range, QWidget* parent)
    : QWidget(parent), m_range(range), m_span(new QComboBox(this)), m_fit(new QToolButton(this)),
      m_follow(new QCheckBox(tr("Follow live"), this)), m_view(new QLabel(this))
{
    setObjectName(QStringLiteral("timeRangeBar"));
    auto* label = new QLabel(tr("Time range (local time):"), this);
    m_span->setObjectName(QStringLiteral("timeRange"));
    m_span->setToolTip(tr("How much time every chart shows while following live"));
    for (double secs : TimeRange::presets())
        m_span->addItem(secs == 0     ? tr("All")
                        : secs < 3600 ? tr("last %1 min").arg(int(secs / 60))
                                      : tr("last %1 h").arg(int(secs / 3600)),
                        secs);
    label->setBuddy(m_span);
    connect(m_span, &QComboBox::activated, this,
            [this](int i) { m_range->setSpanSecs(m_span->itemData(i).toDouble()); });
    m_fit->setObjectName(QStringLiteral("fit"));
    m_fit->setText(tr("Fit"));
    m_fit->setToolTip(tr("Show every sample kept, oldest to newest (stops following live)"));
    connect(m_fit, &QToolButton::clicked, m_range, &TimeRange::fit);
    m_follow->setObjectName(QStringLiteral("followLive"));
    m_follow->setToolTip(tr("Keep the newest data in view as it arrives (Ctrl+L)"));
    connect(m_follow, &QCheckBox::toggled, m_range, &TimeRange::setFollowLive);
    m_view->setObjectName(QStringLiteral("viewNote"));
    auto* hint = new QLabel(tr("Ctrl+wheel zooms, drag pans"), this);
    hint->setObjectName(QStringLiteral("zoomHint"));
    hint->setStyleSheet(QStringLiteral("color: palette(mid);"));
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(4, 0, 4, 0);
    layout->addWidget(label);
    layout->addWidget(m_span);
    layout->addWidget(m_fit);
    layout->addWidget(m_follow);
    layout->addWidget(m_view);
    layout->addStretch(1);
    layout->addWidget(hint);
    connect(m_range, &TimeRange::viewChanged, this, &TimeRangeBar::update);
    connect(m_range, &TimeRange::followLiveChanged, this, &TimeRangeBar::update);
    connect(m_range, &TimeRange::spanChanged, this, &TimeRangeBar::update);
    update();
}

QString TimeRangeBar::viewText() const
{
    return m_view->text();
}

void TimeRangeBar::update()
{
    m_span->setCurrentIndex(int(TimeRange::presets().indexOf(m_range->spanSecs())));
    m_follow->setChecked(m_range->followLive());
    // Dragged or zoomed away from now: say what is shown instead, so the unticked box is
    // never the only sign that the charts stopped moving.
    m_view->setText(m_range->followLive() ? QString()
                                          : tr("showing %1, not live").arg(m_range->describe()));
}

} // namespace forkscope::ui
