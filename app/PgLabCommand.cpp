#include "PgLabCommand.h"
#include "CommandLine.h"
#include "UnixSignalWatcher.h"
#include "chain/ChainParseError.h"
#include "lab/PgLab.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <cstdio>

namespace forkscope::app {

int runPgLabCommand(const QStringList& arguments)
{
    QCommandLineParser p;
    p.setApplicationDescription(
        QStringLiteral("Start a throwaway PostgreSQL 15 cluster on loopback (initdb in a "
                       "temporary directory, one database `forkscope`, trust on loopback) and "
                       "keep it until interrupted (Ctrl-C); then stop it and remove it."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("pg-lab"), QStringLiteral("the subcommand"));
    QCommandLineOption port(QStringLiteral("port"),
                            QStringLiteral("Port for the server (default: a free one)."),
                            QStringLiteral("P"));
    p.addOption(port);
    if (!p.parse(arguments)) {
        printError(p.errorText());
        return ExitUsage;
    }
    if (p.isSet(QStringLiteral("help"))) {
        std::fputs(qPrintable(p.helpText()), stdout);
        return ExitOk;
    }
    if (const QString repeated = repeatedOption(p, {&port}); !repeated.isEmpty()) {
        printError(QStringLiteral("pg-lab: ") + repeated);
        return ExitUsage;
    }
    lab::PgLab::Options opts;
    try {
        if (p.isSet(port))
            opts.port = portValue(QStringLiteral("--port"), p.value(port));
    } catch (const chain::ChainParseError& e) {
        printError(e.message());
        return ExitUsage;
    }
    lab::PgLab cluster;
    try {
        cluster.start(opts);
    } catch (const lab::PgLabError& e) {
        printError(e.message());
        return ExitFailure;
    }
    // Handled before the line that says the cluster is up: a caller that reads it and
    // interrupts at once still gets the cluster stopped and removed.
    UnixSignalWatcher signalWatcher;
    QObject::connect(&signalWatcher, &UnixSignalWatcher::terminationRequested, qApp,
                     [] { QCoreApplication::quit(); });
    std::printf("postgresql %s socket %s log %s\n", qPrintable(cluster.url()),
                qPrintable(cluster.socketDirectory()), qPrintable(cluster.logPath()));
    std::fflush(stdout);
    QCoreApplication::exec();
    try {
        cluster.stop();
    } catch (const lab::PgLabError& e) {
        printError(e.message());
        return ExitFailure;
    }
    return ExitOk;
}

} // namespace forkscope::app
