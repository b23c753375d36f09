#include "ForeignPreset.h"

#include <QRegularExpression>

namespace forkscope::foreign {

QStringList presetNames()
{
    return {QStringLiteral("ponder"), QStringLiteral("subsquid")};
}

std::optional<ForeignPreset> presetNamed(const QString& name)
{
    if (name == QLatin1String("ponder"))
        return ForeignPreset::Ponder;
    if (name == QLatin1String("subsquid"))
        return ForeignPreset::Subsquid;
    return std::nullopt;
}

QString defaultTable(ForeignPreset preset)
{
    return preset == ForeignPreset::Ponder ? QStringLiteral("transfer_event")
                                           : QStringLiteral("transfer");
}

QString presetQuery(ForeignPreset preset, const QString& table)
{
    static const QRegularExpression name(
        QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?$"));
    if (!name.match(table).hasMatch())
        return {};
    // Quoted, so a name in any case is the table's own (PostgreSQL folds unquoted ones).
    const QString quoted =
        QStringLiteral("\"%1\"").arg(table.split(QLatin1Char('.')).join(QStringLiteral("\".\"")));
    switch (preset) {
    case ForeignPreset::Ponder:
        // Ponder's checkpoint: block timestamp (10 digits), chain id (16), block number (16),
        // transaction index (16), event type (1), event index (16: the log index).
        return QStringLiteral("SELECT id, CAST(substr(id, 27, 16) AS BIGINT) AS block_number, "
                              "CAST(substr(id, 60, 16) AS BIGINT) AS log_index, \"from\", \"to\", "
                              "amount AS value FROM %1")
            .arg(quoted);
    case ForeignPreset::Subsquid:
        return QStringLiteral("SELECT id, block_number, substr(id, 12, 5) AS block_hash_prefix, "
                              "CAST(substr(id, 18, 6) AS BIGINT) AS log_index, tx_hash, \"from\", "
                              "\"to\", amount AS value FROM %1")
            .arg(quoted);
    }
    return {};
}

} // namespace forkscope::foreign
