#pragma once

#include <QString>
#include <stdexcept>

namespace forkscope::indexer {

// Named places where the indexer can be made to die, to prove that every crash point
// leaves the database satisfying the invariants:
//   before-commit   a batch's rows are written, its transaction not yet committed
//   after-commit    committed, but nothing after the commit has run
//   mid-rollback    a rollback's deletes done, its transaction not yet committed
//   mid-delivery    (outbox) a row is sent, its delivery not yet recorded
//   source-before-commit  an added contract's backfill batch is written, not yet committed
//                   (FORKSCOPE_CRASH_AT only: the lab's menu lists the others)
//
// Two ways to arm them:
// - the environment: FORKSCOPE_CRASH_AT=<point> [FORKSCOPE_CRASH_AFTER=N] kills the process
//   with SIGKILL, exactly like kill -9. Only binaries that link the forkscope_crash_env
//   object (CrashPointsFromEnvironment.cpp) read it: the build tree's forkscope with
//   FORKSCOPE_TEST_HOOKS, never the installed or packaged one;
// - in-process, for the desktop lab's "Crash the indexer": armInProcessCrash(point)
//   makes the point throw SimulatedCrash once. The engine then throws the indexer away
//   with its database connection (an open transaction is rolled back, as SQLite does for
//   a killed process) and starts a new one, which recovers from what was committed.
void crashPoint(const char* name);

class SimulatedCrash : public std::runtime_error
{
public:
    explicit SimulatedCrash(const QString& point)
        : std::runtime_error("simulated crash at " + point.toStdString()), m_point(point)
    {
    }
    QString point() const { return m_point; }

private:
    QString m_point;
};

// Called at every crash point after the in-process check; null (the default) does nothing.
using ProcessCrashHook = void (*)(const char* name);
void setProcessCrashHook(ProcessCrashHook hook);

// Arms `point` for the next time any thread reaches it (empty: disarm).
void armInProcessCrash(const QString& point);
QString armedInProcessCrash();
// The points a user can choose from.
QStringList crashPointNames();

} // namespace forkscope::indexer
