#include "BenchWorkload.h"
#include "lab/BatchedBlocks.h"
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
              QString::number(kDefaults.batchSize)),
      m_prune(QStringLiteral("prune-history"),
              QStringLiteral("anvil keeps the state of its last 64 blocks only, in memory "
                             "(a big chain builds faster and writes no state to disk)."))
{
}

void WorkloadOptions::addTo(QCommandLineParser& parser) const
{
    parser.addOptions({m_blocks, m_perTx, m_tokens, m_holders, m_batch, m_prune});
}

WorkloadShape WorkloadOptions::read(const QCommandLineParser& parser) const
{
    const auto atLeastOne = [&](const QCommandLineOption& o) {
        return std::max(1, parser.value(o).toInt());
    };
    WorkloadShape shape{atLeastOne(m_blocks), atLeastOne(m_perTx), atLeastOne(m_tokens),
                        atLeastOne(m_holders), atLeastOne(m_batch)};
    shape.pruneHistory = parser.isSet(m_prune);
    return shape;
}

Workload Workload::build(const WorkloadShape& shape)
{
    Workload w;
    w.devnet = std::make_unique<lab::Devnet>();
    lab::Devnet::Options opts;
    opts.extraArgs = {QStringLiteral("--gas-limit"), QStringLiteral("300000000")};
    if (shape.pruneHistory)
        opts.extraArgs << QStringLiteral("--prune-history") << QStringLiteral("64");
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
    if (shape.factoryChildren > 0)
        w.factory = lab::DemoFactory::deploy(*w.rpc, sender);
    if (shape.addedEvents > 0)
        w.added =
            lab::DemoToken::deploy(*w.rpc, sender, QStringLiteral("Added"), QStringLiteral("ADD"),
                                   chain::U256("1000000000000000000000000000"));
    const int addedPerBlock = std::max(1, shape.addedEvents / shape.blocks);
    quint64 offset = 0, children = 0;
    qint64 childSprays = 0;
    // Block `i`'s transactions: a spray per token, then the factory's children due by the
    // end of the block, a spray through as many of them, and the added token's spray.
    const auto block = [&](int i) {
        QList<QJsonObject> txs;
        for (const auto& t : w.tokens) {
            txs << t.txRequest(lab::DemoToken::sprayCalldata(quint64(shape.perTx), offset,
                                                             quint64(shape.holders)));
            offset += quint64(shape.perTx);
        }
        if (w.factory) {
            const quint64 due =
                (quint64(shape.factoryChildren) * quint64(i + 1) + quint64(shape.blocks) - 1) /
                quint64(shape.blocks);
            for (; children < due; ++children)
                txs << w.factory->createPairRequest(children + 1, children + 2,
                                                    chain::U256("1000000000000000000000000"));
            for (int j = 0; j < shape.tokens; ++j) {
                const quint64 child = (quint64(i) * quint64(shape.tokens) + quint64(j)) % children;
                txs << lab::DemoToken(*w.rpc, w.factory->childAddress(child + 1), sender)
                           .txRequest(lab::DemoToken::sprayCalldata(quint64(shape.perTx), offset,
                                                                    quint64(shape.holders)));
                offset += quint64(shape.perTx);
                ++childSprays;
            }
        }
        if (w.added) {
            txs << w.added->txRequest(lab::DemoToken::sprayCalldata(quint64(addedPerBlock), offset,
                                                                    quint64(shape.holders)));
            offset += quint64(addedPerBlock);
        }
        return txs;
    };
    for (int done = 0; done < shape.blocks; done += 100) {
        lab::mineBatchedBlocks(*w.rpc, sender, std::min(100, shape.blocks - done),
                               [&](int i) { return block(done + i); });
        std::fprintf(stderr, "\rworkload: %d/%d blocks", std::min(done + 100, shape.blocks),
                     shape.blocks);
    }
    w.head = rpc::EthClient(*w.rpc).blockNumber();
    w.events = qint64(shape.blocks) * shape.tokens * shape.perTx + shape.tokens; // + the mints
    w.factoryEvents = qint64(children) + childSprays * shape.perTx;
    w.addedEvents = w.added ? qint64(shape.blocks) * addedPerBlock + 1 : 0;
    w.buildSecs = t.elapsed() / 1000.0;
    if (w.factory)
        std::printf("\nworkload: a factory with %llu children and %lld Transfer events in the "
                    "same blocks",
                    static_cast<unsigned long long>(children),
                    static_cast<long long>(w.factoryEvents));
    if (w.added)
        std::printf("\nworkload: a token to add, with %lld Transfer events in the same blocks",
                    static_cast<long long>(w.addedEvents));
    std::printf("\nworkload: %d blocks (head %llu), %lld Transfer events, %d tokens, %d holders, "
                "built in %.1f s\n",
                shape.blocks, static_cast<unsigned long long>(w.head),
                static_cast<long long>(w.events), shape.tokens, shape.holders, w.buildSecs);
    return w;
}

} // namespace forkscope::bench
