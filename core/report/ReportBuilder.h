#pragma once

#include "CheckpointReport.h"

namespace forkscope::rpc {
class EthClient;
}
namespace forkscope::store {
class Database;
}

namespace forkscope::report {

// Builds a CheckpointReport from the database (and the node, if given). Engine side only:
// the window receives the finished value.
class ReportBuilder
{
public:
    // Reads the environment in one read snapshot (never writes) and, with a node, checks
    // each checkpoint's hash and the four invariants against it. Throws
    // UnknownEnvironmentError (listing the known ids), StoreError on database trouble.
    // RPC failures are not thrown: they become status "unreachable" in the report.
    static CheckpointReport build(store::Database& db, const QString& environmentId,
                                  rpc::EthClient* node /* nullptr = don't verify */);
    // The default environment: the newest live (not archived) one. Throws
    // UnknownEnvironmentError when there is none.
    static QString liveEnvironment(store::Database& db);
    // One environment's row, or UnknownEnvironmentError listing the known ids.
    static EnvironmentInfo findEnvironment(store::Database& db, const QString& environmentId);
};

} // namespace forkscope::report
