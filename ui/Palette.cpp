#include "Palette.h"
#include "indexer/ReorgReason.h"

#include <QCoreApplication>

namespace forkscope::ui {

QColor Palette::screen(Tone tone)
{
    switch (tone) {
    case Tone::Good:
        return QColor(0x2e, 0x7d, 0x32);
    case Tone::Bad:
        return QColor(0xc6, 0x28, 0x28);
    case Tone::Caution:
        return QColor(0xb2, 0x6a, 0x00);
    case Tone::Muted:
        return QColor(0x9e, 0x9e, 0x9e);
    }
    return Qt::gray;
}

QColor Palette::print(Tone tone)
{
    switch (tone) {
    case Tone::Good:
        return QColor(0x2c, 0xa0, 0x2c);
    case Tone::Bad:
        return QColor(0xd6, 0x27, 0x28);
    case Tone::Caution:
        return QColor(0xe0, 0x80, 0x10);
    case Tone::Muted:
        return QColor(0x80, 0x80, 0x80);
    }
    return Qt::gray;
}

QColor Palette::nodeState(health::NodeState s)
{
    switch (s) {
    case health::NodeState::CaughtUp:
        return QColor(0x7c, 0xc7, 0x7c);
    case health::NodeState::Lagging:
        return QColor(0xf2, 0xc1, 0x4e);
    case health::NodeState::Offline:
        return QColor(0xe0, 0x6c, 0x6c);
    case health::NodeState::Forked:
        return QColor(0xa9, 0x85, 0xd6);
    case health::NodeState::DroppingLogs:
        return QColor(0xc0, 0x39, 0x2b);
    }
    return Qt::gray;
}

QString Palette::nodeStateMeaning(health::NodeState s)
{
    switch (s) {
    case health::NodeState::CaughtUp:
        return QCoreApplication::translate("NodeState",
                                           "caught up: within the lag threshold of the best head");
    case health::NodeState::Lagging:
        return QCoreApplication::translate(
            "NodeState", "lagging: further behind the best head than the threshold");
    case health::NodeState::Offline:
        return QCoreApplication::translate("NodeState", "offline: no answer, or an error reply");
    case health::NodeState::Forked:
        return QCoreApplication::translate(
            "NodeState", "forked: its block differs from the indexed block at that height");
    case health::NodeState::DroppingLogs:
        return QCoreApplication::translate(
            "NodeState", "dropping logs: caught returning fewer logs than its blocks' bloom or "
                         "receipts commit to; its data is not trusted");
    }
    return {};
}

const QList<health::NodeState>& Palette::nodeStates()
{
    static const QList<health::NodeState> states{
        health::NodeState::CaughtUp, health::NodeState::Lagging, health::NodeState::Offline,
        health::NodeState::Forked, health::NodeState::DroppingLogs};
    return states;
}

QColor Palette::dataIncomplete()
{
    return QColor(0xb0, 0x00, 0x00);
}

QString Palette::bannerStyle(const QString& objectName)
{
    return QStringLiteral("#%1 { background: %2; } #%1 > QLabel { color: white; font-weight: "
                          "bold; }")
        .arg(objectName, dataIncomplete().name());
}

QString Palette::stateStyle(engine::DisplayState::Tone tone)
{
    using T = engine::DisplayState::Tone;
    const auto style = [](const QColor& c) {
        return QStringLiteral("color: white; background: %1; padding: 0 4px").arg(c.name());
    };
    switch (tone) {
    case T::Good:
        return style(screen(Tone::Good));
    case T::Warning:
        return style(screen(Tone::Caution));
    case T::Bad:
        return style(dataIncomplete());
    case T::Neutral:
        break;
    }
    return {};
}

QColor Palette::verdict(engine::InvariantVerdict::State state)
{
    using V = engine::InvariantVerdict::State;
    switch (state) {
    case V::None:
    case V::Checking:
        return screen(Tone::Muted);
    case V::Holds:
        return screen(Tone::Good);
    case V::Violated:
        return screen(Tone::Bad);
    case V::Unavailable:
    case V::Diverged:
        return screen(Tone::Caution);
    }
    return screen(Tone::Muted);
}

QColor Palette::reportVerdict(report::InvariantState state)
{
    switch (state) {
    case report::InvariantState::Hold:
        return print(Tone::Good);
    case report::InvariantState::Violated:
        return print(Tone::Bad);
    case report::InvariantState::NotChecked:
        break;
    }
    return print(Tone::Muted);
}

QColor Palette::verification(report::VerificationStatus status)
{
    switch (status) {
    case report::VerificationStatus::Canonical:
        return print(Tone::Good);
    case report::VerificationStatus::Reorged:
        return print(Tone::Bad);
    case report::VerificationStatus::Missing:
        return print(Tone::Caution);
    case report::VerificationStatus::Unreachable:
    case report::VerificationStatus::NotChecked:
        break;
    }
    return print(Tone::Muted);
}

QColor Palette::logLevel(const QString& level)
{
    if (level == QLatin1String("error") || level == QLatin1String("fail"))
        return screen(Tone::Bad);
    if (level == QLatin1String("warning"))
        return screen(Tone::Caution);
    if (level == QLatin1String("ok"))
        return screen(Tone::Good);
    return {};
}

const QStringList& Palette::liveReorgReasons()
{
    namespace r = indexer::reorg_reason;
    // A repair's rollback is drawn too, in a set of its own: the user asked for it, and it
    // must not read as the chain reorganising.
    static const QStringList reasons{r::kHashMismatch, r::kParentMismatch, r::kAbsence, r::kRepair};
    return reasons;
}

QColor Palette::reorgReason(const QString& reason)
{
    namespace r = indexer::reorg_reason;
    if (reason == r::kHashMismatch)
        return QColor(0xff, 0x7f, 0x0e);
    if (reason == r::kParentMismatch)
        return QColor(0x94, 0x67, 0xbd);
    if (reason == r::kAbsence)
        return QColor(0xd6, 0x27, 0x28);
    if (reason == r::kRepair)
        return QColor(0x17, 0xbe, 0xcf);
    return QColor(0x7f, 0x7f, 0x7f);
}

QColor Palette::branchReason(forktree::BranchReason reason)
{
    return reorgReason(branchReasonName(reason));
}

QString Palette::branchReasonName(forktree::BranchReason reason)
{
    namespace r = indexer::reorg_reason;
    switch (reason) {
    case forktree::BranchReason::HashMismatch:
        return r::kHashMismatch;
    case forktree::BranchReason::ParentMismatch:
        return r::kParentMismatch;
    case forktree::BranchReason::Absence:
        return r::kAbsence;
    case forktree::BranchReason::Repair:
        return r::kRepair;
    }
    return QString();
}

QColor Palette::series(Series s)
{
    switch (s) {
    case Series::Head:
    case Series::DeliveredTotal:
        return QColor(0x1f, 0x77, 0xb4);
    case Series::Checkpoint:
    case Series::DeliveredRate:
        return QColor(0x2c, 0xa0, 0x2c);
    case Series::Lag:
        return QColor(0xd6, 0x27, 0x28);
    case Series::OutboxPending:
        return QColor(0x8c, 0x56, 0x4b);
    case Series::SafeHeight:
        return QColor(0x17, 0xbe, 0xcf);
    }
    return Qt::gray;
}

QColor Palette::nodeSeries(int n)
{
    return QColor::fromHsv((n * 67) % 360, 200, 200);
}

} // namespace forkscope::ui
