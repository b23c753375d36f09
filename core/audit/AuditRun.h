#pragma once

#include "AuditError.h"
#include "AuditResult.h"
#include "AuditTarget.h"
#include "BlockComparison.h"
#include "BlockLogsProof.h"
#include "LinkedHeaders.h"
#include "LogDerivedColumns.h"
#include "chain/BloomBitsCache.h"
#include "wire/PartedLogReader.h"

#include <QHash>
#include <QSet>
#include <optional>

namespace forkscope::abi {
class EventRegistry;
}
namespace forkscope::rpc {
class EthClient;
}
namespace forkscope::store {
class ContractReader;
}

namespace forkscope::audit {

class TransferSums;
struct StoredChunk;

// One audit of StoredDataAuditor (its class comment says what is compared): the range
// walked chunk by chunk, the node's last header carried across chunks so that the whole
// range is one linked chain.
class AuditRun
{
public:
    AuditRun(store::ContractReader& db, rpc::EthClient& eth, const AuditTarget& target,
             AuditResult& r, BlockLogsProof* proof)
        : m_db(db), m_eth(eth), m_target(target), m_r(r), m_proof(proof),
          m_contracts(target.contracts.cbegin(), target.contracts.cend()),
          m_headers(eth, kRerun,
                    QStringLiteral(", which the checkpoint covers: it has not reached it (a "
                                   "lagging node) or lost it; verify against a synced node, or "
                                   "run `forkscope index` if the chain was rolled back")),
          m_logs(eth, target.contracts)
    {
        // Each call's answer against its own blocks: a log of the next call's blocks is a
        // lie the chunk-wide checks could not see.
        m_logs.checkAnswer = [this](const QList<chain::LogEntry>& logs, std::uint64_t from,
                                    std::uint64_t to) {
            for (const chain::LogEntry& log : logs)
                if (log.blockNumber < from || log.blockNumber > to)
                    untrusted(QStringLiteral("answered eth_getLogs(%1..%2) with a log of block %3")
                                  .arg(from)
                                  .arg(to)
                                  .arg(log.blockNumber));
        };
    }

    // Audits [a, b]; returns false once the stored chain left the node's (reorged).
    bool chunk(std::uint64_t a, std::uint64_t b);

    const abi::EventRegistry* abi = nullptr;
    TransferSums* sums = nullptr; // each chunk's stored transfers, summed per holder
    // The children the node's factories created (child -> creation block), read up to the
    // range's end before the walk: each chunk's logs are asked for them too.
    QHash<chain::Address, std::uint64_t> nodeChildren;

private:
    // The chunk's `blocks` rows against the headers; the last block whose stored chain is
    // still the node's (nullopt: not even a). Edited rows become holes in `holes`.
    std::optional<std::uint64_t> compareBlockRows(std::uint64_t a, std::uint64_t b,
                                                  const QList<chain::BlockHeader>& headers,
                                                  const StoredChunk& stored,
                                                  QHash<std::uint64_t, AuditHole>& holes);
    // The node's block above `n` (the next chunk's first), for the link that tells an edited
    // hash from a reorg.
    std::optional<chain::Hash32> nodeHashAbove(std::uint64_t n, const chain::BlockHeader& h);
    // The node's logs of ours in [a, last], checked against the request and the headers.
    QHash<std::uint64_t, QList<chain::LogEntry>> nodeLogs(std::uint64_t a, std::uint64_t last,
                                                          const QList<chain::BlockHeader>& headers);
    // Block h's stored logs and transfers against the node's; adds what differs to `hole`.
    void compareBlock(const chain::BlockHeader& h, const QList<chain::LogEntry>& rangeLogs,
                      const StoredChunk& stored, AuditHole& hole);
    // The logs of ours block h is compared with: the range answer's, or the block's proven
    // logs where a proof is plugged in or the range answer may be short (a stored log it
    // lacks; a bloom that admits ours with nothing stored). `rangeShort`: the proven logs
    // hold some the range answer lacked.
    QList<chain::LogEntry> referenceLogs(const chain::BlockHeader& h, const BlockRows& storedRows,
                                         QList<chain::LogEntry> nodeLogs, bool* rangeShort);
    // The columns each stored row derives from its log; each stored transfer summed into
    // `sums` (from its log when it says the same).
    void compareColumns(const QList<chain::LogEntry>& nodeLogs,
                        const QHash<std::uint64_t, StoredLog>& logs,
                        const QHash<std::uint64_t, StoredTransfer>& transfers, AuditHole& hole);

    // The chunk's addresses: the contracts and the children created up to `last`.
    void askFor(std::uint64_t last);
    // The children the node's verified logs of [a, last] create, against the stored
    // `factory_children` rows of those blocks; what differs goes into `holes`.
    void compareChildren(std::uint64_t a, std::uint64_t last,
                         const QHash<std::uint64_t, QList<chain::LogEntry>>& node,
                         QHash<std::uint64_t, AuditHole>& holes);
    [[noreturn]] void untrusted(const QString& what) const;
    // Every log of the block (EIP-234, no address filter), each checked against the request.
    QList<chain::LogEntry> logsByHash(const chain::BlockHeader& h);
    void checkNodeLog(const chain::LogEntry& log, const chain::BlockHeader& h,
                      const QString& asked);
    bool admitsContract(const chain::LogsBloom& bloom);
    bool inBloom(const chain::LogsBloom& bloom, const QString& address, const QStringList& topics);

    store::ContractReader& m_db;
    rpc::EthClient& m_eth;
    const AuditTarget& m_target;
    AuditResult& m_r;
    BlockLogsProof* m_proof;
    QSet<chain::Address> m_contracts;
    static inline const QString kRerun =
        QStringLiteral("a reorg while verifying looks the same: run verify again");
    LinkedHeaders m_headers; // carried across chunks: the range is one linked chain
    // The contracts' logs of each chunk, in calls of about 1,000 logs.
    wire::PartedLogReader m_logs;
    // Each log's address and topics against its block's bloom: four Keccak-256 hashes per
    // Transfer over a few thousand distinct items, kept (BloomBitsCache.h).
    chain::BloomBitsCache m_bloomBits;
};

} // namespace forkscope::audit
