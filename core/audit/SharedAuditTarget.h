#pragma once

#include "AuditTarget.h"

namespace forkscope::store::pg {
class PgConnection;
}

namespace forkscope::audit {

// AuditTarget::load for a shared PostgreSQL database: the environment, its checkpoint (the
// contiguous prefix of done ranges) and the contract set every process of it indexes.
// There are no completeness alerts there: a range is only marked done once fetched whole,
// so nothing at or below the checkpoint is unproven. Throws AuditError as load() does.
AuditTarget loadSharedAuditTarget(store::pg::PgConnection& db, const QString& environmentId);

} // namespace forkscope::audit
