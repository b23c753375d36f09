#include "ForeignIndexer.h"

#include <QDir>
#include <QFile>
#include <QProcessEnvironment>
#include <QTemporaryDir>

#include <csignal>
#include <sys/prctl.h>
#include <unistd.h>

namespace forkscope::lab {

namespace {

constexpr qint64 kLogTailBytes = 64 * 1024;

} // namespace

ForeignIndexer::ForeignIndexer(QObject* parent) : QObject(parent) {}

ForeignIndexer::~ForeignIndexer()
{
    stop(2000);
}

QString ForeignIndexer::expand(const QString& command, const Options& options,
                               const QString& workDir)
{
    QString out = command;
    out.replace(QLatin1String("{rpc}"), options.rpc.toString());
    out.replace(QLatin1String("{contracts}"), options.contracts.join(QLatin1Char(',')));
    out.replace(QLatin1String("{chain_id}"), QString::number(options.chainId));
    out.replace(QLatin1String("{database}"), options.databaseUrl);
    out.replace(QLatin1String("{work_dir}"), workDir);
    return out;
}

void ForeignIndexer::start(const Options& options)
{
    if (options.command.trimmed().isEmpty())
        throw ForeignIndexerError(
            QStringLiteral("no indexer command given: pass the command line that starts it"));
    endProcess(5000);
    // After kill() the scratch directory is kept: a restart finds its own state there.
    if (!m_workDir)
        m_workDir = std::make_unique<QTemporaryDir>(
            QDir(QDir::tempPath()).absoluteFilePath(QStringLiteral("forkscope-indexer-XXXXXX")));
    if (!m_workDir->isValid())
        throw ForeignIndexerError(QStringLiteral("cannot create a scratch directory in %1: %2")
                                      .arg(QDir::tempPath(), m_workDir->errorString()));
    m_command = expand(options.command, options, m_workDir->path());

    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("FORKSCOPE_RPC"), options.rpc.toString());
    env.insert(QStringLiteral("FORKSCOPE_CONTRACTS"), options.contracts.join(QLatin1Char(',')));
    env.insert(QStringLiteral("FORKSCOPE_CHAIN_ID"), QString::number(options.chainId));
    env.insert(QStringLiteral("DATABASE_URL"), options.databaseUrl);
    env.insert(QStringLiteral("FORKSCOPE_WORK_DIR"), m_workDir->path());

    m_process = new QProcess(this);
    m_process->setProcessEnvironment(env);
    m_process->setWorkingDirectory(m_workDir->path());
    // A file, not a pipe: an undrained pipe would stall the indexer (as for anvil).
    m_process->setStandardOutputFile(logPath());
    m_process->setStandardErrorFile(logPath(), QIODevice::Append);
    m_process->setChildProcessModifier([] {
        ::setpgid(0, 0); // its own group, so stop() reaches what it starts
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    });
    m_stopping = false;
    m_process->start(QStringLiteral("/bin/sh"), {QStringLiteral("-c"), m_command});
    if (!m_process->waitForStarted(5000)) {
        const QString err = m_process->errorString();
        delete m_process;
        m_process = nullptr;
        throw ForeignIndexerError(
            QStringLiteral("cannot start the indexer command '%1': %2").arg(m_command, err));
    }
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus) {
        if (!m_stopping)
            emit exitedUnexpectedly(code, logTail());
    });
}

void ForeignIndexer::signalGroup(int signal)
{
    if (m_process && m_process->processId() > 0)
        ::kill(-pid_t(m_process->processId()), signal);
}

void ForeignIndexer::endProcess(int graceMs)
{
    if (!m_process)
        return;
    m_stopping = true;
    if (m_process->state() != QProcess::NotRunning && graceMs > 0) {
        signalGroup(SIGTERM);
        m_process->waitForFinished(graceMs);
    }
    // Whatever is left in the group, the shell's children included (it may have exited
    // first).
    signalGroup(SIGKILL);
    m_process->waitForFinished(2000);
    delete m_process;
    m_process = nullptr;
}

void ForeignIndexer::stop(int graceMs)
{
    endProcess(graceMs);
    m_workDir.reset();
}

void ForeignIndexer::kill()
{
    endProcess(0);
}

bool ForeignIndexer::waitForExit(int ms)
{
    if (!m_process || m_process->state() == QProcess::NotRunning)
        return true;
    return m_process->waitForFinished(ms) || m_process->state() == QProcess::NotRunning;
}

bool ForeignIndexer::isRunning() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

qint64 ForeignIndexer::processId() const
{
    return m_process ? m_process->processId() : 0;
}

QString ForeignIndexer::logPath() const
{
    return m_workDir ? QDir(m_workDir->path()).absoluteFilePath(QStringLiteral("indexer.log"))
                     : QString();
}

QString ForeignIndexer::logTail(int maxLines) const
{
    QFile f(logPath());
    if (!f.open(QIODevice::ReadOnly))
        return {};
    f.seek(std::max<qint64>(0, f.size() - kLogTailBytes));
    const QStringList lines = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
    return lines.mid(std::max<qsizetype>(0, lines.size() - maxLines)).join(QLatin1Char('\n'));
}

} // namespace forkscope::lab
