#include "BenchWorkload.h"
#include "rpc/EthClient.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <cstdio>

namespace forkscope::bench {

namespace {
const WorkloadShape kDefaults;
} // namespace

WorkloadOptions::WorkloadOptions(const QString& batchHelp)
    : m_blocks(QStringLiteral("blocks"), QStringLiteral("Blocks of transfers."),
               QStringLiteral("N"), QString::number(kDefaults.blocks)),
      m_perTx(QStringLiteral("per-tx"), QStringLiteral("Transfers per token per block."),
              QStringLiteral("N"), QString::number(kDefaults.perTx)),
      m_tokens(QStringLiteral("tokens"), QStringLiteral("Number of tokens."), QStringLiteral("N"),
               QString::number(kDefaults.tokens)),
      m_holders(QStringLiteral("holders"), QStringLiteral("Distinct holders."), QStringLiteral("N"),
                QString::number(kDefaults.holders)),
      m_batch(QStringLiteral("batch-size"), batchHelp, QStringLiteral("N"),
              QString::number(kDefaults.batchSize))
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

Workload Workload::build(const WorkloadShape& shape)
{
    Workload w;
    w.devnet = std::make_unique<lab::Devnet>();
    lab::Devnet::Options opts;
    opts.extraArgs = {QStringLiteral("--gas-limit"), QStringLiteral("300000000")};
    w.devnet->start(opts);
    w.rpc = std::make_unique<rpc::JsonRpcClient>(w.devnet->url());
    w.rpc->setTimeout(std::chrono::milliseconds(120000));
    const auto sender = lab::DemoToken::defaultSender(*w.rpc);
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < shape.tokens; ++i) {
        w.tokens << lab::DemoToken::deploy(*w.rpc, sender, QStringLiteral("Bench %1").arg(i),
                                           QStringLiteral("B%1").arg(i),
                                           chain::U256("1000000000000000000000000000"));
        w.contracts << w.tokens.last().address().toHex();
    }
    quint64 offset = 0;
    for (int done = 0; done < shape.blocks; done += 100) {
        offset = lab::DemoToken::sprayBlocks(*w.rpc, w.tokens, std::min(100, shape.blocks - done),
                                             shape.perTx, quint64(shape.holders), offset);
        std::fprintf(stderr, "\rworkload: %d/%d blocks", std::min(done + 100, shape.blocks),
                     shape.blocks);
    }
    w.head = rpc::EthClient(*w.rpc).blockNumber();
    w.events = qint64(shape.blocks) * shape.tokens * shape.perTx + shape.tokens; // + the mints
    w.buildSecs = t.elapsed() / 1000.0;
    std::printf("\nworkload: %d blocks (head %llu), %lld Transfer events, %d tokens, %d holders, "
                "built in %.1f s\n",
                shape.blocks, static_cast<unsigned long long>(w.head),
                static_cast<long long>(w.events), shape.tokens, shape.holders, w.buildSecs);
    return w;
}

} // namespace forkscope::bench
