#include "VerifyCommand.h"
#include "CommandLine.h"
#include "abi/AbiType.h"
#include "abi/EventRegistry.h"
#include "audit/AuditError.h"
#include "audit/ReceiptsLogsProof.h"
#include "audit/StoredDataAuditor.h"
#include "chain/ChainParseError.h"
#include "config/SettingsValidation.h"
#include "rpc/EthClient.h"
#include "store/Database.h"
#include "store/DatabaseFiles.h"
#include "store/OpenStore.h"
#include "store/ReadOnlyStore.h"
#include "text/Count.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <cstdio>

namespace forkscope::app {

namespace {

QString holes(qint64 n)
{
    return text::count(n, QStringLiteral("hole"), QStringLiteral("holes"));
}

QString balances(qint64 n)
{
    return text::count(n, QStringLiteral("balance"), QStringLiteral("balances"));
}

QString wrongBalances(qint64 n)
{
    return text::count(n, QStringLiteral("wrong balance"), QStringLiteral("wrong balances"));
}

// Per call: verify asks for whole ranges of logs and blocks, larger replies.
constexpr std::chrono::milliseconds kVerifyNodeTimeout{10000};

struct VerifyOptions
{
    QString db;
    QString env;
    QUrl rpc;
    std::optional<std::uint64_t> from;
    std::optional<std::uint64_t> to;
    bool receipts = false;
    QString abi;
    bool balanceOf = false;
};

// Returns the error line, or {} (with `help` set when --help was asked).
QString parse(const QStringList& arguments, VerifyOptions& o, QString* help)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Audit one environment's stored data against a node: every stored block's hash, "
        "parent link and timestamp, every block's logsBloom against the contracts of the "
        "checkpoint, the logs and transfers per block against eth_getLogs (each stored column "
        "against the node's log: a transfer's value and parties too), every stored log against "
        "its block's bloom (with --receipts, against the block's receipts root too), and every "
        "balance against the sum of its stored transfers. Prints what was checked and each "
        "finding; exit 1 on one. Never writes to the database."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("verify"), QStringLiteral("the subcommand"));
    const QCommandLineOption db(QStringLiteral("db"),
                                QStringLiteral("SQLite database file, or a postgresql:// URL."),
                                QStringLiteral("FILE|URL"));
    const QCommandLineOption env(QStringLiteral("env"), QStringLiteral("Environment id."),
                                 QStringLiteral("ID"));
    const QCommandLineOption rpc(QStringLiteral("rpc"),
                                 QStringLiteral("Node to compare with (http or https)."),
                                 QStringLiteral("URL"));
    const QCommandLineOption from(
        QStringLiteral("from"),
        QStringLiteral("First block to check (default: the checkpoint's start block)."),
        QStringLiteral("N"));
    const QCommandLineOption to(QStringLiteral("to"),
                                QStringLiteral("Last block to check (default: the checkpoint)."),
                                QStringLiteral("M"));
    const QCommandLineOption receipts(
        QStringLiteral("receipts"),
        QStringLiteral("Also prove the logs of every block that has (or whose bloom admits) a "
                       "log of the contracts by its receipts root: eth_getBlockReceipts and the "
                       "header by hash, two calls more per such block."));
    const QCommandLineOption abi(
        QStringLiteral("abi"),
        QStringLiteral("The ABI file the environment was indexed with: each stored event_name "
                       "and args_json is compared with the node's log decoded with it."),
        QStringLiteral("FILE"));
    const QCommandLineOption balanceOf(
        QStringLiteral("balance-of"),
        QStringLiteral("Also compare each balance with the token's balanceOf(holder) at the "
                       "checkpoint block (eth_call, batches of 100): needs the node to hold that "
                       "block's state, and holds only for tokens whose balances are the sum of "
                       "their Transfer events since the start block."));
    for (const auto* opt : {&db, &env, &rpc, &from, &to, &receipts, &abi, &balanceOf})
        p.addOption(*opt);
    if (!p.parse(arguments))
        return QStringLiteral("verify: ") + p.errorText();
    if (p.isSet(QStringLiteral("help"))) {
        *help = p.helpText();
        return {};
    }
    if (const QString repeated = repeatedOption(p, {&db, &env, &rpc, &from, &to, &abi});
        !repeated.isEmpty())
        return QStringLiteral("verify: ") + repeated;
    if (p.positionalArguments().size() > 1)
        return QStringLiteral("verify: unexpected argument `%1`")
            .arg(p.positionalArguments().at(1));
    for (const auto* required : {&db, &env, &rpc})
        if (!p.isSet(*required))
            return QStringLiteral("verify: --%1 is required").arg(required->names().first());
    o.db = p.value(db);
    if (o.db.isEmpty())
        return QStringLiteral("verify: --db: expected a database file path");
    o.env = p.value(env).trimmed();
    if (o.env.isEmpty())
        return QStringLiteral("verify: --env: expected a non-empty id");
    const auto url = config::httpUrl(p.value(rpc));
    if (!url)
        return QStringLiteral("verify: --rpc: ") + *config::validateEndpoint(p.value(rpc));
    o.rpc = *url;
    try {
        if (p.isSet(from))
            o.from = blockNumberValue(QStringLiteral("--from"), p.value(from));
        if (p.isSet(to))
            o.to = blockNumberValue(QStringLiteral("--to"), p.value(to));
    } catch (const chain::ChainParseError& e) {
        return QStringLiteral("verify: ") + e.message();
    }
    if (o.from && o.to && *o.from > *o.to)
        return QStringLiteral("verify: --from %1 is above --to %2").arg(*o.from).arg(*o.to);
    o.receipts = p.isSet(receipts);
    o.balanceOf = p.isSet(balanceOf);
    if (p.isSet(abi)) {
        o.abi = p.value(abi);
        if (o.abi.isEmpty())
            return QStringLiteral("verify: --abi: expected an ABI file path");
        if (store::isDatabaseFile(o.abi, o.db))
            return QStringLiteral("verify: --abi %1 is the database (or one of its files); pass "
                                  "the ABI file")
                .arg(o.abi);
    }
    return {};
}

QString contractsText(const audit::AuditTarget& t)
{
    return t.sourcesText();
}

void printChecked(const audit::AuditResult& r, const VerifyOptions& o, const audit::AuditTarget& t)
{
    std::printf("checked: %lld blocks (headers linked by parentHash, stored hashes, parent hashes "
                "and timestamps equal to the node's), %lld stored blocks, %lld stored logs against "
                "their blocks' logsBloom\n",
                static_cast<long long>(r.blocksChecked), static_cast<long long>(r.storedBlocks),
                static_cast<long long>(r.storedLogs));
    std::printf("checked: logs per block against eth_getLogs: %lld on the node, %lld stored, in "
                "%lld blocks (%s, %lld by blockHash); %lld stored transfers\n",
                static_cast<long long>(r.nodeLogs), static_cast<long long>(r.storedLogs),
                static_cast<long long>(r.blocksWithLogs),
                qPrintable(text::count(r.getLogsCalls, QStringLiteral("eth_getLogs range call"),
                                       QStringLiteral("eth_getLogs range calls"))),
                static_cast<long long>(r.byHashFetches), static_cast<long long>(r.storedTransfers));
    std::printf(
        "checked: blooms admitting a contract with no stored log of it: %lld, of which "
        "%s (none of the block's logs is ours) and %lld with logs of ours\n",
        static_cast<long long>(r.bloomSuspects),
        qPrintable(text::count(r.bloomFalsePositives, QStringLiteral("bloom false positive"),
                               QStringLiteral("bloom false positives"))),
        static_cast<long long>(r.bloomSuspects - r.bloomFalsePositives));
    if (!r.proofName.isEmpty())
        std::printf("checked: %lld blocks' logs against their %s proof\n",
                    static_cast<long long>(r.provenBlocks), qPrintable(r.proofName));
    std::printf("checked: %lld stored transfers' contract, parties and value against their "
                "logs%s\n",
                static_cast<long long>(r.transfersCompared),
                qPrintable(!o.abi.isEmpty()
                               ? QStringLiteral("; %1 stored logs' event_name and args_json "
                                                "against their logs decoded with --abi")
                                     .arg(r.decodingsCompared)
                               : QString()));
    if (r.decodedLogsUnchecked)
        std::printf("not checked: event_name and args_json of the ABI-decoded logs (pass --abi "
                    "FILE, the ABI the environment was indexed with, to check them)\n");
    std::printf("checked: %lld token_balances rows against the sums of the %lld stored transfers "
                "of blocks %llu..%llu%s\n",
                static_cast<long long>(r.balancesChecked),
                static_cast<long long>(r.transfersSummed),
                static_cast<unsigned long long>(t.checkpoint.startBlock),
                static_cast<unsigned long long>(t.checkpoint.number),
                qPrintable(r.balanceOfCalls > 0
                               ? QStringLiteral(", and %1 against the token's balanceOf at the "
                                                "checkpoint")
                                     .arg(r.balanceOfCalls)
                               : QString()));
}

QString dbText(const VerifyOptions& o)
{
    return store::describeDatabase(o.db);
}

QString repairCommand(const VerifyOptions& o, std::uint64_t from)
{
    return QStringLiteral("forkscope repair --db %1 --env %2 --rpc %3 --from %4%5")
        .arg(dbText(o), o.env, o.rpc.toString(QUrl::RemoveUserInfo))
        .arg(from)
        .arg(o.abi.isEmpty() ? QString() : QStringLiteral(" --abi ") + o.abi);
}

// Where a repair fixes every finding a repair can fix: the first hole (rolled back, the
// balances rebuilt from the Transfers below it, indexed again), or, for balances alone, the
// checkpoint (the cheapest rollback that rebuilds them).
std::optional<std::uint64_t> repairFrom(const audit::AuditResult& r, std::uint64_t checkpoint)
{
    if (const auto first = r.firstHole())
        return first;
    for (const audit::BalanceFinding& f : r.balanceFindings)
        if (f.kind != audit::BalanceFinding::Kind::NotBalanceOf)
            return checkpoint;
    return std::nullopt;
}

void printFindings(const audit::AuditResult& r, const VerifyOptions& o, const audit::AuditTarget& t)
{
    for (const audit::AuditHole& h : r.holes)
        std::printf("HOLE %s\n", qPrintable(h.describe()));
    if (r.holeCount > r.holes.size())
        std::printf("... and %lld more holes\n",
                    static_cast<long long>(r.holeCount - r.holes.size()));
    const auto from = repairFrom(r, t.checkpoint.number);
    for (const audit::BalanceFinding& f : r.balanceFindings)
        std::printf(
            "BALANCE at checkpoint %llu: %s: %s\n",
            static_cast<unsigned long long>(t.checkpoint.number), qPrintable(f.describe()),
            qPrintable(
                f.kind != audit::BalanceFinding::Kind::NotBalanceOf
                    ? QStringLiteral("fixed by `%1`").arg(repairCommand(o, *from))
                : r.holeCount > 0
                    ? QStringLiteral("the holes above may be why: repair them, then verify "
                                     "again")
                    : QStringLiteral("the token's balances are not the sum of its Transfer "
                                     "events from block %1 (Transfers before the start block, "
                                     "or a token that moves balances without them): no repair "
                                     "changes that")
                          .arg(t.checkpoint.startBlock)));
    if (r.balanceFindingCount > r.balanceFindings.size())
        std::printf("... and %lld more balances\n",
                    static_cast<long long>(r.balanceFindingCount - r.balanceFindings.size()));
    if (r.reorgedAt)
        std::printf("reorged at %llu: the stored hash %s is not the node's %s, and nothing "
                    "stored above it links to the node's block; the chain moved on (%lld blocks "
                    "up to %llu not compared): run `forkscope index` to roll back, then verify "
                    "again\n",
                    static_cast<unsigned long long>(*r.reorgedAt), qPrintable(r.reorgedStoredHash),
                    qPrintable(r.reorgedNodeHash.toHex()), static_cast<long long>(r.reorgedBlocks),
                    static_cast<unsigned long long>(r.to));
}

void printVerdict(const audit::AuditResult& r, const VerifyOptions& o, const audit::AuditTarget& t)
{
    if (r.clean()) {
        std::printf("verdict: clean: blocks %llu..%llu hold every log of the contracts the node "
                    "has, and nothing else; every balance is the sum of its transfers\n",
                    static_cast<unsigned long long>(r.from), static_cast<unsigned long long>(r.to));
        return;
    }
    QStringList found;
    if (r.holeCount > 0)
        found << QStringLiteral("%1, the first at block %2")
                     .arg(holes(r.holeCount))
                     .arg(*r.firstHole());
    if (r.balanceFindingCount > 0)
        found << QStringLiteral("%1 wrong").arg(balances(r.balanceFindingCount));
    if (r.reorgedAt && found.isEmpty()) {
        std::printf("verdict: no hole below block %llu, but the stored chain is not the node's "
                    "from there\n",
                    static_cast<unsigned long long>(*r.reorgedAt));
        return;
    }
    const auto from = repairFrom(r, t.checkpoint.number);
    std::printf("verdict: %s: %s\n", qPrintable(found.join(QStringLiteral("; "))),
                qPrintable(from ? QStringLiteral("run `%1`").arg(repairCommand(o, *from))
                                : QStringLiteral("no repair changes the token's own balances")));
}

void printResult(const audit::AuditResult& r, const VerifyOptions& o, const audit::AuditTarget& t)
{
    printChecked(r, o, t);
    printFindings(r, o, t);
    printVerdict(r, o, t);
    std::fflush(stdout);
}

} // namespace

int runVerifyCommand(const QStringList& arguments)
{
    VerifyOptions o;
    if (const auto exit = parseOrExit(arguments, o, parse))
        return *exit;
    std::optional<abi::EventRegistry> registry;
    if (!o.abi.isEmpty()) {
        try {
            registry = abi::EventRegistry::fromFile(o.abi);
        } catch (const abi::AbiError& e) {
            printError(QStringLiteral("verify: --abi: %1").arg(QString::fromUtf8(e.what())));
            return ExitUsage;
        }
        if (registry->eventCount() == 0) {
            printError(QStringLiteral("verify: --abi %1 declares no events").arg(o.abi));
            return ExitUsage;
        }
    }
    try {
        // An audit never writes: SQLite is opened read-only, PostgreSQL read in a READ ONLY
        // transaction (the reader's snapshot) and never migrated.
        const std::unique_ptr<store::ReadOnlyStore> store = store::ReadOnlyStore::open(o.db);
        rpc::JsonRpcClient client(o.rpc);
        client.setTimeout(kVerifyNodeTimeout);
        rpc::EthClient eth(client);
        const audit::AuditTarget target = audit::AuditTarget::load(store->reader(), o.env);
        audit::AuditRange range;
        if (const QString error = target.resolveRange(o.from, o.to, &range); !error.isEmpty()) {
            printError(QStringLiteral("verify: environment %1: %2; nothing was checked")
                           .arg(target.environment.id, error));
            return ExitFailure;
        }
        // Every log the ABI decodes would differ from a row that was never decoded.
        if (registry && store->reader().scalar(
                            QStringLiteral("SELECT count(*) FROM (SELECT 1 "
                                           "FROM logs WHERE environment_id = "
                                           "? AND chain_id = ? AND event_name "
                                           "IS NOT NULL LIMIT 1) d"),
                            {target.environment.id, qint64(target.environment.chainId)}) == 0) {
            printError(QStringLiteral("verify: --abi %1: environment %2 was indexed without an "
                                      "ABI (no stored log carries a decoded event name): verify "
                                      "it without --abi; nothing was checked")
                           .arg(o.abi, target.environment.id));
            return ExitFailure;
        }
        target.checkNode(eth, o.rpc, QStringLiteral("nothing was checked"));
        std::printf(
            "verify: environment %s (chain %llu), blocks %llu..%llu (checkpoint %llu, "
            "start block %llu), contracts %s, against %s\n",
            qPrintable(target.environment.id),
            static_cast<unsigned long long>(target.environment.chainId),
            static_cast<unsigned long long>(range.from), static_cast<unsigned long long>(range.to),
            static_cast<unsigned long long>(target.checkpoint.number),
            static_cast<unsigned long long>(target.checkpoint.startBlock),
            qPrintable(contractsText(target)), qPrintable(o.rpc.toString(QUrl::RemoveUserInfo)));
        std::fflush(stdout);

        for (const indexer::CompletenessAlert& alert : target.openAlerts)
            if (alert.kind == QLatin1String("absence")) // its text says what settles it
                std::printf("open alert: %s\n", qPrintable(alert.summary()));
            else
                std::printf("open alert: %s (the indexer could not prove blocks %llu..%llu "
                            "complete; `forkscope repair --from %llu` fetches them again)\n",
                            qPrintable(alert.summary()),
                            static_cast<unsigned long long>(alert.fromBlock),
                            static_cast<unsigned long long>(alert.toBlock),
                            static_cast<unsigned long long>(
                                std::min(alert.fromBlock, target.checkpoint.number)));
        std::fflush(stdout);
        audit::StoredDataAuditor auditor(store->reader(), eth);
        audit::ReceiptsLogsProof receipts(eth);
        if (o.receipts)
            auditor.setProof(&receipts);
        if (registry)
            auditor.setAbi(&*registry);
        auditor.setBalanceOf(o.balanceOf);
        QElapsedTimer clock;
        clock.start();
        auditor.onChunk = [&](const audit::AuditResult& r, std::uint64_t checkedTo) {
            if (clock.elapsed() < 1000 || checkedTo >= range.to)
                return;
            std::printf("progress: blocks %llu..%llu of %llu..%llu checked, %s so far\n",
                        static_cast<unsigned long long>(range.from),
                        static_cast<unsigned long long>(checkedTo),
                        static_cast<unsigned long long>(range.from),
                        static_cast<unsigned long long>(range.to), qPrintable(holes(r.holeCount)));
            std::fflush(stdout);
            clock.restart();
        };
        const audit::AuditResult r = auditor.audit(target, range);
        printResult(r, o, target);
        if (r.clean())
            return ExitOk;
        if (r.holeCount > 0)
            printError(
                QStringLiteral("verify: %1 in environment %2, the first at block "
                               "%3%4 (listed above)")
                    .arg(holes(r.holeCount))
                    .arg(r.environmentId)
                    .arg(*r.firstHole())
                    .arg(r.balanceFindingCount > 0
                             ? QStringLiteral(", and %1").arg(wrongBalances(r.balanceFindingCount))
                             : QString()));
        else if (r.balanceFindingCount > 0)
            printError(QStringLiteral("verify: %1 in environment %2 (listed above)")
                           .arg(wrongBalances(r.balanceFindingCount))
                           .arg(r.environmentId));
        else
            printError(QStringLiteral("verify: environment %1 is reorged at block %2: run "
                                      "`forkscope index` to roll back, then verify again")
                           .arg(r.environmentId)
                           .arg(*r.reorgedAt));
        return ExitFailure;
    } catch (const audit::AuditError& e) {
        printError(QStringLiteral("verify: ") + e.message());
    } catch (const store::StoreError& e) {
        printError(e.message());
    } catch (const chain::ChainParseError& e) {
        printError(QStringLiteral("bad data in the database: %1").arg(e.message()));
    } catch (const rpc::RpcException& e) {
        printError(QStringLiteral("verify: node %1 did not answer: %2")
                       .arg(o.rpc.toString(QUrl::RemoveUserInfo), e.error().toString()));
    }
    return ExitFailure;
}

} // namespace forkscope::app
