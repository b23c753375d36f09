#pragma once

#include "BlockComparison.h"
#include "LogDerivedColumns.h"

#include <QHash>
#include <QVariantList>
#include <cstdint>

namespace forkscope::store {
class ContractReader;
}

namespace forkscope::audit {

// The stored rows of one chunk of blocks as the audit compares them with the node, read
// through the contract's read surface (SQLite or PostgreSQL alike), one query per table.
struct StoredChunk
{
    QHash<std::uint64_t, StoredBlock> blocks; // by number
    // By block, then log index.
    QHash<std::uint64_t, QHash<std::uint64_t, StoredLog>> logs;
    QHash<std::uint64_t, QHash<std::uint64_t, StoredTransfer>> transfers;
    qint64 logRows = 0;
    qint64 transferRows = 0;

    // `blocks` rows of [a, b]; logs and transfers are read separately, up to where the
    // stored chain is still the node's.
    void readBlocks(store::ContractReader& reader, const QVariantList& scope, std::uint64_t a,
                    std::uint64_t b);
    // `logs` and `transfer_events` rows of [a, b]; with `decoded`, also event_name, args_json
    // and decode_error (event_name is always read, to tell whether decoded logs are stored).
    void readLogs(store::ContractReader& reader, const QVariantList& scope, std::uint64_t a,
                  std::uint64_t b, bool decoded);
};

} // namespace forkscope::audit
