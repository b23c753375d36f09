#pragma once

#include <QRandomGenerator>
#include <QtGlobal>

namespace forkscope::test {

// A torture run's seed: FORKSCOPE_TORTURE_SEED when set (to replay a failing run, whose seed
// the run prints first), else a fresh one, the same for the whole process.
inline quint32 tortureSeed()
{
    static const quint32 seed = [] {
        bool ok = false;
        const quint32 fromEnv = qEnvironmentVariable("FORKSCOPE_TORTURE_SEED").toUInt(&ok);
        return ok ? fromEnv : QRandomGenerator::system()->generate();
    }();
    return seed;
}

} // namespace forkscope::test
