#include "RepairCommand.h"
#include "CommandLine.h"
#include "UnixSignalWatcher.h"
#include "abi/AbiType.h"
#include "abi/EventRegistry.h"
#include "audit/AuditError.h"
#include "audit/DatabaseInUse.h"
#include "audit/EnvironmentRepair.h"
#include "chain/ChainParseError.h"
#include "config/SettingsValidation.h"
#include "indexer/IndexStore.h"
#include "indexer/IndexerErrors.h"
#include "rpc/EthClient.h"
#include "store/DatabaseFiles.h"
#include "store/OpenStore.h"
#include "store/StoreError.h"
#include "text/Count.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <cstdio>

namespace forkscope::app {

namespace {

struct RepairOptions
{
    QString db;
    QString env;
    QUrl rpc;
    std::uint64_t from = 0;
    QString abi;
};

// Returns the error line, or {} (with `help` set when --help was asked).
QString parse(const QStringList& arguments, RepairOptions& o, QString* help)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Repair one environment from block N on: roll it back to N - 1 in one transaction, "
        "exactly as a reorg rollback (recorded in reorg_events with reason \"repair\", the "
        "diff in reorg_diff_items), then index again with the checkpoint's contracts up to "
        "the node's head. Stop any indexer on the database first."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("repair"), QStringLiteral("the subcommand"));
    const QCommandLineOption db(QStringLiteral("db"),
                                QStringLiteral("SQLite database file, or a postgresql:// URL."),
                                QStringLiteral("FILE|URL"));
    const QCommandLineOption env(QStringLiteral("env"), QStringLiteral("Environment id."),
                                 QStringLiteral("ID"));
    const QCommandLineOption rpc(QStringLiteral("rpc"),
                                 QStringLiteral("Node to index again from (http or https)."),
                                 QStringLiteral("URL"));
    const QCommandLineOption from(
        QStringLiteral("from"),
        QStringLiteral("First bad block: everything from it on is removed and indexed again."),
        QStringLiteral("N"));
    const QCommandLineOption abi(QStringLiteral("abi"),
                                 QStringLiteral("The ABI file the environment was indexed with "
                                                "(needed when its logs are ABI-decoded)."),
                                 QStringLiteral("FILE"));
    for (const auto* opt : {&db, &env, &rpc, &from, &abi})
        p.addOption(*opt);
    if (!p.parse(arguments))
        return QStringLiteral("repair: ") + p.errorText();
    if (p.isSet(QStringLiteral("help"))) {
        *help = p.helpText();
        return {};
    }
    if (const QString repeated = repeatedOption(p, {&db, &env, &rpc, &from, &abi});
        !repeated.isEmpty())
        return QStringLiteral("repair: ") + repeated;
    if (p.positionalArguments().size() > 1)
        return QStringLiteral("repair: unexpected argument `%1`")
            .arg(p.positionalArguments().at(1));
    for (const auto* required : {&db, &env, &rpc, &from})
        if (!p.isSet(*required))
            return QStringLiteral("repair: --%1 is required").arg(required->names().first());
    o.db = p.value(db);
    if (o.db.isEmpty())
        return QStringLiteral("repair: --db: expected a database file path");
    o.env = p.value(env).trimmed();
    if (o.env.isEmpty())
        return QStringLiteral("repair: --env: expected a non-empty id");
    const auto url = config::httpUrl(p.value(rpc));
    if (!url)
        return QStringLiteral("repair: --rpc: ") + *config::validateEndpoint(p.value(rpc));
    o.rpc = *url;
    try {
        o.from = blockNumberValue(QStringLiteral("--from"), p.value(from));
    } catch (const chain::ChainParseError& e) {
        return QStringLiteral("repair: ") + e.message();
    }
    if (p.isSet(abi)) {
        o.abi = p.value(abi);
        if (o.abi.isEmpty())
            return QStringLiteral("repair: --abi: expected an ABI file path");
        if (store::isDatabaseFile(o.abi, o.db))
            return QStringLiteral("repair: --abi %1 is the database (or one of its files); pass "
                                  "the ABI file")
                .arg(o.abi);
    }
    return {};
}

} // namespace

int runRepairCommand(const QStringList& arguments)
{
    RepairOptions o;
    if (const auto exit = parseOrExit(arguments, o, parse))
        return *exit;
    if (!o.abi.isEmpty()) {
        try {
            if (abi::EventRegistry::fromFile(o.abi).eventCount() == 0) {
                printError(QStringLiteral("repair: --abi %1 declares no events").arg(o.abi));
                return ExitUsage;
            }
        } catch (const abi::AbiError& e) {
            printError(QStringLiteral("repair: --abi: %1").arg(QString::fromUtf8(e.what())));
            return ExitUsage;
        }
    }
    // Ctrl-C stops the re-indexing between rounds: the repair asks, no event loop turns.
    UnixSignalWatcher signalWatcher;

    // The repair is the only writer: a SQLite file no other process has open (a running
    // indexer would go on writing under it); on a shared database, the writer that holds the
    // environment's head (EnvironmentRepair::plan).
    std::unique_ptr<indexer::IndexStore> indexStore;
    try {
        store::StoreOptions so;
        so.existing = true;
        so.alone = true;
        so.owner = QStringLiteral("repair/") + store::defaultOwner();
        indexStore = store::openIndexStore(o.db, so);
    } catch (const store::StoreError& e) {
        printError(QStringLiteral("repair: %1; nothing was changed").arg(e.message()));
        return ExitFailure;
    }
    if (!indexStore->restoredSurface().isEmpty())
        printError(QStringLiteral("warning: ") + indexStore->restoredSurface());
    const QString database = indexStore->describe();
    bool rolledBack = false;
    try {
        indexer::IndexerConfig base;
        base.rpcUrl = o.rpc;
        base.dbPath = o.db;
        base.abiPath = o.abi;
        rpc::JsonRpcClient client(o.rpc);
        client.setTimeout(base.rpcTimeout);
        client.setMaxReplyBytes(base.maxReplyBytes);
        rpc::EthClient eth(client);
        audit::EnvironmentRepair repair(*indexStore, eth, base);
        const audit::RepairPlan plan = repair.plan(o.env, o.from);
        const auto& cp = plan.target.checkpoint;
        std::printf(
            "repair: environment %s (chain %llu), blocks %llu..%llu (checkpoint %llu, "
            "start block %llu), contracts %s, from %s\n",
            qPrintable(plan.target.environment.id),
            static_cast<unsigned long long>(plan.target.environment.chainId),
            static_cast<unsigned long long>(plan.from), static_cast<unsigned long long>(cp.number),
            static_cast<unsigned long long>(cp.number),
            static_cast<unsigned long long>(cp.startBlock), qPrintable(plan.target.sourcesText()),
            qPrintable(o.rpc.toString(QUrl::RemoveUserInfo)));
        std::fflush(stdout);

        const audit::RepairRollback rb = repair.rollBack(plan);
        const indexer::RollbackResult& r = rb.rollback;
        rolledBack = true;
        const QString forkText = plan.forkBlock
                                     ? QStringLiteral("block %1").arg(*plan.forkBlock)
                                     : QStringLiteral("before the start block (no checkpoint)");
        const QString rebuilt =
            rb.balancesRebuilt == 0
                ? QString()
                : QStringLiteral(", %1 rebuilt from the stored transfers (they were not their "
                                 "sum; the %2 stored transfers below block %3 of the %4 holders "
                                 "concerned are the node's)")
                      .arg(rb.balancesRebuilt)
                      .arg(plan.transfersChecked)
                      .arg(plan.from)
                      .arg(plan.wrongBalances);
        if (!plan.rollbackNeeded)
            std::printf("nothing stored from block %llu on (indexing stopped there): nothing to "
                        "roll back\n",
                        static_cast<unsigned long long>(plan.from));
        else
            std::printf(
                "rolled back to %s in one transaction (reorg id %lld, reason repair): "
                "removed %lld blocks, %lld logs, %lld transfers; %lld pending outbox rows "
                "dropped, %lld delivered rows retracted; %lld balances reverted%s\n",
                qPrintable(forkText), static_cast<long long>(r.reorgId),
                static_cast<long long>(plan.blocksAbove), static_cast<long long>(plan.logsAbove),
                static_cast<long long>(r.transfersRemoved), static_cast<long long>(r.outboxDropped),
                static_cast<long long>(r.deliveredAffected),
                static_cast<long long>(r.balancesChanged), qPrintable(rebuilt));
        if (rb.alertsResolved > 0)
            std::printf(
                "resolved %s from block %llu on (the range is fetched again now)\n",
                qPrintable(text::count(rb.alertsResolved, QStringLiteral("completeness alert"),
                                       QStringLiteral("completeness alerts"))),
                static_cast<unsigned long long>(plan.from));
        std::fflush(stdout);

        repair.onReorg = [](const indexer::RollbackResult& rr, const QString& reason) {
            std::printf("REORG (%s) while indexing again: %s\n", qPrintable(reason),
                        qPrintable(rr.summary()));
            std::fflush(stdout);
        };
        QElapsedTimer clock;
        clock.start();
        const audit::ReindexResult ri = repair.reindex(
            plan,
            [&](const indexer::IndexerStatus& s) {
                if (clock.elapsed() < 1000)
                    return;
                std::printf("head %s checkpoint %s | %s%s%s\n",
                            s.head ? qPrintable(QString::number(*s.head)) : "?",
                            s.checkpoint ? qPrintable(QString::number(*s.checkpoint)) : "none",
                            qPrintable(indexer::IndexerStatus::stateName(s.state)),
                            s.message.isEmpty() ? "" : ": ", qPrintable(s.message));
                std::fflush(stdout);
                clock.restart();
            },
            [] { return UnixSignalWatcher::requested(); });
        std::printf("indexed again: %lld blocks, %lld logs, %lld transfers; synced: checkpoint "
                    "%llu at head %llu\n",
                    static_cast<long long>(ri.blocks), static_cast<long long>(ri.logs),
                    static_cast<long long>(ri.transfers),
                    static_cast<unsigned long long>(ri.checkpoint),
                    static_cast<unsigned long long>(ri.head));
        std::printf("next: forkscope verify --db %s --env %s --rpc %s\n", qPrintable(database),
                    qPrintable(plan.target.environment.id),
                    qPrintable(o.rpc.toString(QUrl::RemoveUserInfo)));
        std::fflush(stdout);
        return ExitOk;
    } catch (const audit::AuditError& e) {
        printError(QStringLiteral("repair: ") + e.message());
    } catch (const indexer::CheckpointMovedError& e) {
        printError(QStringLiteral("repair: the checkpoint moved under the repair (another process "
                                  "is indexing this environment: stop it first); nothing was "
                                  "changed (%1)")
                       .arg(e.message()));
    } catch (const indexer::IndexerError& e) {
        printError(QStringLiteral("repair: ") + e.message());
    } catch (const store::StoreError& e) {
        if (e.kind() == store::StoreError::Kind::Locked && !rolledBack)
            printError(QStringLiteral("repair: database %1 is locked by another process (a running "
                                      "indexer?); stop it first, then repair; nothing was changed")
                           .arg(database));
        else
            printError(QStringLiteral("repair: ") + e.message());
    } catch (const chain::ChainParseError& e) {
        printError(QStringLiteral("repair: bad data in the database: %1").arg(e.message()));
    } catch (const rpc::RpcException& e) {
        printError(QStringLiteral("repair: node %1 did not answer: %2%3")
                       .arg(o.rpc.toString(QUrl::RemoveUserInfo), e.error().toString(),
                            rolledBack ? QString() : QStringLiteral("; nothing was changed")));
    }
    return ExitFailure;
}

} // namespace forkscope::app
