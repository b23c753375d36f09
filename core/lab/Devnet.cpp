#include "Devnet.h"
#include "rpc/EthClient.h"

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QTcpServer>
#include <QTemporaryDir>
#include <QThread>

#include <csignal>
#include <sys/prctl.h>

namespace forkscope::lab {

namespace {
bool isExecutableFile(const QString& p)
{
    const QFileInfo fi(p);
    return fi.isFile() && fi.isExecutable();
}
} // namespace

Devnet::Devnet(QObject* parent) : QObject(parent) {}

Devnet::~Devnet()
{
    stop();
}

QString Devnet::locateAnvil()
{
    const QString fromEnv = qEnvironmentVariable("FORKSCOPE_ANVIL");
    if (!fromEnv.isEmpty()) {
        if (!isExecutableFile(fromEnv))
            throw DevnetError(QStringLiteral("FORKSCOPE_ANVIL is set to %1, which is not an "
                                             "executable file; fix or unset it")
                                  .arg(fromEnv));
        return fromEnv;
    }
    QStringList tried;
    // The package ships anvil here, and the build tree links it here beside its binaries
    // (CMakeLists.txt): the same lookup serves both, with no build path compiled in.
    const QString installed =
        QCoreApplication::instance()
            ? QDir(QCoreApplication::applicationDirPath())
                  .absoluteFilePath(QStringLiteral("../libexec/forkscope/anvil"))
            : QString();
    if (!installed.isEmpty()) {
        if (isExecutableFile(installed))
            return QFileInfo(installed).canonicalFilePath();
        tried << installed;
    }
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("anvil"));
    if (!onPath.isEmpty())
        return onPath;
    tried << QStringLiteral("anvil on PATH");
    throw DevnetError(
        QStringLiteral("anvil not found (looked at: %1). Install it with `npm install "
                       "@foundry-rs/anvil-linux-amd64@1.7.1` and put its bin/anvil on PATH "
                       "or set FORKSCOPE_ANVIL to it (in a source checkout, `bash "
                       "packaging/bootstrap.sh` does this)")
            .arg(tried.join(QStringLiteral(", "))));
}

quint16 Devnet::findFreePort()
{
    QTcpServer probe;
    if (!probe.listen(QHostAddress::LocalHost, 0))
        throw DevnetError(
            QStringLiteral("cannot find a free loopback port: %1").arg(probe.errorString()));
    return probe.serverPort();
}

void Devnet::start(const Options& options)
{
    if (isRunning())
        throw DevnetError(
            QStringLiteral("the devnet is already running at %1").arg(m_url.toString()));
    const QString anvil = locateAnvil();
    if (options.port) {
        // Otherwise we could mistake whatever already listens there for our own anvil.
        QTcpServer probe;
        if (!probe.listen(QHostAddress::LocalHost, options.port))
            throw DevnetError(QStringLiteral("port %1 on 127.0.0.1 is in use (%2); pick another "
                                             "--port or leave it out to use a free one")
                                  .arg(options.port)
                                  .arg(probe.errorString()));
    }

    // A port picked by findFreePort() can be taken by someone else before anvil binds it;
    // retry a few times with a new port when that happens.
    const int attempts = options.port ? 1 : 5;
    QString lastFailure;
    for (int attempt = 0; attempt < attempts; ++attempt) {
        m_port = options.port ? options.port : findFreePort();
        m_url = QUrl(QStringLiteral("http://127.0.0.1:%1").arg(m_port));
        m_logPath = QDir(QDir::tempPath())
                        .absoluteFilePath(QStringLiteral("forkscope-anvil-%1-%2.log")
                                              .arg(QCoreApplication::applicationPid())
                                              .arg(m_port));
        QFile::remove(m_logPath);

        QStringList args{QStringLiteral("--host"), QStringLiteral("127.0.0.1"),
                         QStringLiteral("--port"), QString::number(m_port),
                         QStringLiteral("--chain-id"), QString::number(options.chainId),
                         // --silent keeps the per-transaction chatter out of the log file;
                         // errors still reach it.
                         QStringLiteral("--silent")};
        m_stateCache = std::make_unique<QTemporaryDir>(
            QDir(QDir::tempPath())
                .absoluteFilePath(QStringLiteral("forkscope-anvil-states-XXXXXX")));
        if (!m_stateCache->isValid())
            throw DevnetError(QStringLiteral("cannot create a state directory for anvil in %1: %2")
                                  .arg(QDir::tempPath(), m_stateCache->errorString()));
        args << QStringLiteral("--cache-path") << m_stateCache->path();
        if (options.blockTimeSeconds > 0)
            args << QStringLiteral("--block-time") << QString::number(options.blockTimeSeconds);
        args << options.extraArgs;

        m_process = new QProcess(this);
        // Output goes to a file, not a pipe: a pipe that nobody drains (a busy worker
        // thread) would eventually block anvil, and an orphaned anvil holding the test
        // runner's pipe would hang CTest.
        m_process->setStandardOutputFile(m_logPath);
        m_process->setStandardErrorFile(m_logPath, QIODevice::Append);
        m_process->setChildProcessModifier([] {
            // Die with the process that started us, even on kill -9.
            ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        });
        m_stopping = false;
        m_process->start(anvil, args);
        if (!m_process->waitForStarted(5000)) {
            const QString err = m_process->errorString();
            delete m_process;
            m_process = nullptr;
            throw DevnetError(QStringLiteral("cannot start %1: %2").arg(anvil, err));
        }
        connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus) {
            if (!m_stopping)
                emit exitedUnexpectedly(code, logTail());
        });
        if (waitUntilAnswering(options.startTimeout, options.chainId))
            return;
        lastFailure = logTail();
        const bool exited = m_process->state() == QProcess::NotRunning;
        stop();
        if (!exited)
            throw DevnetError(QStringLiteral("anvil at %1 did not answer eth_chainId within %2 "
                                             "ms; its log: %3")
                                  .arg(m_url.toString())
                                  .arg(options.startTimeout.count())
                                  .arg(lastFailure));
        if (!lastFailure.contains(QLatin1String("in use")))
            break;
    }
    throw DevnetError(QStringLiteral("anvil exited during start-up: %1").arg(lastFailure));
}

bool Devnet::waitUntilAnswering(std::chrono::milliseconds timeout, quint64 expectedChainId)
{
    rpc::JsonRpcClient client(m_url);
    client.setTimeout(std::chrono::milliseconds(1000));
    rpc::EthClient eth(client);
    QDeadlineTimer deadline(timeout);
    while (!deadline.hasExpired()) {
        if (m_process->state() == QProcess::NotRunning)
            return false;
        try {
            const auto id = eth.chainId();
            if (id != expectedChainId)
                throw DevnetError(QStringLiteral("anvil at %1 reports chain id %2, expected %3")
                                      .arg(m_url.toString())
                                      .arg(id)
                                      .arg(expectedChainId));
            return m_process->state() == QProcess::Running;
        } catch (const rpc::RpcException&) {
            QThread::msleep(50);
        }
    }
    return false;
}

void Devnet::stop()
{
    if (!m_process)
        return;
    m_stopping = true;
    if (m_process->state() != QProcess::NotRunning) {
        m_process->terminate();
        if (!m_process->waitForFinished(5000)) {
            m_process->kill();
            m_process->waitForFinished(2000);
        }
    }
    delete m_process;
    m_process = nullptr;
    m_stateCache.reset(); // anvil has exited: nothing writes there any more
    // Under --silent anvil writes only errors: an empty log says nothing, and one was left
    // in the temporary directory by every devnet ever started (thousands after a few test
    // runs). A log with something in it stays for whoever reads it.
    if (QFileInfo(m_logPath).size() == 0)
        QFile::remove(m_logPath);
}

bool Devnet::isRunning() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

QString Devnet::stateCachePath() const
{
    return m_stateCache ? m_stateCache->path() : QString();
}

qint64 Devnet::processId() const
{
    return m_process ? m_process->processId() : 0;
}

QString Devnet::logTail(int maxLines) const
{
    QFile f(m_logPath);
    if (!f.open(QIODevice::ReadOnly))
        return QStringLiteral("(no log)");
    const qint64 size = f.size();
    if (size > 8192)
        f.seek(size - 8192);
    const QStringList lines =
        QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    const QString tail =
        lines.mid(qMax<qsizetype>(0, lines.size() - maxLines)).join(QLatin1String(" | "));
    return tail.isEmpty() ? QStringLiteral("(empty log)") : tail;
}

} // namespace forkscope::lab
