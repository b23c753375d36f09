#pragma once

#include "EngineStatus.h"

#include <QHash>
#include <QString>

namespace forkscope::engine {

// Whether the re-indexed chain has a removed transfer again. `above` counts the transfers
// stored above the fork now, by ReorgEventStore::transferKey (tx, token, from, to, value).
// The same transaction comes first; then the same transfer (token, parties, value) in
// another transaction: a lab "keep" reorg re-sends each transfer (new nonce, new hash), and a
// real chain may re-include a payment by a replacement transaction. Each stored transfer
// answers for one removed transfer at most. Pure.
void markReindexed(QList<ReorgDiff::Item>& items, const QHash<QString, int>& above);

} // namespace forkscope::engine
