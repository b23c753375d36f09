#include "RebuildCheck.h"
#include "AuditError.h"
#include "BalanceAudit.h"
#include "chain/ChainParseError.h"
#include "indexer/TransferDecoder.h"
#include "rpc/EthClient.h"
#include "store/ContractReader.h"
#include "wire/PartedLogReader.h"

#include <QSet>
#include <map>

namespace forkscope::audit {

namespace {

using LogPos = std::pair<std::uint64_t, std::uint64_t>; // block, log index

// The holders whose balance is not their sum, and what the node is asked for them.
struct Suspects
{
    QSet<indexer::HolderKey> holders;
    QList<chain::Address> contracts;
    QList<chain::Hash32> topics; // each holder as an indexed address topic
    QHash<indexer::HolderKey, QString> why;

    void add(const BalanceFinding& f)
    {
        // A row whose key is not an address has no Transfers to check: the rebuild drops it.
        try {
            const indexer::HolderKey k = indexer::HolderKey::fromHex(f.contract, f.holder);
            if (holders.contains(k))
                return;
            holders.insert(k);
            why.insert(k, f.describe());
            if (!contracts.contains(k.contract))
                contracts.append(k.contract);
            const chain::Hash32 topic = chain::Hash32::fromBytes(
                QByteArray(12, '\0') + k.holder.toByteArray(), QStringLiteral("holder topic"));
            if (!topics.contains(topic))
                topics.append(topic);
        } catch (const chain::ChainParseError&) {
        }
    }
    // The suspect holder a transfer touches, if any.
    std::optional<indexer::HolderKey> touched(const QString& contract, const QString& from,
                                              const QString& to) const
    {
        for (const QString& holder : {from, to}) {
            try {
                const auto k = indexer::HolderKey::fromHex(contract, holder);
                if (holders.contains(k))
                    return k;
            } catch (const chain::ChainParseError&) {
            }
        }
        return std::nullopt;
    }
};

class BelowCheck
{
public:
    BelowCheck(store::ContractReader& reader, rpc::EthClient& eth, const AuditTarget& target,
               std::uint64_t from, const Suspects& suspects)
        : m_reader(reader), m_eth(eth), m_target(target), m_from(from), m_suspects(suspects),
          m_fromSide(eth, suspects.contracts), m_toSide(eth, suspects.contracts)
    {
        m_fromSide.setTopics({{indexer::transferTopic()}, suspects.topics});
        m_toSide.setTopics({{indexer::transferTopic()}, {}, suspects.topics});
    }

    // Blocks [a, b]: every stored Transfer of a suspect holder against the node's.
    qint64 part(std::uint64_t a, std::uint64_t b);

private:
    [[noreturn]] void refuse(const indexer::HolderKey& k, std::uint64_t block,
                             const QString& what) const;
    void readNode(wire::PartedLogReader& side, std::uint64_t a, std::uint64_t b,
                  std::map<LogPos, chain::LogEntry>& into);

    store::ContractReader& m_reader;
    rpc::EthClient& m_eth;
    const AuditTarget& m_target;
    const std::uint64_t m_from;
    const Suspects& m_suspects;
    wire::PartedLogReader m_fromSide;
    wire::PartedLogReader m_toSide;
};

void BelowCheck::refuse(const indexer::HolderKey& k, std::uint64_t block, const QString& what) const
{
    throw AuditError(AuditError::Kind::BadRange,
                     QStringLiteral("%1, and a balance it feeds is not the sum of its stored "
                                    "Transfers (%2): a repair from block %3 would rebuild that "
                                    "balance from the Transfers below block %3, this one "
                                    "included, and make it wrong; repair from block %4 instead "
                                    "(`forkscope verify` lists every finding); nothing was "
                                    "changed")
                         .arg(what, m_suspects.why.value(k))
                         .arg(m_from)
                         .arg(block));
}

void BelowCheck::readNode(wire::PartedLogReader& side, std::uint64_t a, std::uint64_t b,
                          std::map<LogPos, chain::LogEntry>& into)
{
    const QSet<chain::Address> contracts(m_suspects.contracts.cbegin(),
                                         m_suspects.contracts.cend());
    for (chain::LogEntry& log : side.read(a, b)) {
        if (log.removed || log.blockNumber < a || log.blockNumber > b ||
            !contracts.contains(log.address) || log.topics.isEmpty() ||
            log.topics.front() != indexer::transferTopic())
            throw AuditError(AuditError::Kind::NodeUntrusted,
                             QStringLiteral("node %1 answered eth_getLogs(%2..%3) for the "
                                            "Transfers of the holders to check with log %4 of "
                                            "block %5, which was not asked for; nothing was "
                                            "changed")
                                 .arg(m_eth.endpointText())
                                 .arg(a)
                                 .arg(b)
                                 .arg(log.logIndex)
                                 .arg(log.blockNumber));
        into.insert_or_assign(log.position(), std::move(log));
    }
}

qint64 BelowCheck::part(std::uint64_t a, std::uint64_t b)
{
    std::map<LogPos, chain::LogEntry> node;
    readNode(m_fromSide, a, b, node);
    readNode(m_toSide, a, b, node);
    std::map<LogPos, std::pair<indexer::HolderKey, StoredTransfer>> stored;
    const QVariantList scope{m_target.environment.id, qint64(m_target.environment.chainId)};
    forEachStoredTransfer(m_reader, scope, a, b,
                          [&](std::uint64_t block, std::uint64_t index, const StoredTransfer& t) {
                              if (const auto k = m_suspects.touched(t.contract, t.from, t.to))
                                  stored.insert({{block, index}, {*k, t}});
                          });
    for (const auto& [pos, log] : node) {
        const indexer::TransferDecodeResult decoded = indexer::decodeTransfer(log);
        const auto* t = std::get_if<indexer::Transfer>(&decoded);
        const auto k = t ? m_suspects.touched(t->contract.toHex(), t->from.toHex(), t->to.toHex())
                         : std::nullopt;
        if (!k)
            continue; // another contract's holder, or no ERC-20 Transfer
        const auto it = stored.find(pos);
        if (it == stored.end())
            refuse(*k, pos.first,
                   QStringLiteral("the node's Transfer at block %1 (log index %2) is not stored")
                       .arg(pos.first)
                       .arg(pos.second));
        QString detail;
        const QStringList fields = differingTransferFields(it->second.second, log, &detail);
        if (!fields.isEmpty())
            refuse(it->second.first, pos.first,
                   QStringLiteral("the stored Transfer at block %1 (log index %2) is not the "
                                  "node's log: %3%4")
                       .arg(pos.first)
                       .arg(pos.second)
                       .arg(fields.join(QStringLiteral(", ")),
                            detail.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(detail)));
        stored.erase(it);
    }
    if (!stored.empty()) {
        const auto& [pos, row] = *stored.begin();
        refuse(row.first, pos.first,
               QStringLiteral("the stored Transfer at block %1 (log index %2) is not on the node")
                   .arg(pos.first)
                   .arg(pos.second));
    }
    return qint64(node.size());
}

} // namespace

RebuildCheck checkRebuildBelow(store::ContractReader& reader, rpc::EthClient& eth,
                               const AuditTarget& target, std::uint64_t from)
{
    RebuildCheck out;
    const indexer::Checkpoint& cp = target.checkpoint;
    const QVariantList scope{target.environment.id, qint64(target.environment.chainId)};
    const auto snapshot = reader.snapshot();
    TransferSums sums;
    sums.addStored(reader, scope, cp.startBlock, cp.number);
    AuditResult balances;
    checkBalances(reader, scope, sums, balances);
    out.wrongBalances = balances.balanceFindingCount;
    // Nothing stored below `from` is kept: nothing there to trust.
    if (balances.balanceFindingCount == 0 || from <= cp.startBlock)
        return out;
    if (balances.balanceFindingCount > kMaxHoldersChecked)
        throw AuditError(AuditError::Kind::BadRange,
                         QStringLiteral("%1 balances of environment %2 are not the sum of their "
                                        "stored Transfers, too many to check each holder's "
                                        "Transfers against the node: repair from the start block "
                                        "%3, which keeps nothing stored; nothing was changed")
                             .arg(balances.balanceFindingCount)
                             .arg(target.environment.id)
                             .arg(cp.startBlock));
    Suspects suspects;
    for (const BalanceFinding& f : std::as_const(balances.balanceFindings))
        suspects.add(f);
    if (suspects.holders.isEmpty())
        return out;
    BelowCheck check(reader, eth, target, from, suspects);
    const std::uint64_t last = std::min(from - 1, cp.number);
    try {
        for (std::uint64_t a = cp.startBlock; a <= last; a += kBlocksPerCheck) {
            out.transfersChecked += check.part(a, std::min(last, a + kBlocksPerCheck - 1));
            if (last - a < kBlocksPerCheck)
                break;
        }
    } catch (const rpc::RpcException& e) {
        throw AuditError(AuditError::Kind::NodeUnavailable,
                         QStringLiteral("node %1 did not answer while the Transfers below block "
                                        "%2 of the holders whose balance is wrong were checked "
                                        "(%3); nothing was changed")
                             .arg(eth.endpointText())
                             .arg(from)
                             .arg(e.error().toString()));
    }
    return out;
}

} // namespace forkscope::audit
