#include "LabCommand.h"
#include "CommandLine.h"
#include "LabRunCommand.h"
#include "config/SettingsValidation.h"
#include "lab/EnvironmentBook.h"
#include "lab/LabReset.h"
#include "lab/LabResetError.h"
#include "rpc/JsonRpcClient.h"
#include "store/OpenStore.h"
#include "store/StoreError.h"

#include <QCommandLineParser>
#include <cstdio>

namespace forkscope::app {

int runLabCommand(const QStringList& arguments)
{
    const qsizetype at = arguments.indexOf(QStringLiteral("lab"));
    if (at >= 0 && arguments.value(at + 1) == QLatin1String("run"))
        return runLabRunCommand(arguments);
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "lab reset: reset the anvil devnet at --rpc to a fresh genesis, archive the "
        "environments of the old chain (every row is kept, read-only) and register a new "
        "environment for the new chain, in one database transaction."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("lab"), QStringLiteral("the command"));
    p.addPositionalArgument(QStringLiteral("reset"), QStringLiteral("the lab action"));
    const QCommandLineOption db(QStringLiteral("db"),
                                QStringLiteral("SQLite database file, or a postgresql:// URL."),
                                QStringLiteral("FILE|URL"));
    const QCommandLineOption rpc(
        QStringLiteral("rpc"), QStringLiteral("The anvil devnet to reset."), QStringLiteral("URL"));
    const QCommandLineOption env(QStringLiteral("env"),
                                 QStringLiteral("Id of the new environment (default: "
                                                "lab-<UTC yyyyMMdd-HHmmss-zzz>)."),
                                 QStringLiteral("NEW_ID"));
    const QCommandLineOption archive(QStringLiteral("archive"),
                                     QStringLiteral("Environment to archive (default: the live "
                                                    "environments of this node, else the newest "
                                                    "live one)."),
                                     QStringLiteral("ID"));
    for (const auto* opt : {&db, &rpc, &env, &archive})
        p.addOption(*opt);
    if (!p.parse(arguments)) {
        printError(QStringLiteral("lab: ") + p.errorText());
        return ExitUsage;
    }
    if (p.isSet(QStringLiteral("help"))) {
        std::fputs(qPrintable(p.helpText()), stdout);
        return ExitOk;
    }
    if (const QString repeated = repeatedOption(p, {&db, &rpc, &env, &archive});
        !repeated.isEmpty()) {
        printError(QStringLiteral("lab reset: ") + repeated);
        return ExitUsage;
    }
    const QStringList positional = p.positionalArguments();
    if (positional.size() < 2) {
        printError(QStringLiteral("lab: expected an action: `forkscope lab reset --db FILE --rpc "
                                  "URL` or `forkscope lab run --indexer COMMAND --scenario "
                                  "NAME`"));
        return ExitUsage;
    }
    if (positional.at(1) != QLatin1String("reset") || positional.size() > 2) {
        printError(QStringLiteral("lab: unknown action `%1`; the lab actions are `reset` and "
                                  "`run`")
                       .arg(positional.mid(1).join(QLatin1Char(' '))));
        return ExitUsage;
    }
    for (const auto* required : {&db, &rpc})
        if (!p.isSet(*required)) {
            printError(
                QStringLiteral("lab reset: --%1 is required").arg(required->names().first()));
            return ExitUsage;
        }
    const auto parsed = config::httpUrl(p.value(rpc));
    if (!parsed) {
        printError(QStringLiteral("lab reset: --rpc: ") + *config::validateEndpoint(p.value(rpc)));
        return ExitUsage;
    }
    const QUrl url = *parsed;
    if (p.isSet(env) && p.value(env).trimmed().isEmpty()) {
        printError(QStringLiteral("lab reset: --env: expected a non-empty id"));
        return ExitUsage;
    }
    const QString dbPath = p.value(db);
    try {
        QString restored;
        const std::unique_ptr<lab::EnvironmentBook> book =
            store::openEnvironmentBook(dbPath, &restored);
        if (!restored.isEmpty())
            printError(QStringLiteral("warning: ") + restored);
        rpc::JsonRpcClient client(url);
        const lab::LabResetResult r =
            lab::LabReset::reset(*book, client, url, p.value(env), p.value(archive));
        if (r.archivedEnvironmentIds.isEmpty())
            std::printf("archived environment: none (no live environment)\n");
        for (const QString& id : r.archivedEnvironmentIds)
            std::printf("archived environment: %s (at %s)\n", qPrintable(id),
                        qPrintable(r.archivedAt));
        if (!r.archivedEnvironmentIds.isEmpty())
            std::printf("kept, read-only: %lld blocks, %lld logs, %lld transfers, %lld balances, "
                        "%lld outbox rows, %lld reorg events, %lld checkpoints, %lld backfill "
                        "ranges\n",
                        static_cast<long long>(r.blocksKept), static_cast<long long>(r.logsKept),
                        static_cast<long long>(r.transfersKept),
                        static_cast<long long>(r.balancesKept),
                        static_cast<long long>(r.outboxKept), static_cast<long long>(r.reorgsKept),
                        static_cast<long long>(r.checkpointsKept),
                        static_cast<long long>(r.backfillRangesKept));
        std::printf("node %s: reset to a fresh genesis %s (was %s)\n",
                    qPrintable(url.toString(QUrl::RemoveUserInfo)), qPrintable(r.newGenesisHash),
                    r.previousGenesisHash.isEmpty() ? "unknown"
                                                    : qPrintable(r.previousGenesisHash));
        std::printf("new environment: %s (chain %llu)\n", qPrintable(r.newEnvironmentId),
                    static_cast<unsigned long long>(r.chainId));
        std::printf("next: deploy your contracts on the fresh chain, then: forkscope index --rpc "
                    "%s --db %s --env %s --contract ADDR\n",
                    qPrintable(url.toString(QUrl::RemoveUserInfo)),
                    qPrintable(store::describeDatabase(dbPath)), qPrintable(r.newEnvironmentId));
        std::fflush(stdout);
        return ExitOk;
    } catch (const lab::LabResetError& e) {
        printError(e.message());
    } catch (const store::StoreError& e) {
        printError(e.message());
    }
    return ExitFailure;
}

} // namespace forkscope::app
