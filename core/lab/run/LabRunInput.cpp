#include "LabRunInput.h"

#include "chain/ChainParseError.h"
#include "chain/Hex.h"
#include "foreign/AuditQueryChoice.h"

#include <algorithm>

namespace forkscope::lab {

namespace {

constexpr std::uint64_t kMaxTimeoutMs = 24 * 3600 * 1000;

// A whole decimal number from 0 to `max`; throws ChainParseError naming `field`.
std::uint64_t wholeNumber(const QString& field, const QString& text, std::uint64_t max)
{
    const std::uint64_t n = chain::hex::parseDecimalU63(text, field);
    if (n > max)
        throw chain::ChainParseError(field, text,
                                     QStringLiteral("expected a number from 0 to %1").arg(max));
    return n;
}

} // namespace

std::optional<LabRunSpec> LabRunInput::check(QString* error, const FieldNames& names) const
{
    LabRunSpec spec;
    if (!indexer) {
        *error = QStringLiteral("%1 is required").arg(names.indexer);
        return std::nullopt;
    }
    if (!scenario) {
        *error = QStringLiteral("%1 is required").arg(names.scenario);
        return std::nullopt;
    }
    spec.indexerCommand = indexer->trimmed();
    if (spec.indexerCommand.isEmpty()) {
        *error =
            QStringLiteral("%1: expected the command that starts the indexer").arg(names.indexer);
        return std::nullopt;
    }
    const auto named = labScenarioNamed(*scenario);
    if (!named) {
        *error = QStringLiteral("%1: `%2` is none of %3")
                     .arg(names.scenario, *scenario, labScenarioNames().join(QStringLiteral(", ")));
        return std::nullopt;
    }
    spec.scenario = *named;
    spec.query = foreign::resolveAuditQuery({query, preset, table}, error,
                                            {names.query, names.preset, names.table});
    if (!error->isEmpty())
        return std::nullopt;
    try {
        if (seed)
            spec.seed = quint32(wholeNumber(names.seed, *seed, 0xffffffffu));
        if (confirmations)
            spec.confirmations =
                wholeNumber(names.confirmations, *confirmations, std::uint64_t(1) << 62);
        if (catchUpTimeoutMs)
            spec.catchUpTimeoutMs =
                int(wholeNumber(names.catchUpTimeoutMs, *catchUpTimeoutMs, kMaxTimeoutMs));
    } catch (const chain::ChainParseError& e) {
        *error = e.message();
        return std::nullopt;
    }
    spec.database = database.value_or(QString());
    spec.receipts = receipts;
    return spec;
}

} // namespace forkscope::lab
