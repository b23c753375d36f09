#pragma once

#include "chain/Address.h"

#include <QJsonObject>
#include <QList>
#include <functional>

namespace forkscope::rpc {
class JsonRpcClient;
}

namespace forkscope::lab {

// Mines `blocks` blocks on anvil, block i holding exactly the transactions
// `transactionsOf(i)` returns, all from `sender` (an unlocked account), in that order.
// Each block's transactions go in one JSON-RPC batch with explicit nonces (anvil serves
// batch entries concurrently), then evm_mine; automine is off meanwhile and on again after.
// Throws DevnetError when a transaction was not mined, rpc::RpcException when one is refused.
// Blocking: worker threads, tests and benchmarks only.
void mineBatchedBlocks(rpc::JsonRpcClient& rpc, const chain::Address& sender, int blocks,
                       const std::function<QList<QJsonObject>(int block)>& transactionsOf);

} // namespace forkscope::lab
