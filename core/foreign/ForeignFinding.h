#pragma once

#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>

namespace forkscope::foreign {

// One difference between the audited table and the chain, naming the block and the event.
struct ForeignFinding
{
    enum class Kind {
        Missing,      // a Transfer of the canonical chain with no row
        Extra,        // a row with no such Transfer in its canonical block
        Duplicated,   // several rows for one Transfer
        Altered,      // a row whose fields are not its Transfer's
        Orphaned,     // a row of a block a reorg replaced (its block hash is not canonical)
        WrongBalance, // a holder's balance that is not the sum of the node's Transfers
    };
    static constexpr int kKinds = 6;

    Kind kind = Kind::Missing;
    std::uint64_t block = 0;
    std::optional<std::uint64_t> logIndex;
    QString txHash;     // 0x hex, empty when unknown
    QString contract;   // 0x hex
    QString holder;     // WrongBalance only
    QStringList fields; // Altered: the columns that differ
    QString detail;     // what the row holds against what the chain holds
    QString row;        // the row's label, empty for a missing one

    QString describe() const;
};

// "missing", "extra", ... as the JSON and JUnit outputs name the classes.
QString kindName(ForeignFinding::Kind kind);
// What a finding class means, for headings.
QString kindTitle(ForeignFinding::Kind kind);

} // namespace forkscope::foreign
