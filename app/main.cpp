// forkscope: the desktop app by default, or a headless subcommand (see docs/cli.md).
#include "ArchiveCommand.h"
#include "AuditCommand.h"
#include "CommandLine.h"
#include "DevnetCommand.h"
#include "GuiApp.h"
#include "IndexCommand.h"
#include "LabCommand.h"
#include "PgLabCommand.h"
#include "RepairCommand.h"
#include "ReportCommand.h"
#include "ReportPdf.h"
#include "VerifyCommand.h"

#include <QCoreApplication>
#include <cstdio>

#include "forkscope_version.h"

using namespace forkscope::app;

namespace {

const char* kUsage =
    "Usage: forkscope [--db FILE|URL] [--rpc URL] [--env ID] the desktop app\n"
    "       forkscope index --rpc URL --db FILE|URL --env ID --contract ADDR ...\n"
    "       forkscope report --db FILE|URL [--env ID] --format json|csv|pdf --out FILE [--rpc "
    "URL]\n"
    "       forkscope lab reset --db FILE|URL --rpc URL [--env NEW_ID] [--archive ID]\n"
    "       forkscope lab run --indexer COMMAND --scenario NAME --query SQL|--preset NAME\n"
    "       forkscope devnet [--port P] [--nodes N]\n"
    "       forkscope pg-lab [--port P]\n"
    "       forkscope verify --db FILE|URL --env ID --rpc URL [--from N] [--to M] [--receipts]\n"
    "                        [--abi FILE] [--balance-of]\n"
    "       forkscope repair --db FILE|URL --env ID --rpc URL --from N [--abi FILE]\n"
    "       forkscope archive-contract --db FILE|URL --env ID --contract ADDR [--abi FILE]\n"
    "       forkscope audit --target FILE|URL (--query SQL | --preset ponder|subsquid)\n"
    "                       --rpc URL --contract ADDR ... [--format text|json|junit]\n"
    "\n"
    "Forkscope: a desktop monitor and local lab indexer for EVM chains.\n"
    "Run `forkscope <command> --help` for the options of one command.\n"
    "\n"
    "Options:\n"
    "  -h, --help     Show this help.\n"
    "  -v, --version  Show the version.\n"
    "  --db FILE|URL  (app) SQLite file (default: the user's data directory), or the\n"
    "                 postgresql:// URL of a PostgreSQL database.\n"
    "  --rpc URL      (app) watch this endpoint instead of a managed anvil.\n"
    "  --env ID       (app) index into this environment (default: \"default\" for --rpc).\n";

bool hasTopLevelFlag(int argc, char** argv, const char* a, const char* b)
{
    for (int i = 1; i < argc; ++i) {
        if (argv[i][0] != '-')
            return false; // a subcommand: its own parser handles its flags
        if (qstrcmp(argv[i], a) == 0 || qstrcmp(argv[i], b) == 0)
            return true;
    }
    return false;
}

} // namespace

int main(int argc, char** argv)
{
    // --help and --version must work without a display, so answer them before any
    // QApplication exists.
    if (hasTopLevelFlag(argc, argv, "--version", "-v")) {
        std::printf("forkscope %s\n", FORKSCOPE_VERSION);
        return ExitOk;
    }
    if (hasTopLevelFlag(argc, argv, "--help", "-h")) {
        std::fputs(kUsage, stdout);
        return ExitOk;
    }

    QStringList args;
    for (int i = 0; i < argc; ++i)
        args << QString::fromLocal8Bit(argv[i]);
    const QString command = findSubcommand(args);
    if (command.isEmpty())
        return runGui(argc, argv);
    // The report picks its own application object (a PDF needs a QApplication).
    if (command == QLatin1String("report"))
        return runReportCommand(argc, argv, args);

    // A lab run's PDF needs fonts, as the report's does.
    const bool labPdf = command == QLatin1String("lab") && args.contains(QStringLiteral("--pdf")) &&
                        pdfUnavailableReason().isEmpty();
    const std::unique_ptr<QCoreApplication> app =
        labPdf ? makePdfApplication(argc, argv) : std::make_unique<QCoreApplication>(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("forkscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(FORKSCOPE_VERSION));
    if (command == QLatin1String("devnet"))
        return runDevnetCommand(args);
    if (command == QLatin1String("pg-lab"))
        return runPgLabCommand(args);
    if (command == QLatin1String("index"))
        return runIndexCommand(args);
    if (command == QLatin1String("lab"))
        return runLabCommand(args);
    if (command == QLatin1String("verify"))
        return runVerifyCommand(args);
    if (command == QLatin1String("repair"))
        return runRepairCommand(args);
    if (command == QLatin1String("archive-contract"))
        return runArchiveCommand(args);
    if (command == QLatin1String("audit"))
        return runAuditCommand(args);
    printError(QStringLiteral("unknown command `%1`; see `forkscope --help`").arg(command));
    return ExitUsage;
}
