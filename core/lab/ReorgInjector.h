#pragma once

#include "ReorgTxMode.h"

#include <QString>

namespace forkscope::rpc {
class JsonRpcClient;
}

namespace forkscope::lab {

struct ReorgInjection
{
    int depth = 0; // asked for
    ReorgTxMode mode = ReorgTxMode::Keep;
    // The replaced blocks' transactions (kept, moved or dropped), earlier markers left out.
    int transactions = 0;
    quint64 oldHead = 0;
    // What anvil did, from the block hashes before and after: the replaced blocks whose
    // hash changed, and the depth that makes (head - first changed block + 1). Every
    // replaced block carries a marker transaction of its own, so this is `depth` unless
    // anvil did something else, and the record says which.
    int changedBlocks = 0;
    int producedDepth = 0;
    QString describe() const;
};

// anvil_reorg / anvil_rollback with the replaced blocks' transactions handled as asked.
// anvil gives each replacement block the same timestamp, so a replacement carrying the same
// transactions as the block it replaces comes out identical to it (no fork at all): each
// one also gets a marker transaction of its own (a zero-value transfer between anvil's
// last unlocked account and itself, with random data), so every replaced block differs.
// The markers of earlier injections are not carried over: a block reorged again holds one.
// Throws DevnetError naming the problem (depth out of range, not an anvil node).
class ReorgInjector
{
public:
    static ReorgInjection inject(rpc::JsonRpcClient& rpc, int depth, ReorgTxMode mode);
    static quint64 rollback(rpc::JsonRpcClient& rpc, int blocks); // returns the new head
    static QString modeName(ReorgTxMode mode);
};

} // namespace forkscope::lab
