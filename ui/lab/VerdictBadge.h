#pragma once

#include "engine/EngineStatus.h"

#include <QLabel>

namespace forkscope::engine {
class EngineApi;
}

namespace forkscope::ui {

// The lab's verdict badge: "invariants hold" / "VIOLATED" / "checking..." in the Palette's
// verdict colour, what the check followed in its tooltip, and a crash point while one is
// armed. Fed by the host's snapshots.
class VerdictBadge : public QLabel
{
    Q_OBJECT
public:
    explicit VerdictBadge(engine::EngineApi* host, QWidget* parent = nullptr);

    engine::InvariantVerdict::State state() const { return m_state; }

private:
    void apply(const engine::EngineStatus& s);

    engine::InvariantVerdict::State m_state = engine::InvariantVerdict::State::None;
};

} // namespace forkscope::ui
