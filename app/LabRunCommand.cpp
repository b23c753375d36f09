#include "LabRunCommand.h"

#include "AuditQueryFlags.h"
#include "CommandLine.h"
#include "ReportPdf.h"
#include "UnixSignalWatcher.h"
#include "foreign/AuditQueryChoice.h"
#include "lab/DevnetError.h"
#include "lab/ForeignIndexer.h"
#include "lab/PgLab.h"
#include "lab/run/LabRun.h"
#include "lab/run/LabRunInput.h"
#include "report/ReportError.h"

#include <QSaveFile>
#include <cstdio>

namespace forkscope::app {

namespace {

struct LabRunFlags
{
    QCommandLineOption indexer{QStringLiteral("indexer"),
                               QStringLiteral("The command that starts the indexer. It gets the "
                                              "node in FORKSCOPE_RPC and {rpc}, the contracts, "
                                              "the database URL (see docs/lab-run.md)."),
                               QStringLiteral("COMMAND")};
    QCommandLineOption scenario{
        QStringLiteral("scenario"),
        QStringLiteral("One of: %1.").arg(lab::labScenarioNames().join(QStringLiteral(", "))),
        QStringLiteral("NAME")};
    QCommandLineOption seed{QStringLiteral("seed"),
                            QStringLiteral("The scenario's seed (default 1): the same seed plays "
                                           "the same steps."),
                            QStringLiteral("N")};
    QCommandLineOption database{QStringLiteral("database"),
                                QStringLiteral("Where the indexer stores (DATABASE_URL): a "
                                               "postgresql:// URL or a SQLite file. Default: a "
                                               "throwaway PostgreSQL cluster."),
                                QStringLiteral("URL|FILE")};
    QCommandLineOption confirmations{QStringLiteral("confirmations"),
                                     QStringLiteral("Blocks the indexer waits before storing "
                                                    "one (default 0): it has caught up at the "
                                                    "head minus these."),
                                     QStringLiteral("N")};
    QCommandLineOption timeout{QStringLiteral("catch-up-timeout-ms"),
                               QStringLiteral("How long to wait for the indexer to catch up "
                                              "before each audit (default 120000)."),
                               QStringLiteral("MS")};
    QCommandLineOption receipts{QStringLiteral("receipts"),
                                QStringLiteral("Audit with the receipts-root proof too.")};
    QCommandLineOption json{QStringLiteral("json"),
                            QStringLiteral("Write the timeline, the audits and the verdict as "
                                           "JSON to FILE."),
                            QStringLiteral("FILE")};
    QCommandLineOption junit{QStringLiteral("junit"),
                             QStringLiteral("Write JUnit XML (one testcase per audit) to FILE."),
                             QStringLiteral("FILE")};
    QCommandLineOption pdf{QStringLiteral("pdf"),
                           QStringLiteral("Write the verdict, the audits, the first findings "
                                          "and the timeline as a PDF to FILE."),
                           QStringLiteral("FILE")};
    AuditQueryFlags audit;
};

bool writeFile(const QString& path, const QByteArray& doc)
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(doc) != doc.size() || !f.commit()) {
        printError(QStringLiteral("lab run: cannot write %1: %2").arg(path, f.errorString()));
        return false;
    }
    return true;
}

// The options, or an error line (without the command's name) in `error`.
lab::LabRun::Options parse(const QCommandLineParser& p, const LabRunFlags& f, QString* error)
{
    lab::LabRun::Options o;
    if (const QString repeated = repeatedOption(
            p, {&f.indexer, &f.scenario, &f.seed, &f.database, &f.confirmations, &f.timeout,
                &f.json, &f.junit, &f.pdf, &f.audit.query, &f.audit.preset, &f.audit.table});
        !repeated.isEmpty()) {
        *error = repeated;
        return o;
    }
    lab::LabRunInput in;
    const auto given = [&p](const QCommandLineOption& o) {
        return p.isSet(o) ? std::optional(p.value(o)) : std::nullopt;
    };
    in.indexer = given(f.indexer);
    in.scenario = given(f.scenario);
    in.seed = given(f.seed);
    in.confirmations = given(f.confirmations);
    in.catchUpTimeoutMs = given(f.timeout);
    const foreign::AuditQueryChoice query = f.audit.choice(p);
    in.query = query.query;
    in.preset = query.preset;
    in.table = query.table;
    in.database = given(f.database);
    in.receipts = p.isSet(f.receipts);
    const std::optional<lab::LabRunSpec> spec = in.check(error);
    if (!spec)
        return o;
    static_cast<lab::LabRunSpec&>(o) = *spec;
    if (p.isSet(f.pdf) && !pdfUnavailableReason().isEmpty()) {
        *error = QStringLiteral("--pdf: ") + pdfUnavailableReason();
        return o;
    }
    return o;
}

} // namespace

int runLabRunCommand(const QStringList& arguments)
{
    QCommandLineParser p;
    p.setApplicationDescription(QStringLiteral(
        "lab run: start another indexer against the lab's anvil (behind a fault proxy), put it "
        "through a seeded scenario of reorgs and faults, and audit its table against the chain "
        "after each step."));
    p.addHelpOption();
    p.addPositionalArgument(QStringLiteral("lab"), QStringLiteral("the command"));
    p.addPositionalArgument(QStringLiteral("run"), QStringLiteral("the lab action"));
    const LabRunFlags f;
    for (const QCommandLineOption* o :
         {&f.indexer, &f.scenario, &f.seed, &f.database, &f.confirmations, &f.timeout, &f.receipts,
          &f.json, &f.junit, &f.pdf})
        p.addOption(*o);
    f.audit.addTo(p);
    if (!p.parse(arguments)) {
        printError(QStringLiteral("lab run: ") + p.errorText());
        return ExitUsage;
    }
    if (p.isSet(QStringLiteral("help"))) {
        std::fputs(qPrintable(p.helpText()), stdout);
        return ExitOk;
    }
    if (p.positionalArguments().size() > 2) {
        printError(
            QStringLiteral("lab run: unexpected argument `%1`").arg(p.positionalArguments().at(2)));
        return ExitUsage;
    }
    QString error;
    lab::LabRun::Options o = parse(p, f, &error);
    if (!error.isEmpty()) {
        printError(QStringLiteral("lab run: ") + error);
        return ExitUsage;
    }
    UnixSignalWatcher watcher;
    o.stopRequested = [] { return UnixSignalWatcher::requested(); };
    o.onProgress = [](const lab::LabRunProgress& progress) {
        if (!progress.event)
            return;
        std::printf("%s\n", qPrintable(lab::labRunEventLine(*progress.event)));
        std::fflush(stdout);
    };
    lab::LabRunResult r;
    try {
        lab::LabRun run(o);
        r = run.run();
    } catch (const lab::DevnetError& e) {
        printError(QStringLiteral("lab run: the lab could not start: ") + e.message());
        return ExitUsage;
    } catch (const lab::PgLabError& e) {
        printError(QStringLiteral("lab run: the lab could not start: ") + e.message());
        return ExitUsage;
    } catch (const lab::ForeignIndexerError& e) {
        printError(QStringLiteral("lab run: ") + e.message());
        return ExitUsage;
    }
    std::fputs(qPrintable(lab::labRunText(r, false)), stdout);
    std::fflush(stdout);
    if (p.isSet(f.json) && !writeFile(p.value(f.json), lab::labRunJson(r)))
        return ExitUsage;
    if (p.isSet(f.junit) && !writeFile(p.value(f.junit), lab::labRunJunit(r)))
        return ExitUsage;
    if (p.isSet(f.pdf)) {
        try {
            writeLabRunPdf(r, p.value(f.pdf));
        } catch (const report::ReportError& e) {
            printError(QStringLiteral("lab run: ") + e.message());
            return ExitUsage;
        }
    }
    return r.passed() ? ExitOk : ExitFailure;
}

} // namespace forkscope::app
