#pragma once

#include "lab/DemoFactory.h"
#include "lab/DemoToken.h"
#include "lab/Devnet.h"
#include "rpc/JsonRpcClient.h"

#include <QCommandLineOption>
#include <QStringList>
#include <memory>
#include <optional>

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
    // With more than 0: a DemoFactory whose children, created evenly over the blocks, get
    // as many sprays of perTx as the tokens in every block (the "factory workload").
    int factoryChildren = 0;
    // With more than 0: one more token with about this many Transfers spread evenly over
    // the blocks, for a run that adds it to an environment already indexed.
    int addedEvents = 0;
    // anvil keeps the state of its last blocks only, in memory: without it anvil writes each
    // block's state to disk, tens of MB a block once thousands of contracts hold balances.
    bool pruneHistory = false;
};

class WorkloadOptions
{
public:
    explicit WorkloadOptions(const QString& batchHelp);
    void addTo(QCommandLineParser& parser) const;
    WorkloadShape read(const QCommandLineParser& parser) const; // every value at least 1

private:
    QCommandLineOption m_blocks, m_perTx, m_tokens, m_holders, m_batch, m_prune;
};

// The indexer benchmarks' workload: `tokens` DemoTokens on a managed anvil, each with
// `perTx` Transfers in every one of `blocks` blocks, spread over `holders` holders. The
// factory's children and the added token, when the shape asks for them, share those blocks.
struct Workload
{
    std::unique_ptr<lab::Devnet> devnet;
    std::unique_ptr<rpc::JsonRpcClient> rpc;
    QList<lab::DemoToken> tokens;
    QStringList contracts; // 0x addresses
    std::uint64_t head = 0;
    qint64 events = 0; // the tokens' Transfers
    std::optional<lab::DemoFactory> factory;
    qint64 factoryEvents = 0; // its children's Transfers, their mints included
    std::optional<lab::DemoToken> added;
    qint64 addedEvents = 0;
    double buildSecs = 0;

    static Workload build(const WorkloadShape& shape);
};

} // namespace forkscope::bench
