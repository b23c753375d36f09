#pragma once

#include "CheckpointReport.h"

namespace forkscope::rpc {
class EthClient;
}
namespace forkscope::store::pg {
class PgConnection;
}

namespace forkscope::report {

// ReportBuilder for a shared PostgreSQL database: the same CheckpointReport, read in one
// REPEATABLE READ snapshot through the contract's views (which show only what the
// checkpoint covers), so several indexer processes writing meanwhile never mix into it.
// A range is only marked done once fetched whole, so nothing below the checkpoint is
// incomplete; a failed range, which stops the checkpoint below it, is reported as an
// open completeness alert (coord/FailedRanges.h).
class PgReportBuilder
{
public:
    static CheckpointReport build(store::pg::PgConnection& db, const QString& environmentId,
                                  rpc::EthClient* node /* nullptr = don't verify */);
    // The newest live environment, or UnknownEnvironmentError.
    static QString liveEnvironment(store::pg::PgConnection& db);
    static EnvironmentInfo findEnvironment(store::pg::PgConnection& db,
                                           const QString& environmentId);
};

} // namespace forkscope::report
