#pragma once

#include <QStringList>

namespace forkscope::app {

// `forkscope pg-lab [--port P]`: a throwaway PostgreSQL 15 cluster (lab::PgLab) until
// interrupted; prints its URL. For trying the team backend; removed on exit.
int runPgLabCommand(const QStringList& arguments);

} // namespace forkscope::app
