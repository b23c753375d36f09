#pragma once

#include <QObject>
#include <QProcess>
#include <QStringList>
#include <QUrl>
#include <memory>
#include <stdexcept>

class QTemporaryDir;

namespace forkscope::lab {

// A third-party indexer could not be started. The message names the command and says why.
class ForeignIndexerError : public std::runtime_error
{
public:
    explicit ForeignIndexerError(const QString& message) : std::runtime_error(message.toStdString())
    {
    }
    QString message() const { return QString::fromUtf8(what()); }
};

// Another project's indexer run inside the lab: a user's command line started with the
// lab's node, so the lab can put its reorgs and faults in front of it and audit what it
// stores. The command gets, in its environment and as placeholders in its text:
//   FORKSCOPE_RPC        {rpc}        the node to index (a fault proxy in the lab)
//   FORKSCOPE_CONTRACTS  {contracts}  comma-separated contract addresses
//   FORKSCOPE_CHAIN_ID   {chain_id}
//   DATABASE_URL         {database}   where it should store (may be empty)
//   FORKSCOPE_WORK_DIR   {work_dir}   a scratch directory the lab removes at stop()
// It runs under /bin/sh in a process group of its own; stop() ends the whole group, and a
// killed lab takes a simple command (which the shell replaces by exec) down with it.
class ForeignIndexer : public QObject
{
    Q_OBJECT
public:
    struct Options
    {
        QString command;
        QUrl rpc;
        QStringList contracts;
        quint64 chainId = 31337;
        QString databaseUrl;
    };

    explicit ForeignIndexer(QObject* parent = nullptr);
    ~ForeignIndexer() override;

    // Throws ForeignIndexerError if the command is empty or the shell cannot start.
    void start(const Options& options);
    // SIGTERM to the group, SIGKILL after `graceMs`; removes the scratch directory.
    void stop(int graceMs = 5000);
    // kill -9 of the whole group, as a crash would; the scratch directory stays, so the
    // indexer can be started again on its own state.
    void kill();

    bool isRunning() const;
    // Waits up to `ms` for it to exit: true if it has (or was not running). The lab's wait
    // between polls, which also notices an indexer that died.
    bool waitForExit(int ms);
    qint64 processId() const;
    QString command() const { return m_command; }
    QString logPath() const;
    // The last lines it printed, for error messages.
    QString logTail(int maxLines = 15) const;

    // The command with its placeholders filled in.
    static QString expand(const QString& command, const Options& options, const QString& workDir);

signals:
    // It exited without stop() or kill() being called.
    void exitedUnexpectedly(int exitCode, const QString& logTail);

private:
    void signalGroup(int signal);
    void endProcess(int graceMs);

    QProcess* m_process = nullptr;
    std::unique_ptr<QTemporaryDir> m_workDir;
    QString m_command;
    bool m_stopping = false;
};

} // namespace forkscope::lab
