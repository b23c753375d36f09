#pragma once

#include "engine/EngineStatus.h"

namespace forkscope::ui {

// A snapshot's place on the charts' time axis (seconds since the epoch): when the engine
// took it, or now for a snapshot that carries no time.
inline double statusTime(const engine::EngineStatus& s)
{
    const QDateTime at = s.updatedAt.isValid() ? s.updatedAt : QDateTime::currentDateTimeUtc();
    return double(at.toMSecsSinceEpoch()) / 1000.0;
}

} // namespace forkscope::ui
