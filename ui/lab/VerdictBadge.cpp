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
    }
    if (!s.crashArmed.isEmpty())
        text += tr(" | crash armed at %1").arg(s.crashArmed);
    setText(text);
    setStyleSheet(QStringLiteral("QLabel { color: white; background: %1; border-radius: 3px; }")
                      .arg(Palette::verdict(s.verdict.state).name()));
    setToolTip(s.verdict.action.isEmpty()
                   ? QString()
                   : tr("after %1 (%2):\n%3")
                         .arg(s.verdict.action,
                              s.verdict.at.toLocalTime().toString(QStringLiteral("HH:mm:ss")),
                              s.verdict.summary));
}

} // namespace forkscope::ui
