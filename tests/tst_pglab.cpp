// The team backend's throwaway PostgreSQL 15 cluster ("set-up stays two
// commands"): lab::PgLab and `forkscope pg-lab` make one in a temporary directory, as the
// postgres user when run as root (the server refuses root), on a free loopback port with
// its socket in that directory; a client connects by the URL printed; stopping removes it.
#include "lab/PgLab.h"

#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QtTest>
#include <csignal>
#include <libpq-fe.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace forkscope;

namespace {
// One query over libpq; empty on failure (the error goes to the test log).
QString queryOne(const QString& url, const char* sql)
{
    PGconn* c = PQconnectdb(url.toUtf8().constData());
    QString out;
    if (PQstatus(c) == CONNECTION_OK) {
        PGresult* r = PQexec(c, sql);
        if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1)
            out = QString::fromUtf8(PQgetvalue(r, 0, 0));
        else
            qWarning() << PQerrorMessage(c);
        PQclear(r);
    } else {
        qWarning() << PQerrorMessage(c);
    }
    PQfinish(c);
    return out;
}
} // namespace

class TestPgLab : public QObject
{
    Q_OBJECT
private slots:
    void startsAnswersAndRemovesItself();
    void commandPrintsItsUrlAndCleansUpOnSigterm();
    void extraSettingsApplyAndOddOnesAreRefused();
};

void TestPgLab::startsAnswersAndRemovesItself()
{
    lab::PgLab cluster;
    cluster.start();
    QVERIFY(cluster.isRunning());
    QVERIFY(cluster.url().startsWith("postgresql://postgres@127.0.0.1:"));
    QCOMPARE(queryOne(cluster.url(), "SELECT current_database()"), QStringLiteral("forkscope"));
    QVERIFY(queryOne(cluster.url(), "SHOW server_version_num").toInt() >= 150000);
    // Loopback TCP only, and the unix socket in the cluster's own directory.
    QCOMPARE(queryOne(cluster.url(), "SHOW listen_addresses"), QStringLiteral("127.0.0.1"));
    const QString socket =
        QDir(cluster.socketDirectory()).filePath(QStringLiteral(".s.PGSQL.%1").arg(cluster.port()));
    QVERIFY2(QFileInfo::exists(socket), qPrintable(socket));
    if (::geteuid() == 0) { // the server refuses root: the cluster is the postgres user's
        struct stat st
        {
        };
        QCOMPARE(::stat(QFile::encodeName(cluster.directory()).constData(), &st), 0);
        QCOMPARE(st.st_uid, ::getpwnam("postgres")->pw_uid);
    }
    const QString dir = cluster.directory();
    const QString url = cluster.url();
    cluster.stop();
    QVERIFY(!cluster.isRunning());
    QVERIFY2(!QFileInfo::exists(dir), qPrintable(dir)); // nothing left behind
    QCOMPARE(queryOne(url, "SELECT 1"), QString());     // and nothing listening
}

void TestPgLab::commandPrintsItsUrlAndCleansUpOnSigterm()
{
    QProcess p;
    p.start(QStringLiteral(FORKSCOPE_BINARY), {"pg-lab"});
    QVERIFY(p.waitForStarted());
    QString line;
    QTRY_VERIFY_WITH_TIMEOUT(p.canReadLine() || p.state() == QProcess::NotRunning, 120000);
    line = QString::fromUtf8(p.readLine()).trimmed();
    const QRegularExpressionMatch m =
        QRegularExpression(R"(^postgresql (postgresql://\S+) socket (\S+) log \S+$)").match(line);
    QVERIFY2(m.hasMatch(), qPrintable(line + p.readAllStandardError()));
    const QString url = m.captured(1);
    QCOMPARE(queryOne(url, "SELECT current_database()"), QStringLiteral("forkscope"));
    ::kill(pid_t(p.processId()), SIGTERM);
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 0);
    QVERIFY(!QFileInfo::exists(m.captured(2)));
    QCOMPARE(queryOne(url, "SELECT 1"), QString());
}

void TestPgLab::extraSettingsApplyAndOddOnesAreRefused()
{
    lab::PgLab cluster;
    lab::PgLab::Options options;
    options.settings = {QStringLiteral("work_mem=8MB"), QStringLiteral("autovacuum=off")};
    cluster.start(options);
    QCOMPARE(queryOne(cluster.url(), "SHOW work_mem"), QStringLiteral("8MB"));
    QCOMPARE(queryOne(cluster.url(), "SHOW autovacuum"), QStringLiteral("off"));
    cluster.stop();
    // Settings go on the server's command line: nothing that could carry another option.
    lab::PgLab refused;
    options.settings = {QStringLiteral("work_mem=8MB -c listen_addresses=*")};
    QVERIFY_THROWS_EXCEPTION(lab::PgLabError, refused.start(options));
    QVERIFY(!refused.isRunning());
}

QTEST_GUILESS_MAIN(TestPgLab)
#include "tst_pglab.moc"
