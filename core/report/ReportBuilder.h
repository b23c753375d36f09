#pragma once

#include "CheckpointReport.h"

namespace forkscope::rpc {
class EthClient;
}
namespace forkscope::store {
class ContractReader;
}

namespace forkscope::report {

// Builds a CheckpointReport from the contract's read surface (and the node, if given), one
// code for a SQLite file and a shared PostgreSQL database: both show the same names, columns
// and text (docs/design.md, "Database contract"). Engine side only: the window receives the
// finished value.
class ReportBuilder
{
public:
    // Reads the environment in one read snapshot (never writes) and, with a node, checks
    // each checkpoint's hash and the four invariants against it. Throws
    // UnknownEnvironmentError (listing the known ids), StoreError on database trouble.
    // RPC failures are not thrown: they become status "unreachable" in the report.
    static CheckpointReport build(store::ContractReader& reader, const QString& environmentId,
                                  rpc::EthClient* node /* nullptr = don't verify */);
    // The default environment: the newest live (not archived) one. Throws
    // UnknownEnvironmentError when there is none.
    static QString liveEnvironment(store::ContractReader& reader);
    // One environment's row, or UnknownEnvironmentError listing the known ids.
    static EnvironmentInfo findEnvironment(store::ContractReader& reader,
                                           const QString& environmentId);
};

} // namespace forkscope::report
