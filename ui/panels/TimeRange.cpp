#include "TimeRange.h"

#include <QDateTime>

#include <algorithm>

namespace forkscope::ui {

TimeRange::TimeRange(QObject* parent) : QObject(parent)
{
    follow();
}

void TimeRange::setSpanSecs(double secs)
{
    if (secs < 0)
        return;
    const bool changed = secs != m_span;
    m_span = secs;
    if (changed)
        emit spanChanged(secs);
    if (!m_follow)
        setFollowLive(true);
    else
        follow();
}

void TimeRange::setFollowLive(bool on)
{
    if (on == m_follow)
        return;
    m_follow = on;
    emit followLiveChanged(on);
    if (on)
        follow();
}

void TimeRange::noteData(double earliest, double latest)
{
    if (latest <= 0)
        return;
    m_earliest = m_earliest > 0 ? std::min(m_earliest, earliest) : earliest;
    m_latest = std::max(m_latest, latest);
    if (m_follow)
        follow();
}

void TimeRange::noteNow(double timeSecs)
{
    if (timeSecs <= m_latest)
        return;
    m_latest = timeSecs;
    if (m_follow)
        follow();
}

void TimeRange::setView(double lower, double upper)
{
    if (!(upper - lower >= kMinViewSecs))
        return;
    setFollowLive(false);
    show(lower, upper);
}

void TimeRange::fit()
{
    if (m_latest <= 0)
        return;
    setFollowLive(false);
    show(m_earliest - 2, m_latest + kRightPadSecs);
}

void TimeRange::follow()
{
    // Before any data the view ends at the wall clock, so the empty charts already show
    // the span they will fill.
    const double now =
        m_latest > 0 ? m_latest : double(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
    const double from = m_span > 0 ? now - m_span : (m_earliest > 0 ? m_earliest - 2 : now - 60);
    show(from, now + kRightPadSecs);
}

void TimeRange::show(double lower, double upper)
{
    if (lower == m_lower && upper == m_upper)
        return;
    m_lower = lower;
    m_upper = upper;
    emit viewChanged(lower, upper);
}

QString TimeRange::describe() const
{
    const auto at = [](double t) {
        return QDateTime::fromMSecsSinceEpoch(qint64(t * 1000))
            .toString(QStringLiteral("HH:mm:ss"));
    };
    return tr("%1 to %2").arg(at(m_lower), at(m_upper));
}

} // namespace forkscope::ui
