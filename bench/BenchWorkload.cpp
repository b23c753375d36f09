#include "BenchWorkload.h"
#include "rpc/EthClient.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <cstdio>

namespace forkscope::bench {

WorkloadOptions::WorkloadOptions(const QString& batchHelp)
    : m_blocks("blocks", "Blocks of transfers.", "N", "2000"),
      m_perTx("per-tx", "Transfers per token per block.", "N", "17"),
      m_tokens("tokens", "Number of tokens.", "N", "3"),
      m_holders("holders", "Distinct holders.", "N", "5000"),
      m_batch("batch-size", batchHelp, "N", "100")
{
}

void WorkloadOptions::addTo(QCommandLineParser& parser) const
{
    parser.addOptions({m_blocks, m_perTx, m_tokens, m_holders, m_batch});
}

WorkloadShape WorkloadOptions::read(const QCommandLineParser& parser) const
{
    const auto atLeastOne = [&](const QCommandLineOption& o) {
        return std::max(1, parser.value(o).toInt());
    };
    return {atLeastOne(m_blocks), atLeastOne(m_perTx), atLeastOne(m_tokens), atLeastOne(m_holders),
            atLeastOne(m_batch)};
}

Workload Workload::build(int blocks, int perTx, int tokens, int holders)
{
    Workload w;
    w.devnet = std::make_unique<lab::Devnet>();
    lab::Devnet::Options opts;
    opts.extraArgs = {"--gas-limit", "300000000"};
    w.devnet->start(opts);
    w.rpc = std::make_unique<rpc::JsonRpcClient>(w.devnet->url());
    w.rpc->setTimeout(std::chrono::milliseconds(120000));
    const auto sender = lab::DemoToken::defaultSender(*w.rpc);
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < tokens; ++i) {
        w.tokens << lab::DemoToken::deploy(*w.rpc, sender, QStringLiteral("Bench %1").arg(i),
                                           QStringLiteral("B%1").arg(i),
                                           chain::U256("1000000000000000000000000000"));
        w.contracts << w.tokens.last().address().toHex();
    }
    quint64 offset = 0;
    for (int done = 0; done < blocks; done += 100) {
        offset = lab::DemoToken::sprayBlocks(*w.rpc, w.tokens, std::min(100, blocks - done), perTx,
                                             quint64(holders), offset);
        std::fprintf(stderr, "\rworkload: %d/%d blocks", std::min(done + 100, blocks), blocks);
    }
    w.head = rpc::EthClient(*w.rpc).blockNumber();
    w.events = qint64(blocks) * tokens * perTx + tokens; // + the mints
    w.buildSecs = t.elapsed() / 1000.0;
    std::printf("\nworkload: %d blocks (head %llu), %lld Transfer events, %d tokens, %d holders, "
                "built in %.1f s\n",
                blocks, static_cast<unsigned long long>(w.head), static_cast<long long>(w.events),
                tokens, holders, w.buildSecs);
    return w;
}

} // namespace forkscope::bench
