#pragma once

#include <QMutex>
#include <QString>
#include <QWaitCondition>
#include <atomic>
#include <memory>

class QThread;
struct sqlite3;

namespace forkscope::store {

// Copies a writer connection's WAL back into the database file on a thread of its own.
//
// SQLite's automatic checkpoint runs inside the COMMIT that crosses the threshold, on the
// committing thread: for the indexer that is a sixth of its time spent copying pages it
// already wrote once. Here the writer's WAL hook only signals, and a second connection
// runs PASSIVE checkpoints (they never block the writer, and copy only committed frames,
// so durability and the one-transaction rule are unchanged).
class WalCheckpointer
{
public:
    // Takes over `writer`'s WAL hook until destroyed. `path` is the writer's database file.
    WalCheckpointer(sqlite3* writer, const QString& path);
    ~WalCheckpointer();

    WalCheckpointer(const WalCheckpointer&) = delete;
    WalCheckpointer& operator=(const WalCheckpointer&) = delete;

    // WAL size (in frames) that wakes the checkpointer: SQLite's own default threshold.
    static constexpr int wakeFrames = 1000;
    // WAL size at which the writer runs a PASSIVE checkpoint itself. This thread has copied
    // most frames by then, so that only finishes the tail; a finished checkpoint lets the
    // next transaction restart the WAL from its beginning (a checkpoint that always trails
    // the writer by a transaction never would), so the file stays near this size.
    static constexpr int inlineFrames = 3 * wakeFrames;

    // Checkpoints this thread ran that copied frames into the file (for tests and
    // diagnostics).
    int checkpointsRun() const { return m_runs.load(); }

private:
    static int walHook(void* self, sqlite3* db, const char* schema, int frames);
    void loop();

    sqlite3* m_writer;
    QString m_path;
    QMutex m_mutex;
    QWaitCondition m_wake;
    QWaitCondition m_idle; // the thread's checkpoint ended
    bool m_pending = false;
    bool m_running = false; // the thread is in a checkpoint
    bool m_stopping = false;
    std::atomic<int> m_runs{0};
    std::unique_ptr<QThread> m_thread;
};

} // namespace forkscope::store
