#pragma once

#include <QString>
#include <QTimeZone>

namespace forkscope::ui {

// One time zone everywhere: the app's (local). Tables, dialogs and the PDF report show
// stored times (ISO-8601 UTC, "2025-01-02T03:04:05.678Z") in it, with UTC on hover; the
// report states the zone once on its title page.
struct LocalTime
{
    // "2025-01-02 04:04:05" in `zone`, with a no-break space between date and time so a
    // table cell never wraps a timestamp mid-value. Text that is not an ISO time (a dash,
    // an empty field) comes back unchanged.
    static QString format(const QString& storedUtc,
                          const QTimeZone& zone = QTimeZone::systemTimeZone());
    // "2025-01-02 03:04:05 UTC": the hover text beside a local time.
    static QString utc(const QString& storedUtc);
    // "local time, UTC+01:00": what the title page says the times are.
    static QString zoneName(const QTimeZone& zone = QTimeZone::systemTimeZone());
};

} // namespace forkscope::ui
