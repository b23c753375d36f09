#include "AuditQueryFlags.h"

#include "foreign/AuditQueryChoice.h"

namespace forkscope::app {

void AuditQueryFlags::addTo(QCommandLineParser& p) const
{
    for (const QCommandLineOption* o : {&query, &preset, &table})
        p.addOption(*o);
}

foreign::AuditQueryChoice AuditQueryFlags::choice(const QCommandLineParser& p) const
{
    foreign::AuditQueryChoice c;
    if (p.isSet(query))
        c.query = p.value(query);
    if (p.isSet(preset))
        c.preset = p.value(preset);
    if (p.isSet(table))
        c.table = p.value(table);
    return c;
}

QString AuditQueryFlags::resolve(const QCommandLineParser& p, QString* error) const
{
    return foreign::resolveAuditQuery(choice(p), error);
}

} // namespace forkscope::app
