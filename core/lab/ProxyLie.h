#pragma once

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <optional>

namespace forkscope::lab {

// The ways a FaultProxy can lie in a reply, each a fault a hostile or broken provider
// commits without an error (the `lie` knob). A lie rewrites one JSON-RPC response object;
// the request it answers says what was asked.
enum class ProxyLie {
    None,
    ForeignLog,      // eth_getLogs gains a copy of a log from an address nobody asked for
    OutOfRangeLog,   // eth_getLogs gains a copy of a log one block past the requested range
    WrongLogHash,    // eth_getLogs logs carry a block hash that is not their block's
    UnlinkedHeaders, // eth_getBlockByNumber headers name a parentHash that is not the parent
    ShiftedHeader,   // eth_getBlockByNumber(N) answers a header whose number is N + 1000
    OtherChainId,    // eth_chainId answers another chain's id (the blocks stay the same)
    OtherGenesis,    // eth_getBlockByNumber(0) answers a genesis with another hash
};

QString proxyLieName(ProxyLie lie);
std::optional<ProxyLie> proxyLieFromName(const QString& name);
QStringList proxyLieNames();

// Logs a provider drops without a word, the same ones in every answer (a range query, a
// query by block hash, the block's receipts): each log with probability `logRate`, and
// every log of a block with probability `blockRate`, decided by a hash of the seed and the
// log's block hash (and index), never by a prefix.
struct LogDrops
{
    double logRate = 0.0;
    double blockRate = 0.0;
    quint32 seed = 0;
    bool inReceipts = true; // false: eth_getBlockReceipts stays honest (a broken log index)
    bool active() const { return logRate > 0 || blockRate > 0; }
};
QJsonObject applyLogDrops(const LogDrops& drops, const QJsonObject& req, const QJsonObject& rep);

// The response `rep` to request `req`, with the lie applied (unchanged where it does not
// apply: another method, an error reply, an empty result the lie needs a log to copy from).
QJsonObject applyProxyLie(ProxyLie lie, const QJsonObject& req, const QJsonObject& rep);

} // namespace forkscope::lab
