#include "ArchivedSource.h"

namespace forkscope::indexer {

QString archiveEnvironmentId(const QString& environmentId, const chain::Address& address,
                             const QString& archivedAt)
{
    QString compact = archivedAt;
    compact.remove(QLatin1Char('-')).remove(QLatin1Char(':')).remove(QLatin1Char('.'));
    return environmentId + QStringLiteral("~archive~") + address.toHex().mid(2, 8) +
           QLatin1Char('~') + compact;
}

} // namespace forkscope::indexer
