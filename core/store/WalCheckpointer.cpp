#include "WalCheckpointer.h"

#include <QThread>
#include <sqlite3.h>

namespace forkscope::store {

WalCheckpointer::WalCheckpointer(sqlite3* writer, const QString& path)
    : m_writer(writer), m_path(path)
{
    m_thread.reset(QThread::create([this] { loop(); }));
    m_thread->setObjectName(QStringLiteral("forkscope-wal-checkpoint"));
    m_thread->start();
    // Replaces SQLite's autocheckpoint hook on this connection (they share one slot).
    sqlite3_wal_hook(m_writer, &WalCheckpointer::walHook, this);
}

WalCheckpointer::~WalCheckpointer()
{
    // Give the writer its automatic checkpoints back (this re-installs SQLite's own hook).
    sqlite3_wal_autocheckpoint(m_writer, wakeFrames);
    {
        QMutexLocker lock(&m_mutex);
        m_stopping = true;
        m_wake.wakeAll();
    }
    m_thread->wait();
}

int WalCheckpointer::walHook(void* self, sqlite3* db, const char* schema, int frames)
{
    auto* me = static_cast<WalCheckpointer*>(self);
    if (frames >= inlineFrames) {
        // Finish what the background thread started (or do it all, should that thread be
        // gone), as SQLite's default hook would: the WAL file cannot grow without bound.
        // Only one checkpoint runs at a time, and a PASSIVE one that finds another running
        // gives up at once; so wait for the thread's (PASSIVE: it never waits itself), or
        // the writer's attempts would all fail while the thread, always a commit behind,
        // never finishes one and the WAL grows past this mark. The lock stays held through
        // the writer's own checkpoint, so the thread cannot start its next one meanwhile.
        QMutexLocker lock(&me->m_mutex);
        while (me->m_running)
            me->m_idle.wait(&me->m_mutex);
        sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
        return SQLITE_OK;
    }
    if (frames >= wakeFrames) {
        QMutexLocker lock(&me->m_mutex);
        me->m_pending = true;
        me->m_wake.wakeOne();
    }
    return SQLITE_OK; // a checkpoint's outcome never fails the commit that triggered it
}

void WalCheckpointer::loop()
{
    sqlite3* db = nullptr;
    const QByteArray path = m_path.toUtf8();
    if (sqlite3_open_v2(path.constData(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
        // Nothing is lost: the writer's inline checkpoint still bounds the WAL.
        sqlite3_close(db);
        return;
    }
    sqlite3_busy_timeout(db, 1000);
    // A connection learns that the file is in WAL mode only by reading it. Until then a
    // checkpoint on it returns SQLITE_OK having done nothing (its log and checkpointed frame
    // counts read -1), and every page was copied inside the writer's COMMITs after all.
    if (sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr) !=
        SQLITE_OK) {
        sqlite3_close(db);
        return;
    }
    while (true) {
        {
            QMutexLocker lock(&m_mutex);
            while (!m_pending && !m_stopping)
                m_wake.wait(&m_mutex);
            if (m_stopping)
                break;
            m_pending = false;
            m_running = true;
        }
        // PASSIVE: copy what is committed, never wait for or block the writer or readers.
        // Counted only when the WAL holds frames copied into the file (SQLite reports the
        // total backfilled since the WAL restarted): an OK that reports -1 copied nothing.
        int logFrames = -1;
        int copiedFrames = -1;
        if (sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, &logFrames,
                                      &copiedFrames) == SQLITE_OK &&
            copiedFrames > 0)
            ++m_runs;
        QMutexLocker lock(&m_mutex);
        m_running = false;
        m_idle.wakeAll();
    }
    sqlite3_close(db);
}

} // namespace forkscope::store
