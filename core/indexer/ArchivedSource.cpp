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

ArchivedSource archiveOf(const chain::Address& address, const QString& environmentId,
                         std::uint64_t checkpoint, const QString& archivedAt)
{
    ArchivedSource a;
    a.address = address;
    a.environmentId = environmentId;
    a.archivedAt = archivedAt;
    a.archiveEnvironmentId = archiveEnvironmentId(environmentId, address, archivedAt);
    a.checkpoint = checkpoint;
    return a;
}

} // namespace forkscope::indexer
