#pragma once

#include <QString>
#include <QStringList>
#include <memory>
#include <stdexcept>

class QTemporaryDir;

namespace forkscope::lab {

// A throwaway PostgreSQL cluster could not be made or started. The message says what to do.
class PgLabError : public std::runtime_error
{
public:
    explicit PgLabError(const QString& message) : std::runtime_error(message.toStdString()) {}
    QString message() const { return QString::fromUtf8(what()); }
};

// A throwaway PostgreSQL 15 cluster for the team backend's tests and for a user who wants
// to try it (`forkscope pg-lab`): initdb in a temporary directory, a server on a free
// loopback port with its unix socket in that directory, one database, trust
// authentication on loopback only. stop() (or the destructor) shuts it down and removes the
// directory. Nothing depends on a system-wide service.
//
// The server refuses to run as root; as root the cluster belongs to the `postgres` system
// user that Debian's postgresql-15 package creates, and its commands run through runuser.
// start() blocks until the server accepts connections (seconds): not on a GUI thread.
class PgLab
{
public:
    struct Options
    {
        QString binDir = QStringLiteral("/usr/lib/postgresql/15/bin");
        QString database = QStringLiteral("forkscope");
        quint16 port = 0; // 0 = a free loopback port
        // Extra server settings, "name=value" (letters, digits, '_' and '.' only), e.g.
        // "shared_buffers=1GB" for a benchmark. Anything else is a PgLabError.
        QStringList settings;
    };

    PgLab();
    ~PgLab();
    PgLab(const PgLab&) = delete;
    PgLab& operator=(const PgLab&) = delete;

    void start(const Options& options);
    void start() { start(Options{}); }
    void stop();
    bool isRunning() const { return m_running; }

    // postgresql://postgres@127.0.0.1:PORT/DATABASE
    QString url() const;
    quint16 port() const { return m_port; }
    QString directory() const; // the data directory and the socket live under it
    QString socketDirectory() const;
    // The server's log (its last lines are in every start error).
    QString logPath() const;

private:
    // Runs a PostgreSQL program (as `postgres` when root); throws PgLabError with its output.
    void run(const QString& program, const QStringList& arguments, int timeoutMs);

    Options m_options;
    std::unique_ptr<QTemporaryDir> m_dir;
    quint16 m_port = 0;
    bool m_running = false;
};

} // namespace forkscope::lab
