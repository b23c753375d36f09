#include "SessionLock.h"
#include "store/pg/PgConnection.h"

namespace forkscope::coord {

// Two-key advisory locks: class 1181445987 ('Fksc') keeps ours apart from any other
// application's locks in the same database; the object is a hash of role, environment and chain.

SessionLock::SessionLock(store::pg::PgConnection& dedicated, const QString& role,
                         const QString& environmentId, qint64 chainId)
    : m_db(dedicated),
      m_key(role.toUtf8() + '/' + environmentId.toUtf8() + '/' + QByteArray::number(chainId))
{
}

SessionLock::~SessionLock()
{
    try {
        release();
    } catch (...) {
        // The session is gone, and the lock with it.
    }
}

bool SessionLock::tryAcquire()
{
    if (m_held)
        return true;
    m_held = m_db.run("coord_head_try",
                      "SELECT pg_try_advisory_lock(1181445987, hashtext($1::text))", {m_key})
                 .text(0, 0) == "t";
    return m_held;
}

bool SessionLock::stillHeld()
{
    if (!m_held)
        return false;
    m_held = m_db.run("coord_head_held",
                      "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = "
                      "pg_backend_pid() AND classid = 1181445987 AND objid = "
                      "hashtext($1::text)::oid AND objsubid = 2 AND granted",
                      {m_key})
                 .int64(0, 0) == 1;
    return m_held;
}

void SessionLock::release()
{
    if (!m_held)
        return;
    m_held = false;
    m_db.run("coord_head_release", "SELECT pg_advisory_unlock(1181445987, hashtext($1::text))",
             {m_key});
}

} // namespace forkscope::coord
