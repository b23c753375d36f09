#pragma once

#include <QString>

namespace forkscope::store::pg {
class PgConnection;
}

namespace forkscope::coord {

// Exactly one process does a job for an environment: follows its head and decides its
// reorgs (role "head"), or delivers its outbox in order (role "outbox"). That process holds
// a session-level advisory lock keyed by role, environment and chain. The lock
// lives as long as the holder's session, so a holder killed with -9 loses it as soon as
// the server sees its connection close, or, for a machine that vanished, when the server's
// TCP keepalives give up (PgConnection sets them to about 9 s): that is the lease. Others
// poll tryAcquire(); the first to call after the release takes over.
//
// The connection must be dedicated to the lock: a connection pool handing it to other work
// would carry the lock along. A holder checks stillHeld() before each decision it makes
// for the role, so one that lost its session stops at once instead of competing with the
// new holder.
class SessionLock
{
public:
    SessionLock(store::pg::PgConnection& dedicated, const QString& role,
                const QString& environmentId, qint64 chainId);
    ~SessionLock();
    SessionLock(const SessionLock&) = delete;
    SessionLock& operator=(const SessionLock&) = delete;

    bool tryAcquire();
    // Asks the server; throws PgError (Kind::Io) when the session is gone.
    bool stillHeld();
    void release();
    bool held() const { return m_held; }

private:
    store::pg::PgConnection& m_db;
    QByteArray m_key;
    bool m_held = false;
};

} // namespace forkscope::coord
