#pragma once

#include <QCommandLineParser>
#include <QList>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <cstdio>
#include <optional>

namespace forkscope::app {

// Exit codes shared by every subcommand.
enum ExitCode { ExitOk = 0, ExitFailure = 1, ExitUsage = 2 };

// Prints "forkscope: <message>" on stderr as the one clear line a failing command leaves.
void printError(const QString& message);

// Subcommands of docs/cli.md. Returns the subcommand name (empty for the GUI) found among
// the arguments, i.e. the first argument that does not start with '-'.
QString findSubcommand(const QStringList& arguments);

// "--NAME given N times (a, b); give it once" for the first of `options` set more than once,
// else empty: QCommandLineParser would silently keep one of the values.
QString repeatedOption(const QCommandLineParser& parser,
                       const QList<const QCommandLineOption*>& options);

// A block number given as `flag`: a whole decimal number from 0 to 2^62 (stored block numbers
// are SQLite's signed INTEGER, and numbers derived from it must fit too). Throws
// chain::ChainParseError naming the flag and what was wrong.
std::uint64_t blockNumberValue(const QString& flag, const QString& text);

// A TCP port given as `flag`: a whole decimal number from 1 to 65535. Throws
// chain::ChainParseError naming the flag and what was wrong.
quint16 portValue(const QString& flag, const QString& text);

// The start every subcommand shares: `parse(arguments, options, &help)` returns a usage error
// (said in one line, exit 2) or fills `help` (printed, exit 0). nullopt: go on.
// (A function pointer, not a deduced callable: each command's `parse` is an overload of the
// others' in a unity build, picked here by its options type.)
template <typename Options>
std::optional<int> parseOrExit(const QStringList& arguments, Options& options,
                               QString (*parse)(const QStringList&, Options&, QString*))
{
    QString help;
    if (const QString error = parse(arguments, options, &help); !error.isEmpty()) {
        printError(error);
        return ExitUsage;
    }
    if (!help.isEmpty()) {
        std::fputs(qPrintable(help), stdout);
        return ExitOk;
    }
    return std::nullopt;
}

} // namespace forkscope::app
