#pragma once

#include <QtGlobal>

namespace forkscope::store::pg {

class PgConnection;

// Brings a database holding contract version `have` to kPgContractVersion, step by step,
// recording each in schema_version. Runs inside ensurePgContract's transaction, under its
// lock; throws PgError and leaves the rollback to it.
void migratePgContract(PgConnection& db, qint64 have);

} // namespace forkscope::store::pg
