#include "ReorgInjector.h"
#include "DevnetError.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"

#include <QJsonArray>
#include <QJsonObject>

namespace forkscope::lab {

QString ReorgInjector::modeName(ReorgTxMode m)
{
    switch (m) {
    case ReorgTxMode::Keep:
        return QStringLiteral("keep");
    case ReorgTxMode::Drop:
        return QStringLiteral("drop");
    case ReorgTxMode::Move:
        return QStringLiteral("move");
    }
    return {};
}

QString ReorgInjection::describe() const
{
    return QStringLiteral("reorg of depth %1 below head %2, %3 transaction(s) %4")
        .arg(depth)
        .arg(oldHead)
        .arg(transactions)
        .arg(mode == ReorgTxMode::Keep   ? QStringLiteral("kept at their offsets")
             : mode == ReorgTxMode::Drop ? QStringLiteral("dropped")
                                         : QStringLiteral("moved one block later"));
}

ReorgInjection ReorgInjector::inject(rpc::JsonRpcClient& rpc, int depth, ReorgTxMode mode)
{
    rpc::EthClient eth(rpc);
    ReorgInjection r;
    r.depth = depth;
    r.mode = mode;
    r.oldHead = eth.blockNumber();
    if (depth < 1 || quint64(depth) > r.oldHead)
        throw DevnetError(
            QStringLiteral(
                "reorg depth %1 is out of range: the chain has %2 block(s) above genesis")
                .arg(depth)
                .arg(r.oldHead));
    if (mode == ReorgTxMode::Move && depth < 2)
        throw DevnetError(QStringLiteral("moving transactions needs a reorg depth of at least 2"));
    QJsonArray txs;
    if (mode != ReorgTxMode::Drop) {
        const quint64 first = r.oldHead - quint64(depth) + 1;
        for (quint64 n = first; n <= r.oldHead; ++n) {
            const QJsonValue block = rpc.callBlocking(QStringLiteral("eth_getBlockByNumber"),
                                                      {QStringLiteral("0x%1").arg(n, 0, 16), true});
            const int offset = int(n - first);
            for (const QJsonValue& v :
                 block.toObject().value(QStringLiteral("transactions")).toArray()) {
                const QJsonObject t = v.toObject();
                QJsonObject req{{QStringLiteral("from"), t.value(QStringLiteral("from"))},
                                {QStringLiteral("data"), t.value(QStringLiteral("input"))},
                                {QStringLiteral("value"), t.value(QStringLiteral("value"))},
                                {QStringLiteral("gas"), t.value(QStringLiteral("gas"))}};
                if (!t.value(QStringLiteral("to")).isNull())
                    req.insert(QStringLiteral("to"), t.value(QStringLiteral("to")));
                const int at = mode == ReorgTxMode::Move ? std::min(offset + 1, depth - 1) : offset;
                txs.append(QJsonArray{req, at});
                ++r.transactions;
            }
        }
    }
    rpc.callBlocking(QStringLiteral("anvil_reorg"), {depth, txs});
    return r;
}

quint64 ReorgInjector::rollback(rpc::JsonRpcClient& rpc, int blocks)
{
    rpc::EthClient eth(rpc);
    const quint64 head = eth.blockNumber();
    if (blocks < 1 || quint64(blocks) > head)
        throw DevnetError(
            QStringLiteral("cannot roll back %1 block(s): the chain has %2 block(s) above genesis")
                .arg(blocks)
                .arg(head));
    rpc.callBlocking(QStringLiteral("anvil_rollback"), {blocks});
    return eth.blockNumber();
}

} // namespace forkscope::lab
