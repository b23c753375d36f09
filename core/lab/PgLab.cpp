#include "PgLab.h"
#include "Devnet.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <pwd.h>
#include <unistd.h>

namespace forkscope::lab {

namespace {
bool isRoot()
{
    return ::geteuid() == 0;
}

QString tail(const QString& path, int lines = 10)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QStringList all = QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'));
    return all.mid(std::max<qsizetype>(0, all.size() - lines)).join(QLatin1Char('\n')).trimmed();
}
} // namespace

PgLab::PgLab() = default;

PgLab::~PgLab()
{
    try {
        stop();
    } catch (...) {
        // A destructor never throws; the directory goes with m_dir regardless.
    }
}

QString PgLab::directory() const
{
    return m_dir ? m_dir->path() : QString();
}

QString PgLab::socketDirectory() const
{
    return directory();
}

QString PgLab::logPath() const
{
    return m_dir ? m_dir->filePath(QStringLiteral("server.log")) : QString();
}

QString PgLab::url() const
{
    return QStringLiteral("postgresql://postgres@127.0.0.1:%1/%2")
        .arg(m_port)
        .arg(m_options.database);
}

void PgLab::run(const QString& program, const QStringList& arguments, int timeoutMs)
{
    const QString path = QDir(m_options.binDir).filePath(program);
    if (!QFileInfo(path).isExecutable())
        throw PgLabError(QStringLiteral("%1 not found: install Debian's postgresql-15 "
                                        "(packaging/bootstrap.sh does)")
                             .arg(path));
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    // Its own working directory: the postgres user may not enter the caller's.
    p.setWorkingDirectory(directory());
    if (isRoot())
        p.start(QStringLiteral("runuser"),
                QStringList{QStringLiteral("-u"), QStringLiteral("postgres"), QStringLiteral("--"),
                            path} +
                    arguments);
    else
        p.start(path, arguments);
    if (!p.waitForFinished(timeoutMs) || p.exitStatus() != QProcess::NormalExit ||
        p.exitCode() != 0) {
        p.kill();
        p.waitForFinished(1000);
        const QString out = QString::fromUtf8(p.readAll()).trimmed();
        throw PgLabError(QStringLiteral("%1 failed (%2): %3")
                             .arg(program,
                                  p.error() == QProcess::Timedout
                                      ? QStringLiteral("no answer in %1 s").arg(timeoutMs / 1000)
                                      : QStringLiteral("exit code %1").arg(p.exitCode()),
                                  out.isEmpty() ? tail(logPath()) : out));
    }
}

void PgLab::start(const Options& options)
{
    // Checked before anything is made: they go on the server's command line.
    QString extra;
    static const QRegularExpression setting(QStringLiteral("^[a-z_]+=[A-Za-z0-9_.]+$"));
    for (const QString& s : options.settings) {
        if (!setting.match(s).hasMatch())
            throw PgLabError(QStringLiteral("server setting \"%1\" is not name=value (letters, "
                                            "digits, '_' and '.')")
                                 .arg(s));
        extra += QStringLiteral(" -c ") + s;
    }
    if (m_running)
        return;
    m_options = options;
    // Under /tmp, not the caller's directory: the postgres user must reach it, and a unix
    // socket path is limited to ~100 bytes.
    m_dir = std::make_unique<QTemporaryDir>(
        QDir::temp().filePath(QStringLiteral("forkscope-pg-XXXXXX")));
    if (!m_dir->isValid())
        throw PgLabError(
            QStringLiteral("cannot make a temporary directory: %1").arg(m_dir->errorString()));
    if (isRoot()) {
        const passwd* pw = ::getpwnam("postgres");
        if (!pw)
            throw PgLabError(QStringLiteral("PostgreSQL refuses to run as root and there is no "
                                            "`postgres` user: install Debian's postgresql-15 "
                                            "(packaging/bootstrap.sh does)"));
        if (::chown(QFile::encodeName(directory()).constData(), pw->pw_uid, pw->pw_gid) != 0)
            throw PgLabError(
                QStringLiteral("cannot hand %1 to the postgres user").arg(directory()));
    }
    const QString data = m_dir->filePath(QStringLiteral("data"));
    // No fsync: a throwaway cluster is rebuilt, not recovered.
    run(QStringLiteral("initdb"),
        {QStringLiteral("-D"), data, QStringLiteral("-U"), QStringLiteral("postgres"),
         QStringLiteral("-A"), QStringLiteral("trust"), QStringLiteral("-E"),
         QStringLiteral("UTF8"), QStringLiteral("--locale=C"), QStringLiteral("--no-sync")},
        120000);
    m_port = options.port ? options.port : Devnet::findFreePort();
    // Loopback and the socket in our directory only: nothing else on the machine listens.
    run(QStringLiteral("pg_ctl"),
        {QStringLiteral("-D"), data, QStringLiteral("-l"), logPath(), QStringLiteral("-w"),
         QStringLiteral("-t"), QStringLiteral("60"), QStringLiteral("-o"),
         QStringLiteral("-p %1 -k %2 -c listen_addresses=127.0.0.1 -c fsync=off "
                        "-c synchronous_commit=off -c full_page_writes=off%3")
             .arg(m_port)
             .arg(directory(), extra),
         QStringLiteral("start")},
        90000);
    m_running = true;
    try {
        run(QStringLiteral("createdb"),
            {QStringLiteral("-h"), QStringLiteral("127.0.0.1"), QStringLiteral("-p"),
             QString::number(m_port), QStringLiteral("-U"), QStringLiteral("postgres"),
             m_options.database},
            30000);
    } catch (...) {
        stop();
        throw;
    }
}

void PgLab::stop()
{
    if (m_running) {
        m_running = false;
        run(QStringLiteral("pg_ctl"),
            {QStringLiteral("-D"), m_dir->filePath(QStringLiteral("data")), QStringLiteral("-m"),
             QStringLiteral("fast"), QStringLiteral("-w"), QStringLiteral("stop")},
            60000);
    }
    m_dir.reset(); // removes the cluster
}

} // namespace forkscope::lab
