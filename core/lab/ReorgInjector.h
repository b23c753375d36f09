#pragma once

#include "ReorgTxMode.h"

#include <QString>

namespace forkscope::rpc {
class JsonRpcClient;
}

namespace forkscope::lab {

struct ReorgInjection
{
    int depth = 0;
    ReorgTxMode mode = ReorgTxMode::Keep;
    int transactions = 0; // of the replaced blocks
    quint64 oldHead = 0;
    QString describe() const;
};

// anvil_reorg / anvil_rollback with the replaced blocks' transactions handled as asked.
// Throws DevnetError naming the problem (depth out of range, not an anvil node).
class ReorgInjector
{
public:
    static ReorgInjection inject(rpc::JsonRpcClient& rpc, int depth, ReorgTxMode mode);
    static quint64 rollback(rpc::JsonRpcClient& rpc, int blocks); // returns the new head
    static QString modeName(ReorgTxMode mode);
};

} // namespace forkscope::lab
