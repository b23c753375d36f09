#include "LocalTime.h"

#include <QDateTime>

namespace forkscope::ui {

QString LocalTime::format(const QString& storedUtc, const QTimeZone& zone)
{
    QDateTime t = QDateTime::fromString(storedUtc, Qt::ISODateWithMs);
    if (!t.isValid())
        t = QDateTime::fromString(storedUtc, Qt::ISODate);
    if (!t.isValid())
        return storedUtc;
    return t.toTimeZone(zone).toString(QStringLiteral("yyyy-MM-dd\u00a0HH:mm:ss"));
}

QString LocalTime::utc(const QString& storedUtc)
{
    return format(storedUtc, QTimeZone::utc()).replace(QChar(0xa0), QLatin1Char(' ')) +
           QStringLiteral(" UTC");
}

QString LocalTime::zoneName(const QTimeZone& zone)
{
    const int offset = zone.offsetFromUtc(QDateTime::currentDateTimeUtc());
    const int minutes = std::abs(offset) / 60;
    return QStringLiteral("local time, UTC%1%2:%3")
        .arg(offset < 0 ? QLatin1Char('-') : QLatin1Char('+'))
        .arg(minutes / 60, 2, 10, QLatin1Char('0'))
        .arg(minutes % 60, 2, 10, QLatin1Char('0'));
}

} // namespace forkscope::ui
