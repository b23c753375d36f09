#pragma once

#include "JsonRpcClient.h"
#include "chain/Address.h"
#include "chain/BlockHeader.h"
#include "chain/Hash32.h"
#include "chain/LogEntry.h"

#include <QJsonArray>
#include <QJsonObject>
#include <optional>

namespace forkscope::rpc {

struct LogFilter
{
    std::uint64_t fromBlock = 0;
    std::uint64_t toBlock = 0;
    QList<chain::Address> addresses;        // empty = any address
    QList<QList<chain::Hash32>> topics;     // per position, empty list = wildcard
    std::optional<chain::Hash32> blockHash; // if set, from/to are ignored (EIP-234)

    // Blocks [from, to] of `addresses`, any topics.
    static LogFilter range(std::uint64_t from, std::uint64_t to, QList<chain::Address> addresses)
    {
        LogFilter f;
        f.fromBlock = from;
        f.toBlock = to;
        f.addresses = std::move(addresses);
        return f;
    }

    QJsonObject toJson() const;
};

// The indexer's question at the start of every round, in one batch and one round trip: the
// head, the block at the checkpoint's number, and the node's identity (chain id and genesis
// hash), so a node that turns into another chain is noticed before the next commit.
struct HeadCheck
{
    std::uint64_t head = 0;
    std::optional<chain::BlockHeader> block; // nullopt: the node has not reached it
    std::uint64_t chainId = 0;
    std::optional<chain::Hash32> genesis; // nullopt: the node answered null for block 0
};

// Typed wrappers over the eth_* methods the indexer uses. Blocking: for worker threads.
// Every failure is an RpcException; a reply whose content does not parse becomes an
// RpcError of kind Malformed whose message names the method and the field.
class EthClient
{
public:
    explicit EthClient(JsonRpcClient& rpc) : m_rpc(rpc) {}

    JsonRpcClient& rpc() { return m_rpc; }
    // The endpoint as errors name it (no user info).
    QString endpointText() const { return m_rpc.endpoint().toString(QUrl::RemoveUserInfo); }

    std::uint64_t chainId();
    std::uint64_t blockNumber();
    // nullopt when the node answers null: it has not reached that block (or does not
    // know the hash). That is not evidence of a reorg; callers must treat it as "unknown".
    std::optional<chain::BlockHeader> blockByNumber(std::uint64_t number);
    std::optional<chain::BlockHeader> blockByHash(const chain::Hash32& hash);
    std::optional<chain::BlockHeader> latestBlock();
    // Headers [from, to] in one JSON-RPC batch; entries are nullopt where the node said null.
    QList<std::optional<chain::BlockHeader>> blocksByNumber(std::uint64_t from, std::uint64_t to);
    QList<chain::LogEntry> getLogs(const LogFilter& filter);
    // The indexer's per-round check of the block at `number` (HeadCheck), one round trip.
    HeadCheck headCheck(std::uint64_t number);

    // Asynchronous halves, so a caller can fetch ahead while it commits: request* sends
    // now; take* waits for the reply, parses it and deletes the call.
    RpcCall* requestBlocks(std::uint64_t from, std::uint64_t to);
    QList<std::optional<chain::BlockHeader>> takeBlocks(RpcCall* call, std::uint64_t from);
    RpcCall* requestLogs(const LogFilter& filter);
    QList<chain::LogEntry> takeLogs(RpcCall* call);
    RpcCall* requestHeadCheck(std::uint64_t number);
    HeadCheck takeHeadCheck(RpcCall* call, std::uint64_t number);

    // For the receipts proof (proof::verifyReceipts, proof::verifyHeaderHash): the replies
    // as the node sent them, because the proof parses every field itself and names the one
    // it rejects. nullopt when the node answers null: it does not have that block. A reply
    // of another shape is an RpcError of kind Malformed.
    // eth_getBlockReceipts(blockHash): every receipt of the block, in transaction order.
    std::optional<QJsonArray> blockReceipts(const chain::Hash32& blockHash);
    // The same reply as simdjson parsed it, for proof::verifyReceipts to read straight into
    // receipts (the hot path of --verify receipts): no QJsonArray is built.
    std::optional<chain::ParsedJson> blockReceiptsJson(const chain::Hash32& blockHash);
    RpcCall* requestBlockReceipts(const chain::Hash32& blockHash, bool typed = false);
    std::optional<QJsonArray> takeBlockReceipts(RpcCall* call, const chain::Hash32& blockHash);
    // eth_getBlockByHash(hash, false): the whole header object.
    std::optional<QJsonObject> blockJsonByHash(const chain::Hash32& hash);
    // eth_getCode(address, block): the code at the address in that block's state (strict 0x
    // data; empty before the contract was deployed).
    QByteArray codeAt(const chain::Address& address, std::uint64_t block);
    // eth_call({to, data}, "latest"): the bytes the call returned (strict 0x data).
    QByteArray callContract(const chain::Address& to, const QByteArray& data);
    // eth_call of each (to, data) at the block `blockHash` (EIP-1898: the state of that very
    // block, whatever the head did since), in one batch: the bytes each returned, in order.
    QList<QByteArray> callContractsAt(const QList<std::pair<chain::Address, QByteArray>>& calls,
                                      const chain::Hash32& blockHash);

    // Parsers for replies obtained asynchronously (JsonRpcClient::call); they throw
    // RpcException on an error reply or malformed content.
    static std::optional<chain::BlockHeader> parseBlock(const RpcResponse& r, const QString& what);
    // The reply to eth_getBlockByNumber(number) / eth_getBlockByHash(hash): a header of
    // another number or hash does not answer the request and is an RpcError of kind
    // Mismatch, before any of its fields is used.
    static std::optional<chain::BlockHeader> parseBlockNumbered(const RpcResponse& r,
                                                                std::uint64_t number);
    static std::optional<chain::BlockHeader> parseBlockHashed(const RpcResponse& r,
                                                              const chain::Hash32& hash);
    static QList<chain::LogEntry> parseLogs(const RpcResponse& r);
    static std::uint64_t parseQuantity(const RpcResponse& r, const QString& what);
    static std::optional<QJsonArray> parseBlockReceipts(const RpcResponse& r, const QString& what);
    static std::optional<chain::ParsedJson> parseBlockReceiptsJson(const RpcResponse& r,
                                                                   const QString& what);

private:
    RpcResponse call(const QString& method, const QJsonArray& params, bool typed = false);
    // Waits for `call`, deletes it and names this endpoint in each error: its reply, or a
    // batch's replies in request order.
    RpcResponse takeResponse(RpcCall* call);
    QList<RpcResponse> takeResponses(RpcCall* call);
    JsonRpcClient& m_rpc;
};

} // namespace forkscope::rpc
