#pragma once

#include <QMetaType>
#include <QString>
#include <QStringList>
#include <cstdint>

namespace forkscope::foreign {

// What "Watch another indexer..." asks the engine to watch: the inputs of `forkscope audit`
// (docs/audit.md) without the node, which is the lab's. A value, checked by
// validateWatchSpec before anything runs.
struct ForeignWatchSpec
{
    QString target; // a SQLite file or a postgresql:// URL
    QString preset; // "ponder" or "subsquid", or empty with a query
    QString table;  // with a preset: its table when not the default
    QString query;  // without a preset: the audit query
    // Blocks below the lab's head the watch stays: the confirmations the indexer declares.
    std::uint64_t confirmations = 0;
    // The token contracts, 0x hex; empty: the lab environment's contracts.
    QStringList contracts;
    // How often the table and the node are read, and how many blocks below the newest
    // audited one are audited again at each check (rows a reorg left behind).
    int intervalMs = 3000;
    std::uint64_t recheckBlocks = 12;

    static constexpr int kMinIntervalMs = 100;
    static constexpr std::uint64_t kMaxRecheckBlocks = 1000;
    static constexpr std::uint64_t kMaxConfirmations = 100000;
};

// The one line saying what is wrong with `spec` (empty when nothing is), naming the field:
// no target, a preset and a query both or neither, a table without a preset, an unknown
// preset, a table name that is not one, a contract that is not an address, an interval or a
// window out of bounds.
QString validateWatchSpec(const ForeignWatchSpec& spec);
// The audit query `spec` gives (a preset's, or its own); empty when validateWatchSpec
// complains.
QString watchQuery(const ForeignWatchSpec& spec);

} // namespace forkscope::foreign

Q_DECLARE_METATYPE(forkscope::foreign::ForeignWatchSpec)
