#include "AuditCommand.h"
#include "AuditQueryFlags.h"
#include "CommandLine.h"
#include "audit/AuditError.h"
#include "audit/ReceiptsLogsProof.h"
#include "chain/ChainParseError.h"
#include "config/SettingsValidation.h"
#include "foreign/ForeignAuditor.h"
#include "foreign/ForeignError.h"
#include "foreign/ForeignPreset.h"
#include "foreign/ForeignReport.h"
#include "foreign/ForeignTable.h"
#include "rpc/EthClient.h"
#include "store/StoreError.h"
#include "text/Count.h"
#include "wire/FactorySource.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QSaveFile>
#include <cstdio>

namespace forkscope::app {

namespace {

constexpr std::chrono::milliseconds kAuditNodeTimeout{10000};

enum class Format { Text, Json, Junit };

struct AuditOptions
{
    QString target;
    QString query;
    QString balancesQuery;
    QUrl rpc;
    QList<chain::Address> contracts;
    std::optional<wire::FactorySource> factory;
    std::optional<std::uint64_t> from;
    std::optional<std::uint64_t> to;
    std::uint64_t confirmations = 0;
    bool receipts = false;
    Format format = Format::Text;
    QString out;
};

// The node, the contracts, the range and the output.
QString readValues(const QCommandLineParser& p, AuditOptions& o)
{
    const QString cmd = QStringLiteral("audit: ");
    const auto url = config::httpUrl(p.value(QStringLiteral("rpc")));
    if (!url)
        return cmd + QStringLiteral("--rpc: ") +
               *config::validateEndpoint(p.value(QStringLiteral("rpc")));
    o.rpc = *url;
    try {
        for (const QString& a : p.values(QStringLiteral("contract"))) {
            const auto address =
                chain::Address::fromHex(a.trimmed().toLower(), QStringLiteral("--contract"));
            if (!o.contracts.contains(address))
                o.contracts.append(address);
        }
        const bool factory = p.isSet(QStringLiteral("factory"));
        if (factory != p.isSet(QStringLiteral("factory-event")) ||
            factory != p.isSet(QStringLiteral("child-arg")))
            return cmd + QStringLiteral("--factory, --factory-event and --child-arg go together");
        if (factory)
            o.factory = wire::FactorySource::resolve(
                chain::Address::fromHex(p.value(QStringLiteral("factory")).trimmed().toLower(),
                                        QStringLiteral("--factory")),
                p.value(QStringLiteral("factory-event")), p.value(QStringLiteral("child-arg")),
                nullptr);
        if (p.isSet(QStringLiteral("from-block")))
            o.from = blockNumberValue(QStringLiteral("--from-block"),
                                      p.value(QStringLiteral("from-block")));
        if (p.isSet(QStringLiteral("to-block")))
            o.to =
                blockNumberValue(QStringLiteral("--to-block"), p.value(QStringLiteral("to-block")));
        if (p.isSet(QStringLiteral("confirmations")))
            o.confirmations = blockNumberValue(QStringLiteral("--confirmations"),
                                               p.value(QStringLiteral("confirmations")));
    } catch (const chain::ChainParseError& e) {
        return cmd + e.message();
    } catch (const wire::FactorySourceError& e) {
        return cmd + e.message();
    }
    if (o.from && o.to && *o.from > *o.to)
        return cmd +
               QStringLiteral("--from-block %1 is above --to-block %2").arg(*o.from).arg(*o.to);
    o.receipts = p.isSet(QStringLiteral("receipts"));
    if (p.isSet(QStringLiteral("balances-query"))) {
        o.balancesQuery = p.value(QStringLiteral("balances-query")).trimmed();
        if (o.balancesQuery.isEmpty())
            return cmd + QStringLiteral("--balances-query: expected a SQL query");
    }
    const QString f = p.isSet(QStringLiteral("format")) ? p.value(QStringLiteral("format"))
                                                        : QStringLiteral("text");
    if (f == QLatin1String("text"))
        o.format = Format::Text;
    else if (f == QLatin1String("json"))
        o.format = Format::Json;
    else if (f == QLatin1String("junit"))
        o.format = Format::Junit;
    else
        return cmd + QStringLiteral("--format: `%1` is none of text, json, junit").arg(f);
    if (p.isSet(QStringLiteral("out"))) {
        o.out = p.value(QStringLiteral("out"));
        if (o.out.isEmpty() || o.format == Format::Text)
            return cmd + QStringLiteral("--out: expected a file, with --format json or junit");
    }
    return {};
}

QString parse(const QStringList& arguments, AuditOptions& o, QString* help)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Audit another indexer's ERC-20 Transfer table against a node: every row against the "
        "canonical chain's Transfer at its block and log index, the node's answers proven by "
        "linked headers and each block's logsBloom (with --receipts, its receipts root). "
        "Reports missing, extra, duplicated, altered and orphaned rows; exit 1 on any. Never "
        "writes to the target."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("audit"), QStringLiteral("the subcommand"));
    const QCommandLineOption target(
        QStringLiteral("target"),
        QStringLiteral("The indexer's SQLite file (opened read-only), or a postgresql:// URL "
                       "(read in a READ ONLY transaction)."),
        QStringLiteral("FILE|URL"));
    const AuditQueryFlags queryFlags;
    const QCommandLineOption rpc(QStringLiteral("rpc"),
                                 QStringLiteral("The node to audit against (http or https)."),
                                 QStringLiteral("URL"));
    const QCommandLineOption contract(QStringLiteral("contract"),
                                      QStringLiteral("A token contract to audit (repeatable)."),
                                      QStringLiteral("ADDR"));
    const QCommandLineOption factory(
        QStringLiteral("factory"),
        QStringLiteral("A factory whose children are audited too, each from its creation event "
                       "(with --factory-event and --child-arg)."),
        QStringLiteral("ADDR"));
    const QCommandLineOption factoryEvent(
        QStringLiteral("factory-event"),
        QStringLiteral("The factory's creation event, as a full signature, e.g. "
                       "\"PairCreated(address indexed token0, address indexed token1, address "
                       "pair, uint256)\"."),
        QStringLiteral("SIGNATURE"));
    const QCommandLineOption childArg(
        QStringLiteral("child-arg"),
        QStringLiteral("The creation event's argument that holds the child's address."),
        QStringLiteral("NAME"));
    const QCommandLineOption from(
        QStringLiteral("from-block"),
        QStringLiteral("First block to audit (default: the table's lowest block)."),
        QStringLiteral("N"));
    const QCommandLineOption to(
        QStringLiteral("to-block"),
        QStringLiteral("Last block to audit (default: the table's highest block, at most the "
                       "node's head minus --confirmations)."),
        QStringLiteral("M"));
    const QCommandLineOption confirmations(
        QStringLiteral("confirmations"),
        QStringLiteral("Blocks below the node's head the audit stays (default 0)."),
        QStringLiteral("N"));
    const QCommandLineOption receipts(
        QStringLiteral("receipts"),
        QStringLiteral("Also prove every block with rows or Transfers by its receipts root."));
    const QCommandLineOption balances(
        QStringLiteral("balances-query"),
        QStringLiteral("SQL yielding holder balances (contract, holder, balance), checked "
                       "against the sum of the node's Transfers up to the last block audited."),
        QStringLiteral("SQL"));
    const QCommandLineOption format(QStringLiteral("format"),
                                    QStringLiteral("text (default), json or junit."),
                                    QStringLiteral("FORMAT"));
    const QCommandLineOption out(QStringLiteral("out"),
                                 QStringLiteral("Write the json or junit output to FILE "
                                                "(default: standard output)."),
                                 QStringLiteral("FILE"));
    for (const auto* opt : {&target, &rpc, &contract, &factory, &factoryEvent, &childArg, &from,
                            &to, &confirmations, &receipts, &balances, &format, &out})
        p.addOption(*opt);
    queryFlags.addTo(p);
    const QString cmd = QStringLiteral("audit: ");
    if (!p.parse(arguments))
        return cmd + p.errorText();
    if (p.isSet(QStringLiteral("help"))) {
        *help = p.helpText();
        return {};
    }
    if (const QString repeated = repeatedOption(
            p, {&target, &queryFlags.query, &queryFlags.preset, &queryFlags.table, &rpc, &factory,
                &factoryEvent, &childArg, &from, &to, &confirmations, &balances, &format, &out});
        !repeated.isEmpty())
        return cmd + repeated;
    if (p.positionalArguments().size() > 1)
        return cmd + QStringLiteral("unexpected argument `%1`").arg(p.positionalArguments().at(1));
    for (const auto* required : {&target, &rpc})
        if (!p.isSet(*required))
            return cmd + QStringLiteral("--%1 is required").arg(required->names().first());
    if (!p.isSet(contract) && !p.isSet(factory))
        return cmd + QStringLiteral("--contract or --factory is required");
    o.target = p.value(target);
    if (o.target.isEmpty())
        return cmd + QStringLiteral("--target: expected a SQLite file or a postgresql:// URL");
    QString error;
    o.query = queryFlags.resolve(p, &error);
    if (!error.isEmpty())
        return cmd + error;
    return readValues(p, o);
}

QString count(qint64 n, const char* one, const char* many)
{
    return text::count(n, QString::fromLatin1(one), QString::fromLatin1(many));
}

void printText(const foreign::ForeignAuditResult& r, bool balances)
{
    if (!r.factory.isEmpty())
        std::printf("checked: %s of factory %s, from its creation events up to block %llu (those "
                    "in the range against their headers)\n",
                    qPrintable(count(r.children, "child", "children")), qPrintable(r.factory),
                    static_cast<unsigned long long>(r.to));
    std::printf("checked: %lld blocks (headers linked by parentHash), %s (%lld of other "
                "contracts, left alone)\n",
                static_cast<long long>(r.blocksChecked),
                qPrintable(count(r.rowsRead, "row", "rows")),
                static_cast<long long>(r.rowsOfOtherContracts));
    std::printf(
        "checked: %s on the node in %lld blocks (%s, %s read whole by hash, the bloom "
        "recomputed)\n",
        qPrintable(count(r.nodeTransfers, "Transfer", "Transfers")),
        static_cast<long long>(r.blocksWithTransfers),
        qPrintable(count(r.getLogsCalls, "eth_getLogs range call", "eth_getLogs range calls")),
        qPrintable(count(r.byHashFetches, "block", "blocks")));
    std::printf(
        "checked: blooms admitting a contract's Transfer with nothing found: %lld, of "
        "which %s\n",
        static_cast<long long>(r.bloomSuspects),
        qPrintable(count(r.bloomFalsePositives, "bloom false positive", "bloom false positives")));
    if (!r.proofName.isEmpty())
        std::printf("checked: %lld blocks' logs against their %s\n",
                    static_cast<long long>(r.provenBlocks), qPrintable(r.proofName));
    std::printf("checked: per row: block, log index%s%s\n", r.compared.isEmpty() ? "" : ", ",
                qPrintable(r.compared.join(QStringLiteral(", "))));
    if (balances)
        std::printf("checked: %s against the node's Transfers up to block %llu\n",
                    qPrintable(count(r.balancesChecked, "balance", "balances")),
                    static_cast<unsigned long long>(r.to));
    if (r.rowsAboveTo)
        std::printf("not audited: rows above block %llu (the node's head minus the "
                    "confirmations)\n",
                    static_cast<unsigned long long>(*r.rowsAboveTo));
    for (const foreign::ForeignFinding& f : r.findings)
        std::printf("%s %s\n", qPrintable(foreign::kindName(f.kind).toUpper()),
                    qPrintable(f.describe()));
    if (r.findingCount() > r.findings.size())
        std::printf("... and %lld more findings\n",
                    static_cast<long long>(r.findingCount() - r.findings.size()));
    if (r.clean()) {
        std::printf("verdict: clean: blocks %llu..%llu hold a row for every Transfer of the "
                    "contracts, and nothing else\n",
                    static_cast<unsigned long long>(r.from), static_cast<unsigned long long>(r.to));
    } else {
        QStringList parts;
        for (int k = 0; k < foreign::ForeignFinding::kKinds; ++k)
            if (const qint64 n = r.counts[std::size_t(k)]; n > 0)
                parts << QStringLiteral("%1 %2").arg(n).arg(
                    foreign::kindName(foreign::ForeignFinding::Kind(k)));
        std::printf("verdict: %s: %s\n", qPrintable(count(r.findingCount(), "finding", "findings")),
                    qPrintable(parts.join(QStringLiteral(", "))));
    }
    std::fflush(stdout);
}

// The json or junit document, to --out or standard output. False (and the line said)
// when the file cannot be written.
bool writeDocument(const AuditOptions& o, const QByteArray& doc)
{
    if (o.out.isEmpty()) {
        std::fwrite(doc.constData(), 1, std::size_t(doc.size()), stdout);
        std::fflush(stdout);
        return true;
    }
    QSaveFile f(o.out);
    if (!f.open(QIODevice::WriteOnly) || f.write(doc) != doc.size() || !f.commit()) {
        printError(QStringLiteral("audit: --out %1: %2").arg(o.out, f.errorString()));
        return false;
    }
    return true;
}

} // namespace

int runAuditCommand(const QStringList& arguments)
{
    AuditOptions o;
    if (const auto exit = parseOrExit(arguments, o, parse))
        return *exit;
    try {
        const std::unique_ptr<foreign::ForeignTable> table = foreign::ForeignTable::open(o.target);
        rpc::JsonRpcClient client(o.rpc);
        client.setTimeout(kAuditNodeTimeout);
        rpc::EthClient eth(client);
        std::optional<chain::BlockHeader> head;
        try {
            head = eth.latestBlock();
        } catch (const rpc::RpcException& e) {
            printError(QStringLiteral("audit: node %1 did not answer: %2; nothing was audited")
                           .arg(eth.endpointText(), e.error().toString()));
            return ExitUsage;
        }
        if (!head) {
            printError(QStringLiteral("audit: node %1 has no latest block; nothing was audited")
                           .arg(eth.endpointText()));
            return ExitUsage;
        }
        const foreign::ForeignRange range = foreign::ForeignAuditor::resolveRange(
            *table, o.query, o.from, o.to, head->number, o.confirmations);
        if (o.format == Format::Text) {
            QStringList contracts;
            for (const auto& c : o.contracts)
                contracts << c.toHex();
            if (o.factory)
                contracts << QStringLiteral("the children of factory %1")
                                 .arg(o.factory->factory().toHex());
            std::printf("audit: %s, blocks %llu..%llu, contracts %s, against %s\n",
                        qPrintable(table->describe()), static_cast<unsigned long long>(range.from),
                        static_cast<unsigned long long>(range.to),
                        qPrintable(contracts.join(QStringLiteral(", "))),
                        qPrintable(eth.endpointText()));
            std::fflush(stdout);
        }
        foreign::ForeignAuditor auditor(*table, eth, o.contracts);
        if (o.factory)
            auditor.setFactory(*o.factory);
        audit::ReceiptsLogsProof receipts(eth);
        if (o.receipts)
            auditor.setProof(&receipts);
        QElapsedTimer clock;
        clock.start();
        if (o.format == Format::Text)
            auditor.onChunk = [&](const foreign::ForeignAuditResult& r, std::uint64_t done) {
                if (clock.elapsed() < 1000 || done >= range.to)
                    return;
                std::printf("progress: blocks %llu..%llu of %llu..%llu audited, %lld findings "
                            "so far\n",
                            static_cast<unsigned long long>(range.from),
                            static_cast<unsigned long long>(done),
                            static_cast<unsigned long long>(range.from),
                            static_cast<unsigned long long>(range.to),
                            static_cast<long long>(r.findingCount()));
                std::fflush(stdout);
                clock.restart();
            };
        foreign::ForeignAuditResult r = auditor.audit(o.query, range, !o.balancesQuery.isEmpty());
        if (!o.balancesQuery.isEmpty())
            auditor.checkBalances(o.balancesQuery, r);
        if (o.format == Format::Text)
            printText(r, !o.balancesQuery.isEmpty());
        else if (!writeDocument(o, o.format == Format::Json ? foreign::auditJson(r)
                                                            : foreign::auditJunit(r)))
            return ExitUsage;
        if (r.clean())
            return ExitOk;
        printError(QStringLiteral("audit: %1 in blocks %2..%3 of %4")
                       .arg(count(r.findingCount(), "finding", "findings"))
                       .arg(r.from)
                       .arg(r.to)
                       .arg(r.target));
        return ExitFailure;
    } catch (const foreign::ForeignError& e) {
        printError(QStringLiteral("audit: ") + e.message());
    } catch (const audit::AuditError& e) {
        printError(QStringLiteral("audit: ") + e.message());
    } catch (const rpc::RpcException& e) {
        printError(QStringLiteral("audit: node %1 did not answer: %2")
                       .arg(o.rpc.toString(QUrl::RemoveUserInfo), e.error().toString()));
    } catch (const store::StoreError& e) {
        printError(QStringLiteral("audit: ") + e.message());
    }
    return ExitUsage;
}

} // namespace forkscope::app
