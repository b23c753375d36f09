#pragma once

#include <QString>

namespace forkscope::indexer {

// Named places where a test can kill the process (SIGKILL, exactly like kill -9), to prove
// that every crash point leaves the database satisfying the invariants. Compiled in only
// with FORKSCOPE_TEST_HOOKS and armed only by the environment:
//   FORKSCOPE_CRASH_AT=before-commit|after-commit|mid-rollback
//   FORKSCOPE_CRASH_AFTER=N   (optional: pass the point N times first; default 0)
void crashPoint(const char* name);

} // namespace forkscope::indexer
