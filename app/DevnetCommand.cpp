#include "DevnetCommand.h"
#include "CommandLine.h"
#include "UnixSignalWatcher.h"
#include "chain/ChainParseError.h"
#include "chain/Hex.h"
#include "lab/Devnet.h"
#include "lab/FaultProxy.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <cstdio>
#include <memory>
#include <vector>

namespace forkscope::app {

int runDevnetCommand(const QStringList& arguments)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral("Start a managed anvil lab on loopback and keep it "
                                               "running until interrupted (Ctrl-C)."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("devnet"), QStringLiteral("the subcommand"));
    QCommandLineOption port(QStringLiteral("port"),
                            QStringLiteral("Port for anvil (default: a free one)."),
                            QStringLiteral("P"));
    QCommandLineOption nodes(QStringLiteral("nodes"),
                             QStringLiteral("Number of fault proxies in front of anvil."),
                             QStringLiteral("N"), QStringLiteral("0"));
    p.addOption(port);
    p.addOption(nodes);
    if (!p.parse(arguments)) {
        printError(p.errorText());
        return ExitUsage;
    }
    if (p.isSet(QStringLiteral("help"))) {
        std::fputs(qPrintable(p.helpText()), stdout);
        return ExitOk;
    }
    if (const QString repeated = repeatedOption(p, {&port, &nodes}); !repeated.isEmpty()) {
        printError(QStringLiteral("devnet: ") + repeated);
        return ExitUsage;
    }
    lab::Devnet::Options opts;
    std::uint64_t nodeCount = 0;
    try {
        if (p.isSet(port))
            opts.port = portValue(QStringLiteral("--port"), p.value(port));
        nodeCount = chain::hex::parseDecimalU63(p.value(nodes), QStringLiteral("--nodes"));
        if (nodeCount > 16)
            throw chain::ChainParseError(QStringLiteral("--nodes"), p.value(nodes),
                                         QStringLiteral("expected 0 to 16"));
    } catch (const chain::ChainParseError& e) {
        printError(e.message());
        return ExitUsage;
    }

    lab::Devnet devnet;
    try {
        devnet.start(opts);
    } catch (const lab::DevnetError& e) {
        printError(e.message());
        return ExitFailure;
    }
    // Handled from before the first line that says the devnet is up: a caller that reads it
    // and interrupts at once must get a clean stop, not the default action of SIGINT.
    UnixSignalWatcher signalWatcher;
    QObject::connect(&signalWatcher, &UnixSignalWatcher::terminationRequested, qApp,
                     [] { QCoreApplication::quit(); });
    std::printf("anvil %s chain 31337 pid %lld log %s\n", qPrintable(devnet.url().toString()),
                static_cast<long long>(devnet.processId()), qPrintable(devnet.logPath()));
    // Each "node" is a fault proxy in front of the one anvil; its knobs are live over HTTP.
    std::vector<std::unique_ptr<lab::FaultProxy>> proxies;
    for (std::uint64_t i = 0; i < nodeCount; ++i) {
        auto proxy = std::make_unique<lab::FaultProxy>(devnet.url());
        try {
            proxy->listen();
        } catch (const lab::DevnetError& e) {
            printError(e.message());
            return ExitFailure;
        }
        std::printf("node %llu %s knobs %s/_forkscope/proxy\n",
                    static_cast<unsigned long long>(i + 1), qPrintable(proxy->url().toString()),
                    qPrintable(proxy->url().toString()));
        proxies.push_back(std::move(proxy));
    }
    std::fflush(stdout);

    int code = ExitOk;
    QObject::connect(&devnet, &lab::Devnet::exitedUnexpectedly, qApp,
                     [&code](int exitCode, const QString& tail) {
                         printError(
                             QStringLiteral("anvil exited (code %1): %2").arg(exitCode).arg(tail));
                         code = ExitFailure;
                         QCoreApplication::quit();
                     });
    QCoreApplication::exec();
    devnet.stop();
    return code;
}

} // namespace forkscope::app
