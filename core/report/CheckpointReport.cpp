#include "CheckpointReport.h"

namespace forkscope::report {

QString statusName(VerificationStatus status)
{
    switch (status) {
    case VerificationStatus::NotChecked:
        return QStringLiteral("not-checked");
    case VerificationStatus::Canonical:
        return QStringLiteral("canonical");
    case VerificationStatus::Reorged:
        return QStringLiteral("reorged");
    case VerificationStatus::Missing:
        return QStringLiteral("missing");
    case VerificationStatus::Unreachable:
        return QStringLiteral("unreachable");
    }
    return QStringLiteral("not-checked");
}

QString invariantStateName(InvariantState state)
{
    switch (state) {
    case InvariantState::NotChecked:
        return QStringLiteral("not-checked");
    case InvariantState::Hold:
        return QStringLiteral("hold");
    case InvariantState::Violated:
        return QStringLiteral("violated");
    }
    return QStringLiteral("not-checked");
}

} // namespace forkscope::report
