#include "ForeignWatchSpec.h"
#include "ForeignPreset.h"
#include "chain/Address.h"
#include "chain/ChainParseError.h"

#include <QUrl>

namespace forkscope::foreign {

namespace {

QString targetProblem(const QString& target)
{
    if (target.trimmed().isEmpty())
        return QStringLiteral("target: expected a SQLite file or a postgresql:// URL");
    const bool looksLikeUrl = target.contains(QStringLiteral("://"));
    if (!looksLikeUrl)
        return {};
    const QUrl url(target, QUrl::StrictMode);
    const QString scheme = url.scheme().toLower();
    if (scheme != QLatin1String("postgresql") && scheme != QLatin1String("postgres"))
        return QStringLiteral("target: `%1` is not a postgresql:// URL (or give a SQLite file)")
            .arg(url.toString(QUrl::RemoveUserInfo));
    if (!url.isValid() || url.host().isEmpty())
        return QStringLiteral("target: `%1` is not a valid postgresql:// URL with a host")
            .arg(url.toString(QUrl::RemoveUserInfo));
    return {};
}

QString queryProblem(const ForeignWatchSpec& spec)
{
    const bool hasQuery = !spec.query.trimmed().isEmpty();
    const bool hasPreset = !spec.preset.trimmed().isEmpty();
    if (hasQuery == hasPreset)
        return QStringLiteral("give a query or a preset (one of them)");
    if (!spec.table.trimmed().isEmpty() && !hasPreset)
        return QStringLiteral("table: goes with a preset (a query names its own tables)");
    if (hasQuery)
        return {};
    const auto named = presetNamed(spec.preset.trimmed());
    if (!named)
        return QStringLiteral("preset: `%1` is none of %2")
            .arg(spec.preset, presetNames().join(QStringLiteral(", ")));
    const QString table =
        spec.table.trimmed().isEmpty() ? defaultTable(*named) : spec.table.trimmed();
    if (presetQuery(*named, table).isEmpty())
        return QStringLiteral("table: `%1` is not a table name (letters, digits and _, "
                              "optionally schema.table)")
            .arg(table);
    return {};
}

} // namespace

QString validateWatchSpec(const ForeignWatchSpec& spec)
{
    if (const QString t = targetProblem(spec.target); !t.isEmpty())
        return t;
    if (const QString q = queryProblem(spec); !q.isEmpty())
        return q;
    for (const QString& c : spec.contracts) {
        try {
            chain::Address::fromHex(c.trimmed().toLower(), QStringLiteral("contract"));
        } catch (const chain::ChainParseError& e) {
            return e.message();
        }
    }
    if (spec.confirmations > ForeignWatchSpec::kMaxConfirmations)
        return QStringLiteral("confirmations: %1 is above %2")
            .arg(spec.confirmations)
            .arg(ForeignWatchSpec::kMaxConfirmations);
    if (spec.intervalMs < ForeignWatchSpec::kMinIntervalMs)
        return QStringLiteral("interval: %1 ms is below %2 ms")
            .arg(spec.intervalMs)
            .arg(ForeignWatchSpec::kMinIntervalMs);
    if (spec.recheckBlocks > ForeignWatchSpec::kMaxRecheckBlocks)
        return QStringLiteral("recheck window: %1 blocks is above %2")
            .arg(spec.recheckBlocks)
            .arg(ForeignWatchSpec::kMaxRecheckBlocks);
    return {};
}

QString watchQuery(const ForeignWatchSpec& spec)
{
    if (!validateWatchSpec(spec).isEmpty())
        return {};
    if (!spec.query.trimmed().isEmpty())
        return spec.query.trimmed();
    const auto named = presetNamed(spec.preset.trimmed());
    return presetQuery(*named, spec.table.trimmed().isEmpty() ? defaultTable(*named)
                                                              : spec.table.trimmed());
}

} // namespace forkscope::foreign
