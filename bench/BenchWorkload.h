#pragma once

#include "lab/DemoToken.h"
#include "lab/Devnet.h"
#include "rpc/JsonRpcClient.h"

#include <QStringList>
#include <memory>

namespace forkscope::bench {

// The indexer benchmarks' workload: `tokens` DemoTokens on a managed anvil, each with
// `perTx` Transfers in every one of `blocks` blocks, spread over `holders` holders.
struct Workload
{
    std::unique_ptr<lab::Devnet> devnet;
    std::unique_ptr<rpc::JsonRpcClient> rpc;
    QList<lab::DemoToken> tokens;
    QStringList contracts; // 0x addresses
    std::uint64_t head = 0;
    qint64 events = 0;
    double buildSecs = 0;

    static Workload build(int blocks, int perTx, int tokens, int holders);
};

} // namespace forkscope::bench
