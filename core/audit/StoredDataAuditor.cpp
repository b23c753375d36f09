#include "StoredDataAuditor.h"
#include "AuditError.h"
#include "BlockComparison.h"
#include "chain/BloomBitsCache.h"
#include "chain/ChainParseError.h"
#include "chain/Hex.h"
#include "chain/LogsBloom.h"
#include "indexer/TransferDecoder.h"
#include "rpc/EthClient.h"
#include "store/ContractReader.h"
#include "wire/PartedLogReader.h"

#include <QHash>
#include <QSet>
#include <QSqlQuery>
#include <variant>

namespace forkscope::audit {

namespace {

constexpr std::uint64_t kHeadersPerBatch = 100;

bool isTransfer(const chain::LogEntry& log)
{
    return std::holds_alternative<indexer::Transfer>(indexer::decodeTransfer(log));
}

BlockRows rowsOf(const QList<chain::LogEntry>& logs)
{
    BlockRows rows;
    for (const auto& log : logs) {
        rows.logIndexes.append(log.logIndex);
        if (isTransfer(log))
            rows.transferIndexes.append(log.logIndex);
    }
    return rows;
}

// A stored log as the `logs` view reads: lowercase 0x hex.
struct StoredLog
{
    QString address;
    QStringList topics;
    QString data;
    QString txHash;
};

// Which fields of a stored row differ from the node's log of the same index.
QStringList differingFields(const StoredLog& stored, const chain::LogEntry& log)
{
    QStringList fields;
    if (stored.address != log.address.toHex())
        fields << QStringLiteral("address");
    QStringList topics;
    for (const auto& t : log.topics)
        topics << t.toHex();
    if (stored.topics != topics)
        fields << QStringLiteral("topics");
    if (stored.data != chain::hex::encodeData(log.data))
        fields << QStringLiteral("data");
    if (stored.txHash != log.transactionHash.toHex())
        fields << QStringLiteral("tx_hash");
    return fields;
}

// One audit: the range walked chunk by chunk, the node's last header carried across chunks
// so that the whole range is one linked chain.
class AuditRun
{
public:
    AuditRun(store::ContractReader& db, rpc::EthClient& eth, const AuditTarget& target,
             AuditResult& r, BlockLogsProof* proof)
        : m_db(db), m_eth(eth), m_target(target), m_r(r), m_proof(proof),
          m_contracts(target.contracts.cbegin(), target.contracts.cend()),
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

private:
    [[noreturn]] void untrusted(const QString& what) const
    {
        throw AuditError(AuditError::Kind::NodeUntrusted,
                         QStringLiteral("node %1 %2; it cannot serve as the reference, nothing "
                                        "was concluded (a reorg while verifying looks the same: "
                                        "run verify again)")
                             .arg(m_eth.endpointText(), what));
    }
    QList<chain::BlockHeader> fetchHeaders(std::uint64_t a, std::uint64_t b);
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
    std::optional<chain::Hash32> m_lastHash; // the node's block below the next chunk
    // The contracts' logs of each chunk, in calls of about 1,000 logs.
    wire::PartedLogReader m_logs;
    // Each log's address and topics against its block's bloom: four Keccak-256 hashes per
    // Transfer over a few thousand distinct items, kept (BloomBitsCache.h).
    chain::BloomBitsCache m_bloomBits;
};

QList<chain::BlockHeader> AuditRun::fetchHeaders(std::uint64_t a, std::uint64_t b)
{
    QList<chain::BlockHeader> out;
    out.reserve(qsizetype(b - a + 1));
    for (std::uint64_t s = a; s <= b; s += kHeadersPerBatch) {
        const std::uint64_t e = std::min(b, s + kHeadersPerBatch - 1);
        const auto headers = m_eth.blocksByNumber(s, e);
        if (std::uint64_t(headers.size()) != e - s + 1)
            untrusted(QStringLiteral("answered %1 headers for blocks %2..%3")
                          .arg(headers.size())
                          .arg(s)
                          .arg(e));
        for (qsizetype i = 0; i < headers.size(); ++i) {
            const std::uint64_t n = s + std::uint64_t(i);
            if (!headers[i])
                throw AuditError(AuditError::Kind::NodeUnavailable,
                                 QStringLiteral("node %1 answered null for block %2, which the "
                                                "checkpoint covers: it has not reached it (a "
                                                "lagging node) or lost it; verify against a "
                                                "synced node, or run `forkscope index` if the "
                                                "chain was rolled back")
                                     .arg(m_eth.endpointText())
                                     .arg(n));
            const chain::BlockHeader& h = *headers[i];
            if (h.number != n)
                untrusted(QStringLiteral("answered block %1 when asked for block %2")
                              .arg(h.number)
                              .arg(n));
            if (m_lastHash && h.parentHash != *m_lastHash)
                untrusted(QStringLiteral("serves block %1 with parentHash %2, but its block %3 "
                                         "is %4: headers that do not link")
                              .arg(n)
                              .arg(h.parentHash.toHex())
                              .arg(n - 1)
                              .arg(m_lastHash->toHex()));
            m_lastHash = h.hash;
            out.append(h);
        }
    }
    return out;
}

QList<chain::LogEntry> AuditRun::logsByHash(const chain::BlockHeader& h)
{
    rpc::LogFilter f;
    f.blockHash = h.hash;
    ++m_r.byHashFetches;
    const QList<chain::LogEntry> logs = m_eth.getLogs(f);
    // Logs of ours are checked where they are adopted; every log must be of this block.
    for (const auto& log : logs)
        if (log.removed || log.blockHash != h.hash || log.blockNumber != h.number)
            untrusted(QStringLiteral("answered eth_getLogs(blockHash %1 of block %2) with a log "
                                     "of block %3 (%4)")
                          .arg(h.hash.toHex())
                          .arg(h.number)
                          .arg(log.blockNumber)
                          .arg(log.blockHash.toHex()));
    return logs;
}

// A log of ours as the node gave it must answer the request and agree with the header.
void AuditRun::checkNodeLog(const chain::LogEntry& log, const chain::BlockHeader& h,
                            const QString& asked)
{
    const QString which =
        QStringLiteral("log %1 of block %2").arg(log.logIndex).arg(log.blockNumber);
    if (log.removed)
        untrusted(QStringLiteral("answered %1 with %2 marked removed").arg(asked, which));
    if (!m_contracts.contains(log.address))
        untrusted(QStringLiteral("answered %1 with %2 from address %3, which was not requested")
                      .arg(asked, which, log.address.toHex()));
    if (log.blockHash != h.hash)
        untrusted(QStringLiteral("answered %1 with %2 carrying block hash %3, but the block's "
                                 "header is %4")
                      .arg(asked, which, log.blockHash.toHex(), h.hash.toHex()));
    if (!m_bloomBits.mayContain(h.logsBloom, log))
        untrusted(QStringLiteral("answered %1 with %2, which its block's logsBloom rules out")
                      .arg(asked, which));
}

bool AuditRun::admitsContract(const chain::LogsBloom& bloom)
{
    for (const auto& a : m_target.contracts)
        if (chain::bloom::mayContain(bloom, m_bloomBits.bitsOf(a)))
            return true;
    return false;
}

bool AuditRun::inBloom(const chain::LogsBloom& bloom, const QString& address,
                       const QStringList& topics)
{
    try {
        if (!chain::bloom::mayContain(bloom, m_bloomBits.bitsOf(chain::Address::fromHex(
                                                 address, QStringLiteral("address")))))
            return false;
        for (const QString& t : topics)
            if (!chain::bloom::mayContain(
                    bloom, m_bloomBits.bitsOf(chain::Hash32::fromHex(t, QStringLiteral("topic")))))
                return false;
    } catch (const chain::ChainParseError&) {
        return false; // not even an address or a hash: no honest row looks like that
    }
    return true;
}

bool AuditRun::chunk(std::uint64_t a, std::uint64_t b)
{
    const QList<chain::BlockHeader> headers = fetchHeaders(a, b);
    const auto header = [&](std::uint64_t n) -> const chain::BlockHeader& {
        return headers.at(qsizetype(n - a));
    };
    m_r.blocksChecked += headers.size();
    const QVariantList scope{m_target.environment.id, qint64(m_target.environment.chainId)};

    // 1. Stored hashes against the node's: the first that differs is where the chain moved
    //    on; nothing from there is compared.
    QHash<std::uint64_t, QString> storedHash;
    {
        const auto q = m_db.query(QStringLiteral("SELECT block_number, block_hash FROM blocks "
                                                 "WHERE environment_id = ? AND chain_id = ? AND "
                                                 "block_number BETWEEN ? AND ?"),
                                  scope + QVariantList{qint64(a), qint64(b)});
        while (q->next())
            storedHash.insert(q->value(0).toULongLong(), q->value(1).toString());
    }
    m_r.storedBlocks += storedHash.size();
    std::uint64_t last = b;
    for (std::uint64_t n = a; n <= b; ++n) {
        const auto it = storedHash.constFind(n);
        if (it != storedHash.cend() && *it != header(n).hash.toHex()) {
            m_r.reorgedAt = n;
            m_r.reorgedStoredHash = *it;
            m_r.reorgedNodeHash = header(n).hash;
            if (n == a)
                return false;
            last = n - 1;
            break;
        }
    }

    // 2. The node's logs of ours, checked against the request and the headers.
    QHash<std::uint64_t, QList<chain::LogEntry>> node;
    {
        const QString asked = QStringLiteral("eth_getLogs(%1..%2)").arg(a).arg(last);
        QSet<QPair<std::uint64_t, std::uint64_t>> seen;
        const qint64 callsBefore = m_logs.calls();
        const QList<chain::LogEntry> logs = m_logs.read(a, last);
        m_r.getLogsCalls += m_logs.calls() - callsBefore;
        for (const chain::LogEntry& log : logs) {
            if (log.blockNumber < a || log.blockNumber > last)
                untrusted(QStringLiteral("answered %1 with a log of block %2")
                              .arg(asked)
                              .arg(log.blockNumber));
            checkNodeLog(log, header(log.blockNumber), asked);
            if (seen.contains({log.blockNumber, log.logIndex}))
                untrusted(QStringLiteral("answered %1 with log %2 of block %3 twice")
                              .arg(asked)
                              .arg(log.logIndex)
                              .arg(log.blockNumber));
            seen.insert({log.blockNumber, log.logIndex});
            node[log.blockNumber].append(log);
        }
    }

    // 3. The stored rows, each stored log tested against its block's bloom and hash.
    QHash<std::uint64_t, BlockRows> stored;
    QHash<std::uint64_t, QHash<std::uint64_t, StoredLog>> storedContent;
    QHash<std::uint64_t, AuditHole> corrupt;
    {
        const auto q = m_db.query(QStringLiteral("SELECT block_number, log_index, block_hash, "
                                                 "address, topic0, topic1, topic2, topic3, data, "
                                                 "tx_hash FROM logs WHERE environment_id = ? AND "
                                                 "chain_id = ? AND block_number BETWEEN ? AND ?"),
                                  scope + QVariantList{qint64(a), qint64(last)});
        while (q->next()) {
            const std::uint64_t n = q->value(0).toULongLong();
            ++m_r.storedLogs;
            stored[n].logIndexes.append(q->value(1).toULongLong());
            QStringList topics;
            for (int t = 4; t < 8; ++t)
                if (!q->value(t).isNull())
                    topics << q->value(t).toString();
            storedContent[n].insert(q->value(1).toULongLong(),
                                    StoredLog{q->value(3).toString(), topics,
                                              q->value(8).toString(), q->value(9).toString()});
            const chain::BlockHeader& h = header(n);
            if (!inBloom(h.logsBloom, q->value(3).toString(), topics))
                ++corrupt[n].logsOutsideBloom;
            if (q->value(2).toString() != h.hash.toHex())
                ++corrupt[n].logsOfAnotherBlock;
        }
    }
    {
        const auto q = m_db.query(QStringLiteral("SELECT block_number, log_index FROM "
                                                 "transfer_events WHERE environment_id = ? AND "
                                                 "chain_id = ? AND block_number BETWEEN ? AND ?"),
                                  scope + QVariantList{qint64(a), qint64(last)});
        while (q->next()) {
            ++m_r.storedTransfers;
            stored[q->value(0).toULongLong()].transferIndexes.append(q->value(1).toULongLong());
        }
    }

    // 4. Block by block.
    for (std::uint64_t n = a; n <= last; ++n) {
        const chain::BlockHeader& h = header(n);
        const BlockRows storedRows = stored.value(n);
        QList<chain::LogEntry> nodeLogs = node.value(n);
        BlockRows nodeRows = rowsOf(nodeLogs);
        bool rangeShort = false;
        // A whole block's logs from a source that proves them (the block by hash with the
        // header's bloom, or a BlockLogsProof) replace the range answer for that block.
        const auto adopt = [&](const QList<chain::LogEntry>& logs, const QString& asked) {
            QList<chain::LogEntry> ours;
            for (const auto& log : logs) {
                if (!m_contracts.contains(log.address))
                    continue;
                checkNodeLog(log, h, asked);
                ours.append(log);
                if (!nodeRows.logIndexes.contains(log.logIndex))
                    rangeShort = true;
            }
            nodeLogs = ours;
            nodeRows = rowsOf(nodeLogs);
        };
        const bool suspect = storedRows.logIndexes.isEmpty() && nodeRows.logIndexes.isEmpty() &&
                             admitsContract(h.logsBloom);
        if (m_proof) {
            // The proof's logs are the block's, whatever the range answer said.
            if (suspect || !storedRows.isEmpty() || !nodeRows.isEmpty()) {
                adopt(m_proof->provenLogs(h),
                      QStringLiteral("its %1 proof of block %2").arg(m_proof->name()).arg(n));
                ++m_r.provenBlocks;
            }
            if (suspect) {
                ++m_r.bloomSuspects;
                if (nodeRows.logIndexes.isEmpty())
                    ++m_r.bloomFalsePositives;
            }
        } else {
            // Every log of the block by hash, proven complete by the header's bloom: a node
            // that cannot give that is not a reference for this block.
            const auto provenByHash = [&] {
                const QList<chain::LogEntry> all = logsByHash(h);
                if (chain::bloom::of(all) != h.logsBloom)
                    untrusted(QStringLiteral("hides logs of block %1: the bloom of the %2 logs "
                                             "it returns for the block by hash is not the "
                                             "header's logsBloom")
                                  .arg(n)
                                  .arg(all.size()));
                adopt(all, QStringLiteral("eth_getLogs(blockHash %1 of block %2)")
                               .arg(h.hash.toHex())
                               .arg(n));
            };
            // A stored log the range answer lacks: ask for the block by hash before calling
            // the row extra (a provider that truncates or drops must not condemn good data).
            for (std::uint64_t i : storedRows.logIndexes)
                if (!nodeRows.logIndexes.contains(i)) {
                    provenByHash();
                    break;
                }
            // The bloom: it admits one of ours, yet nothing of ours is stored.
            if (suspect) {
                ++m_r.bloomSuspects;
                provenByHash();
                if (nodeRows.logIndexes.isEmpty())
                    ++m_r.bloomFalsePositives;
            }
        }
        m_r.nodeLogs += nodeRows.logIndexes.size();
        if (!storedRows.isEmpty() || !nodeRows.isEmpty())
            ++m_r.blocksWithLogs;

        AuditHole hole = corrupt.value(n);
        hole.block = n;
        hole.blockRowMissing = !storedHash.contains(n);
        const bool differs = compareBlock(storedRows, nodeRows, &hole);
        // The rows both sides have must say the same (a data or topic edited in place keeps
        // every count right).
        const QHash<std::uint64_t, StoredLog> content = storedContent.value(n);
        for (const chain::LogEntry& log : nodeLogs) {
            const auto it = content.constFind(log.logIndex);
            if (it == content.cend())
                continue;
            const QStringList fields = differingFields(*it, log);
            if (fields.isEmpty())
                continue;
            ++hole.alteredLogs;
            if (hole.alteredLogIndexes.size() < 8)
                hole.alteredLogIndexes.append(log.logIndex);
            for (const QString& f : fields)
                if (!hole.alteredFields.contains(f))
                    hole.alteredFields.append(f);
        }
        hole.rangeAnswerShort = rangeShort && hole.missingLogs > 0;
        if (differs || hole.blockRowMissing || hole.logsOutsideBloom > 0 ||
            hole.logsOfAnotherBlock > 0 || hole.alteredLogs > 0)
            m_r.addHole(hole);
    }
    return !m_r.reorgedAt;
}

} // namespace

AuditResult StoredDataAuditor::audit(const AuditTarget& target, const AuditRange& range)
{
    AuditResult r;
    r.environmentId = target.environment.id;
    r.chainId = target.environment.chainId;
    r.node = m_eth.endpointText();
    r.from = range.from;
    r.to = range.to;
    const auto snapshot = m_reader.snapshot();
    if (m_proof)
        r.proofName = m_proof->name();
    AuditRun run(m_reader, m_eth, target, r, m_proof);
    std::uint64_t a = range.from;
    try {
        for (; a <= range.to; a += m_chunk) {
            const std::uint64_t b = std::min(range.to, a + m_chunk - 1);
            const bool onChain = run.chunk(a, b);
            if (onChunk)
                onChunk(r, onChain ? b : *r.reorgedAt - 1);
            if (!onChain)
                break;
            if (b == range.to)
                break; // a + m_chunk could wrap past 2^64 at the very top
        }
    } catch (const rpc::RpcException& e) {
        throw AuditError(AuditError::Kind::NodeUnavailable,
                         QStringLiteral("node %1 did not answer while blocks %2..%3 were checked "
                                        "(%4); nothing was concluded about them, run verify "
                                        "again")
                             .arg(r.node)
                             .arg(a)
                             .arg(std::min(range.to, a + m_chunk - 1))
                             .arg(e.error().toString()));
    }
    if (r.reorgedAt)
        r.reorgedBlocks = qint64(range.to - *r.reorgedAt + 1);
    return r;
}

} // namespace forkscope::audit
