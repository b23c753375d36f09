#pragma once

#include "ForeignFinding.h"

#include <QList>
#include <QString>
#include <QStringList>
#include <array>
#include <optional>

namespace forkscope::foreign {

// What one `forkscope audit` checked and found.
struct ForeignAuditResult
{
    // At most this many findings are kept with their text; every one is counted.
    static constexpr qsizetype kFindingsKept = 1000;

    QString target;
    QString query;
    QString node;
    QStringList contracts;
    std::uint64_t from = 0;
    std::uint64_t to = 0;
    // Rows exist above `to` but were not audited: the node's head minus the confirmations.
    std::optional<std::uint64_t> rowsAboveTo;
    QStringList compared; // the row fields compared with each Transfer
    QString proofName;    // "receipts root" with --receipts
    QString factory;      // with --factory: its address, and the children it created
    qint64 children = 0;

    qint64 blocksChecked = 0;
    qint64 rowsRead = 0;
    qint64 rowsOfOtherContracts = 0; // rows of contracts not audited: left alone
    qint64 nodeTransfers = 0;
    qint64 blocksWithTransfers = 0;
    qint64 getLogsCalls = 0;
    qint64 byHashFetches = 0;
    qint64 bloomSuspects = 0;       // blooms admitting a contract's Transfer with nothing found
    qint64 bloomFalsePositives = 0; // of those, blocks whose every log proved none ours
    qint64 provenBlocks = 0;        // blocks proven by their receipts root
    qint64 balancesChecked = 0;
    qint64 holdersSummed = 0; // holders whose node balance was summed

    QList<ForeignFinding> findings;
    std::array<qint64, ForeignFinding::kKinds> counts{};

    void add(const ForeignFinding& f)
    {
        ++counts[std::size_t(f.kind)];
        if (findings.size() < kFindingsKept)
            findings.append(f);
    }
    qint64 count(ForeignFinding::Kind kind) const { return counts[std::size_t(kind)]; }
    qint64 findingCount() const
    {
        qint64 n = 0;
        for (qint64 c : counts)
            n += c;
        return n;
    }
    bool clean() const { return findingCount() == 0; }
};

} // namespace forkscope::foreign
