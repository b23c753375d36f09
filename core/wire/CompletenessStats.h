#pragma once

#include <QtGlobal>
#include <cstdint>
#include <optional>

// The completeness proofs' policy and counters: values only, part of the engine API the
// window links (CompletenessCheck.h holds the checks).
namespace forkscope::wire {

// Which completeness proofs a fetch runs (`--verify`): the bloom check and the recount are
// nearly free and on by default; the receipts proof costs a call per block with logs.
struct CompletenessPolicy
{
    bool bloom = true;
    bool recount = true;
    bool receipts = false;
};

// What the checks of one fetch did, for counters and the Nodes tab.
struct CompletenessStats
{
    qint64 bloomChecks = 0;        // blocks whose bloom was tested against the contracts
    qint64 recounts = 0;           // last blocks of a result fetched again by hash
    qint64 receiptProofs = 0;      // blocks proven against their receipts root
    qint64 falsePositives = 0;     // a bloom admitted a contract, the block had no log of ours
    qint64 bloomTruncations = 0;   // a block with logs of ours came back without them
    qint64 recountTruncations = 0; // a result's last block came back short
    qint64 receiptTruncations = 0; // the receipts showed logs eth_getLogs had not
    qint64 capProofs = 0;          // one-block replies a silent cap could have cut, proven
    qint64 splitTruncations = 0;   // a reply whose range split into halves holding more
    qint64 widerProofs = 0; // replies a silent cap could have cut, proven by a wider one's size
    std::optional<qint64> learnedCap;            // a result size found to be a silent cap
    std::optional<std::uint64_t> lastShortBlock; // where the last truncation was found

    qint64 truncations() const
    {
        return bloomTruncations + recountTruncations + receiptTruncations + splitTruncations;
    }

    CompletenessStats& operator+=(const CompletenessStats& o);
};

} // namespace forkscope::wire
