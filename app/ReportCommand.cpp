#include "ReportCommand.h"
#include "CommandLine.h"
#include "ReportPdf.h"
#include "chain/ChainParseError.h"
#include "config/SettingsValidation.h"
#include "report/ReportBuilder.h"
#include "report/ReportError.h"
#include "rpc/EthClient.h"
#include "store/Database.h"
#include "store/DatabaseFiles.h"
#include "store/ReadOnlyStore.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QSaveFile>
#include <cstdio>
#include <memory>

#include "forkscope_version.h"

namespace forkscope::app {

namespace {

// Per call: the report asks the node for a few headers, small replies.
constexpr std::chrono::milliseconds kReportNodeTimeout{5000};

struct ReportOptions
{
    QString db;
    QString env;
    QString format;
    QString out;
    QUrl rpc;
    bool verify = true;
};

// Parses without an application object (none exists yet); returns an error line or {}.
QString parse(const QStringList& arguments, ReportOptions& o, QString* help)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "Write one environment's checkpoint report: the environment, each checkpoint verified "
        "against the node now, the reorg history with its diffs, counts, chart series and the "
        "invariant verdict. Never writes to the database."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("report"), QStringLiteral("the subcommand"));
    const QCommandLineOption db(QStringLiteral("db"),
                                QStringLiteral("SQLite database file, or a postgresql:// URL."),
                                QStringLiteral("FILE|URL"));
    const QCommandLineOption env(QStringLiteral("env"),
                                 QStringLiteral("Environment id (default: the newest live one)."),
                                 QStringLiteral("ID"));
    const QCommandLineOption format(QStringLiteral("format"), QStringLiteral("json, csv or pdf."),
                                    QStringLiteral("FORMAT"));
    const QCommandLineOption out(QStringLiteral("out"),
                                 QStringLiteral("Output file (written whole or not at all)."),
                                 QStringLiteral("FILE"));
    const QCommandLineOption rpc(QStringLiteral("rpc"),
                                 QStringLiteral("Node to verify against (default: the "
                                                "environment's stored rpc_url)."),
                                 QStringLiteral("URL"));
    const QCommandLineOption noVerify(QStringLiteral("no-verify"),
                                      QStringLiteral("Do not ask any node: statuses are "
                                                     "\"not-checked\"."));
    for (const auto* opt : {&db, &env, &format, &out, &rpc, &noVerify})
        p.addOption(*opt);
    if (!p.parse(arguments))
        return QStringLiteral("report: ") + p.errorText();
    if (p.isSet(QStringLiteral("help"))) {
        *help = p.helpText();
        return {};
    }
    if (const QString repeated = repeatedOption(p, {&db, &env, &format, &out, &rpc});
        !repeated.isEmpty())
        return QStringLiteral("report: ") + repeated;
    if (p.positionalArguments().size() > 1)
        return QStringLiteral("report: unexpected argument `%1`")
            .arg(p.positionalArguments().at(1));
    for (const auto* required : {&db, &format, &out})
        if (!p.isSet(*required))
            return QStringLiteral("report: --%1 is required").arg(required->names().first());
    o.db = p.value(db);
    o.env = p.value(env).trimmed();
    if (p.isSet(env) && o.env.isEmpty())
        return QStringLiteral("report: --env: expected a non-empty id");
    o.format = p.value(format);
    if (o.format != QLatin1String("json") && o.format != QLatin1String("csv") &&
        o.format != QLatin1String("pdf"))
        return QStringLiteral("report: --format \"%1\" is not one of json, csv, pdf").arg(o.format);
    if (o.format == QLatin1String("pdf"))
        if (const QString why = pdfUnavailableReason(); !why.isEmpty())
            return QStringLiteral("report: ") + why;
    o.out = p.value(out);
    if (o.out.isEmpty())
        return QStringLiteral("report: --out: expected a file path");
    if (store::isDatabaseFile(o.out, o.db))
        return QStringLiteral("report: --out %1 is the database (or one of its files); writing "
                              "the report there would destroy it")
            .arg(o.out);
    o.verify = !p.isSet(noVerify);
    if (p.isSet(rpc)) {
        if (!o.verify)
            return QStringLiteral("report: choose --rpc or --no-verify, not both");
        const auto url = config::httpUrl(p.value(rpc));
        if (!url)
            return QStringLiteral("report: --rpc: ") + *config::validateEndpoint(p.value(rpc));
        o.rpc = *url;
    }
    return {};
}

// Fails before any work when the output cannot be created where asked; the final write
// goes through QSaveFile anyway, so a late failure leaves no partial file either.
QString checkOutput(const QString& path)
{
    const QFileInfo fi(path);
    if (fi.isDir())
        return QStringLiteral("cannot write --out %1: it is a directory; pass a file path")
            .arg(path);
    const QFileInfo dir(fi.absolutePath());
    if (!dir.exists() || !dir.isDir())
        return QStringLiteral("cannot write --out %1: directory %2 does not exist")
            .arg(path, fi.absolutePath());
    if (!dir.isWritable())
        return QStringLiteral("cannot write --out %1: directory %2 is not writable")
            .arg(path, fi.absolutePath());
    return {};
}

void writeWhole(const QString& path, const QByteArray& bytes)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit())
        throw report::ReportError(
            QStringLiteral("cannot write --out %1: %2").arg(path, f.errorString()));
}

void warn(const QString& message)
{
    printError(QStringLiteral("warning: ") + message);
}

// What reading a database in a place this process cannot write gives up, said once. The -wal
// is looked at with stat() only: opening it outside SQLite could drop SQLite's locks.
QString readOnlyPlaceWarning(const QString& db, store::Database::ReadOnlyPlace place)
{
    const QFileInfo wal(db + QStringLiteral("-wal"));
    const QString why = QStringLiteral("read-only filesystem or directory: SQLite cannot create "
                                       "%1-shm next to it")
                            .arg(db);
    if (place == store::Database::ReadOnlyPlace::WalWithoutLocks)
        return QStringLiteral("database %1 read without locks (%2); %3 (%4 bytes) was read with "
                              "it, but a process writing to the file during the export could "
                              "make the report inconsistent")
            .arg(db, why, wal.filePath())
            .arg(wal.size());
    const QString unread = wal.exists() && wal.size() > 0
                               ? QStringLiteral("; %1 (%2 bytes) could not be read, so commits "
                                                "not yet copied into the database file are "
                                                "missing")
                                     .arg(wal.filePath())
                                     .arg(wal.size())
                               : QString();
    return QStringLiteral("database %1 opened immutable (%2); a running indexer's last commits "
                          "may not be visible and its writes during the export could make the "
                          "report inconsistent%3")
        .arg(db, why, unread);
}

} // namespace

int runReportCommand(int& argc, char** argv, const QStringList& arguments)
{
    // The help names the executable only when an application object exists; the real one
    // waits for the format (a PDF needs a QApplication).
    std::unique_ptr<QCoreApplication> forHelp;
    for (const QString& a : arguments)
        if (!forHelp && (a == QLatin1String("--help") || a == QLatin1String("-h") ||
                         a == QLatin1String("--help-all")))
            forHelp = std::make_unique<QCoreApplication>(argc, argv);
    ReportOptions o;
    if (const auto exit = parseOrExit(arguments, o, parse))
        return *exit;
    forHelp.reset();

    // A PDF needs fonts and QCustomPlot (a widget), so a QApplication (see ReportPdf.h).
    const std::unique_ptr<QCoreApplication> app =
        o.format == QLatin1String("pdf") ? makePdfApplication(argc, argv)
                                         : std::make_unique<QCoreApplication>(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("forkscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(FORKSCOPE_VERSION));

    if (const QString error = checkOutput(o.out); !error.isEmpty()) {
        printError(error);
        return ExitFailure;
    }
    try {
        // Read-only: the report must not change a byte of the database (an older schema is
        // refused with a message instead of being migrated).
        // (a read-only filesystem is read all the same: see the warning).
        const std::unique_ptr<store::ReadOnlyStore> store = store::ReadOnlyStore::open(o.db, true);
        if (store->sqlite() &&
            store->sqlite()->readOnlyPlace() != store::Database::ReadOnlyPlace::No)
            warn(readOnlyPlaceWarning(o.db, store->sqlite()->readOnlyPlace()));
        store::ContractReader& reader = store->reader();
        QString envId = o.env;
        if (envId.isEmpty())
            envId = report::ReportBuilder::liveEnvironment(reader);
        const report::EnvironmentInfo env = report::ReportBuilder::findEnvironment(reader, envId);

        std::unique_ptr<rpc::JsonRpcClient> client;
        std::unique_ptr<rpc::EthClient> eth;
        if (o.verify) {
            const QUrl url = o.rpc.isEmpty() ? QUrl(env.rpcUrl) : o.rpc;
            client = std::make_unique<rpc::JsonRpcClient>(url);
            client->setTimeout(kReportNodeTimeout);
            eth = std::make_unique<rpc::EthClient>(*client);
        }
        const report::CheckpointReport r = report::ReportBuilder::build(reader, envId, eth.get());

        if (r.node.checked && !r.node.reachable)
            warn(QStringLiteral("node %1 is unreachable (%2); the report marks the checkpoints "
                                "\"unreachable\" and the invariants not checked")
                     .arg(r.node.url, r.node.error));
        else if (r.node.checked && !r.node.sameChain)
            warn(QStringLiteral("node %1 serves another chain than environment %2 (genesis %3, "
                                "not %4); invariants not checked")
                     .arg(r.node.url, env.id, r.node.genesisHash, env.genesisHash));

        if (o.format == QLatin1String("json"))
            writeWhole(o.out, r.toJson());
        else if (o.format == QLatin1String("csv"))
            writeWhole(o.out, r.toCsv());
        else
            writePdfReport(r, o.out);

        QStringList statuses;
        for (const auto& c : r.checkpoints)
            statuses << QStringLiteral("%1 %2 at %3")
                            .arg(c.sourceId, report::statusName(c.verification.status))
                            .arg(c.blockNumber);
        std::printf("report: wrote %s (%s) for environment %s%s: checkpoint %s; invariants %s\n",
                    qPrintable(o.out), qPrintable(o.format), qPrintable(env.id),
                    env.archived() ? " (archived)" : "",
                    statuses.isEmpty() ? "none" : qPrintable(statuses.join(QStringLiteral(", "))),
                    qPrintable(report::invariantStateName(r.invariants.state)));
        std::fflush(stdout);
        return ExitOk;
    } catch (const report::ReportError& e) {
        printError(e.message());
    } catch (const store::StoreError& e) {
        printError(e.message());
    } catch (const chain::ChainParseError& e) {
        printError(QStringLiteral("bad data in the database: %1").arg(e.message()));
    }
    return ExitFailure;
}

} // namespace forkscope::app
