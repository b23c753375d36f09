#pragma once

#include "IndexerConfig.h"
#include "chain/Hash32.h"

#include <QList>
#include <QPair>
#include <QSet>
#include <QString>
#include <functional>
#include <optional>

namespace forkscope::rpc {
class EthClient;
}

namespace forkscope::indexer {

using LogAt = QPair<std::uint64_t, std::uint64_t>; // block number, log index

// Stored logs the node no longer returns (docs/design.md, "Absence is loud and
// corroborated"), as the SQLite indexer and the PostgreSQL head follower both look for them
// at the head.
struct AbsenceFinding
{
    QList<std::uint64_t> blocks; // sorted, each once; empty: every stored log is still there
    bool contradicted = false;   // a header of one of them disagrees with the stored hash
};

// The blocks holding a log of `held` that `present` lacks, sorted, each once.
QList<std::uint64_t> blocksWithAbsentLogs(const QSet<LogAt>& held, const QSet<LogAt>& present);

// The window looked at again: the last `window` blocks up to the checkpoint, none below the
// first block indexed. nullopt when the window is 0 (the check is off).
std::optional<std::pair<std::uint64_t, std::uint64_t>>
absenceWindow(std::uint64_t window, std::uint64_t firstIndexed, std::uint64_t checkpoint);

// Fetches the window's logs of `contracts` again, compares them with `held` (the stored
// ones), and for blocks with a log gone reads their headers, which no log cap applies to,
// against `storedHash`. A reply of `logCap` logs or more (0: no cap known) is asked again
// in halves; a block whose own reply is at the cap is left out, not called absent. Absence alone is
// weak evidence: a truncating or misconfigured provider looks the same, so only a header hash that
// disagrees (`contradicted`) may lead to a rollback; otherwise the caller deletes nothing and says
// so. Throws RpcException when the node is unavailable (not a reorg), and on a reply that does not
// match the filter.
AbsenceFinding
checkForAbsence(rpc::EthClient& eth, std::pair<std::uint64_t, std::uint64_t> window,
                const QList<chain::Address>& contracts, std::uint64_t logCap, QSet<LogAt> held,
                const std::function<std::optional<chain::Hash32>(std::uint64_t)>& storedHash);

// The one line a user reads: which blocks, and what is done about it.
QString describeAbsence(const AbsenceFinding& finding);

} // namespace forkscope::indexer
