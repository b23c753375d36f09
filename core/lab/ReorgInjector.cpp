#include "ReorgInjector.h"
#include "DevnetError.h"
#include "chain/Hex.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"
#include "text/Count.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QRandomGenerator>

namespace forkscope::lab {

namespace {

// eth_getBlockByNumber of `number`, checked against the request before any field is used.
QJsonObject blockAt(rpc::JsonRpcClient& rpc, quint64 number, bool fullTransactions)
{
    const QJsonObject block =
        rpc.callBlocking(QStringLiteral("eth_getBlockByNumber"),
                         {chain::hex::encodeQuantity(number), fullTransactions})
            .toObject();
    const QString hash = block.value(QStringLiteral("hash")).toString();
    bool ok = false;
    const quint64 got =
        block.value(QStringLiteral("number")).toString().mid(2).toULongLong(&ok, 16);
    if (!ok || got != number || hash.size() != 66)
        throw DevnetError(QStringLiteral("the node answered eth_getBlockByNumber(%1) with "
                                         "something else than block %1")
                              .arg(number));
    return block;
}

// A transaction nobody else sends: a zero-value transfer from anvil's last unlocked account
// to itself, with random data, so the block it lands in differs from any other.
QJsonObject markerTransaction(const QJsonValue& account)
{
    QByteArray data(32, Qt::Uninitialized);
    QRandomGenerator::global()->fillRange(reinterpret_cast<quint32*>(data.data()),
                                          data.size() / int(sizeof(quint32)));
    return QJsonObject{{QStringLiteral("from"), account},
                       {QStringLiteral("to"), account},
                       {QStringLiteral("value"), QStringLiteral("0x0")},
                       {QStringLiteral("data"), chain::hex::encodeData(data)},
                       {QStringLiteral("gas"), QStringLiteral("0x7530")}};
}

// A marker an earlier injection left in a replaced block. The lab's own, not the chain's
// traffic: not sent again and not counted. Sent again, every reorg over the same blocks
// added one more to each, and a storm of 200 reorgs took minutes, most of it re-sending them.
bool isMarker(const QJsonObject& t, const QString& markerAccount)
{
    return t.value(QStringLiteral("from")).toString().compare(markerAccount, Qt::CaseInsensitive) ==
               0 &&
           t.value(QStringLiteral("to")).toString().compare(markerAccount, Qt::CaseInsensitive) ==
               0 &&
           t.value(QStringLiteral("value")).toString() == QLatin1String("0x0") &&
           t.value(QStringLiteral("input")).toString().size() == 2 + 64;
}

} // namespace

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
    const QString txs =
        QStringLiteral("%1 %2 %3")
            .arg(transactions)
            .arg(transactions == 1 ? QStringLiteral("transaction") : QStringLiteral("transactions"))
            .arg(mode == ReorgTxMode::Keep   ? transactions == 1
                                                   ? QStringLiteral("kept at its offset")
                                                   : QStringLiteral("kept at their offsets")
                   : mode == ReorgTxMode::Drop ? QStringLiteral("dropped")
                                             : QStringLiteral("moved one block later"));
    if (producedDepth == depth && changedBlocks == depth)
        return QStringLiteral("reorg of depth %1 below head %2 (blocks %3-%2 replaced), %4")
            .arg(depth)
            .arg(oldHead)
            .arg(oldHead - quint64(depth) + 1)
            .arg(txs);
    return QStringLiteral("reorg of depth %1 asked below head %2, but anvil produced depth %3 "
                          "(%4 of the %1 blocks changed), %5")
        .arg(depth)
        .arg(oldHead)
        .arg(producedDepth)
        .arg(changedBlocks)
        .arg(txs);
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
            QStringLiteral("reorg depth %1 is out of range: the chain has %2 above genesis")
                .arg(depth)
                .arg(text::count(qint64(r.oldHead), QStringLiteral("block"),
                                 QStringLiteral("blocks"))));
    if (mode == ReorgTxMode::Move && depth < 2)
        throw DevnetError(QStringLiteral("moving transactions needs a reorg depth of at least 2"));
    const QJsonArray accounts = rpc.callBlocking(QStringLiteral("eth_accounts")).toArray();
    if (accounts.isEmpty())
        throw DevnetError(QStringLiteral("the node has no unlocked accounts (is it anvil?)"));
    const QJsonValue markerAccount = accounts.last();
    const quint64 first = r.oldHead - quint64(depth) + 1;
    const auto timestampOf = [](const QJsonObject& block) {
        bool ok = false;
        const qint64 t =
            block.value(QStringLiteral("timestamp")).toString().mid(2).toLongLong(&ok, 16);
        if (!ok)
            throw DevnetError(QStringLiteral("the node's block has no usable timestamp"));
        return t;
    };
    qint64 parentTime = timestampOf(blockAt(rpc, first - 1, false));
    // What the replaced blocks held, by the offset of the block that will carry it.
    QStringList before;
    QList<QJsonArray> byOffset(depth);
    for (quint64 n = first; n <= r.oldHead; ++n) {
        const QJsonObject block = blockAt(rpc, n, true);
        before << block.value(QStringLiteral("hash")).toString();
        const int offset = int(n - first);
        for (const QJsonValue& v : block.value(QStringLiteral("transactions")).toArray()) {
            const QJsonObject t = v.toObject();
            if (isMarker(t, markerAccount.toString()))
                continue;
            ++r.transactions; // dropped ones too: what vanished is said
            if (mode == ReorgTxMode::Drop)
                continue;
            QJsonObject req{{QStringLiteral("from"), t.value(QStringLiteral("from"))},
                            {QStringLiteral("data"), t.value(QStringLiteral("input"))},
                            {QStringLiteral("value"), t.value(QStringLiteral("value"))},
                            {QStringLiteral("gas"), t.value(QStringLiteral("gas"))}};
            if (!t.value(QStringLiteral("to")).isNull())
                req.insert(QStringLiteral("to"), t.value(QStringLiteral("to")));
            byOffset[mode == ReorgTxMode::Move ? std::min(offset + 1, depth - 1) : offset].append(
                req);
        }
    }
    // Not anvil_reorg: it stamps every replacement block with the chain's first timestamp
    // (the time anvil started), so a report's block-time axis went back to it. The blocks
    // are removed, and the new branch is mined block by block, each with its transactions
    // and a timestamp of now (never before its parent's).
    rpc.callBlocking(QStringLiteral("anvil_rollback"), {depth});
    if (eth.blockNumber() != first - 1)
        throw DevnetError(QStringLiteral("anvil_rollback(%1) did not leave the head at block %2")
                              .arg(depth)
                              .arg(first - 1));
    rpc.callBlocking(QStringLiteral("evm_setAutomine"), {false});
    try {
        const qint64 now = QDateTime::currentSecsSinceEpoch();
        for (int i = 0; i < depth; ++i) {
            QJsonArray txs{markerTransaction(markerAccount)};
            for (const QJsonValue& t : std::as_const(byOffset[i]))
                txs.append(t);
            // One at a time, in order: each sender's nonces follow the pool's.
            for (const QJsonValue& t : std::as_const(txs))
                rpc.callBlocking(QStringLiteral("eth_sendTransaction"), {t});
            parentTime = std::max(parentTime + 1, now - (depth - 1 - i));
            rpc.callBlocking(QStringLiteral("evm_mine"), {parentTime});
            const QJsonObject mined = blockAt(rpc, first + quint64(i), false);
            if (mined.value(QStringLiteral("transactions")).toArray().size() != txs.size())
                throw DevnetError(
                    QStringLiteral("the new block %1 holds %2, not the %3 sent for it")
                        .arg(first + quint64(i))
                        .arg(text::count(
                            mined.value(QStringLiteral("transactions")).toArray().size(),
                            QStringLiteral("transaction"), QStringLiteral("transactions")))
                        .arg(txs.size()));
        }
    } catch (...) {
        rpc.callBlocking(QStringLiteral("evm_setAutomine"), {true});
        throw;
    }
    rpc.callBlocking(QStringLiteral("evm_setAutomine"), {true});
    // What anvil made of it, from the hashes: the lowest changed block is the fork.
    for (quint64 n = first; n <= r.oldHead; ++n) {
        if (blockAt(rpc, n, false).value(QStringLiteral("hash")).toString() ==
            before.at(qsizetype(n - first)))
            continue;
        ++r.changedBlocks;
        if (r.producedDepth == 0)
            r.producedDepth = int(r.oldHead - n + 1);
    }
    return r;
}

quint64 ReorgInjector::rollback(rpc::JsonRpcClient& rpc, int blocks)
{
    rpc::EthClient eth(rpc);
    const quint64 head = eth.blockNumber();
    if (blocks < 1 || quint64(blocks) > head)
        throw DevnetError(
            QStringLiteral("cannot roll back %1: the chain has %2 above genesis")
                .arg(text::count(blocks, QStringLiteral("block"), QStringLiteral("blocks")),
                     text::count(qint64(head), QStringLiteral("block"), QStringLiteral("blocks"))));
    rpc.callBlocking(QStringLiteral("anvil_rollback"), {blocks});
    return eth.blockNumber();
}

} // namespace forkscope::lab
