#include "VerdictBadge.h"
#include "Palette.h"
#include "engine/EngineApi.h"

namespace forkscope::ui {

VerdictBadge::VerdictBadge(engine::EngineApi* host, QWidget* parent) : QLabel(parent)
{
    setObjectName(QStringLiteral("verdictBadge"));
    setMargin(3);
    apply(engine::EngineStatus{});
    connect(host, &engine::EngineApi::statusAvailable, this, &VerdictBadge::apply);
}

void VerdictBadge::apply(const engine::EngineStatus& s)
{
    m_state = s.verdict.state;
    using V = engine::InvariantVerdict::State;
    QString text;
    switch (s.verdict.state) {
    case V::None:
        text = tr("invariants: not checked yet");
        break;
    case V::Checking:
        text = tr("invariants: checking...");
        break;
    case V::Holds:
        text = tr("invariants hold");
        break;
    case V::Violated:
        text = tr("invariants VIOLATED");
        break;
    case V::Unavailable:
        text = tr("invariants: could not check");
        break;
    case V::Diverged:
        text = tr("stored blocks are no longer the node's chain");
        break;
    }
    // Never green over a gap: what is stored may hold while the chain above a hole is not
    // indexed at all. The badge says both, in caution colours, until the alert is resolved.
    const bool gap = s.verdict.state == V::Holds && !s.openAlerts.isEmpty();
    if (gap)
        text = tr("invariants hold for what is stored; data incomplete");
    if (!s.crashArmed.isEmpty())
        text += tr(" | crash armed at %1").arg(s.crashArmed);
    setText(text);
    setStyleSheet(
        QStringLiteral("QLabel { color: white; background: %1; border-radius: 3px; }")
            .arg((gap ? Palette::screen(Palette::Tone::Caution) : Palette::verdict(s.verdict.state))
                     .name()));
    setToolTip(s.verdict.action.isEmpty()
                   ? QString()
                   : tr("after %1 (%2):\n%3")
                         .arg(s.verdict.action,
                              s.verdict.at.toLocalTime().toString(QStringLiteral("HH:mm:ss")),
                              s.verdict.summary));
}

} // namespace forkscope::ui
