#pragma once

#include <QString>
#include <QStringList>

namespace forkscope::app {

// Exit codes shared by every subcommand.
enum ExitCode { ExitOk = 0, ExitFailure = 1, ExitUsage = 2 };

// Prints "forkscope: <message>" on stderr as the one clear line a failing command leaves.
void printError(const QString& message);

// Subcommands of DESIGN.md. Returns the subcommand name (empty for the GUI) found among
// the arguments, i.e. the first argument that does not start with '-'.
QString findSubcommand(const QStringList& arguments);

} // namespace forkscope::app
