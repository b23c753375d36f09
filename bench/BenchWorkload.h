#pragma once

#include "lab/DemoToken.h"
#include "lab/Devnet.h"
#include "rpc/JsonRpcClient.h"

#include <QCommandLineOption>
#include <QStringList>
#include <memory>

class QCommandLineParser;

namespace forkscope::bench {

// The workload's shape; these defaults are the benchmarks' (and their options') defaults.
struct WorkloadShape
{
    int blocks = 2000;
    int perTx = 17;
    int tokens = 3;
    int holders = 5000;
    int batchSize = 200; // forkscope index's default
};

class WorkloadOptions
{
public:
    explicit WorkloadOptions(const QString& batchHelp);
    void addTo(QCommandLineParser& parser) const;
    WorkloadShape read(const QCommandLineParser& parser) const; // every value at least 1

private:
    QCommandLineOption m_blocks, m_perTx, m_tokens, m_holders, m_batch;
};

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

    static Workload build(const WorkloadShape& shape);
};

} // namespace forkscope::bench
