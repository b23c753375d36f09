#pragma once

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QString>

namespace forkscope::foreign {
struct AuditQueryChoice;
}

namespace forkscope::app {

// --query, --preset and --table: how `forkscope audit` and `forkscope lab run` are told
// which rows of another indexer's database to audit.
struct AuditQueryFlags
{
    QCommandLineOption query{QStringLiteral("query"),
                             QStringLiteral("SQL yielding one row per Transfer: block_number, "
                                            "log_index (or tx_hash and tx_position), contract, "
                                            "and any of from, to, value, tx_hash, block_hash, "
                                            "id (see docs/audit.md)."),
                             QStringLiteral("SQL")};
    QCommandLineOption preset{QStringLiteral("preset"),
                              QStringLiteral("The query of a known indexer's Transfer table: "
                                             "ponder or subsquid."),
                              QStringLiteral("NAME")};
    QCommandLineOption table{QStringLiteral("table"),
                             QStringLiteral("With --preset: the table's name (default "
                                            "transfer_event for ponder, transfer for "
                                            "subsquid; schema.table allowed)."),
                             QStringLiteral("NAME")};

    void addTo(QCommandLineParser& p) const;
    // The flags as given (foreign::resolveAuditQuery checks them).
    foreign::AuditQueryChoice choice(const QCommandLineParser& p) const;
    // The query the flags give, or empty with `error` set to what was wrong (one line,
    // without the command's name).
    QString resolve(const QCommandLineParser& p, QString* error) const;
};

} // namespace forkscope::app
