#pragma once

#include "LabRunSpec.h"

#include <QString>
#include <optional>

namespace forkscope::lab {

// What error lines call each field of a LabRunInput: the flags' names, or the dialog's
// labels.
struct LabRunFieldNames
{
    QString indexer = QStringLiteral("--indexer");
    QString scenario = QStringLiteral("--scenario");
    QString seed = QStringLiteral("--seed");
    QString confirmations = QStringLiteral("--confirmations");
    QString catchUpTimeoutMs = QStringLiteral("--catch-up-timeout-ms");
    QString query = QStringLiteral("--query");
    QString preset = QStringLiteral("--preset");
    QString table = QStringLiteral("--table");
};

// What a user gave to start a lab run, as text: `forkscope lab run`'s flags or the fields
// of the app's Run lab scenario dialog. nullopt: not given. One set of rules for both.
struct LabRunInput
{
    std::optional<QString> indexer;
    std::optional<QString> scenario;
    std::optional<QString> seed;
    std::optional<QString> confirmations;
    std::optional<QString> catchUpTimeoutMs;
    std::optional<QString> query;
    std::optional<QString> preset;
    std::optional<QString> table;
    std::optional<QString> database;
    bool receipts = false;

    using FieldNames = LabRunFieldNames;

    // The spec, or nullopt with `error` set to one line naming what was wrong.
    std::optional<LabRunSpec> check(QString* error, const FieldNames& names = {}) const;
};

} // namespace forkscope::lab
