#include "AuditRun.h"
#include "AuditError.h"
#include "BalanceAudit.h"
#include "StoredChunk.h"
#include "chain/ChainParseError.h"
#include "chain/LogsBloom.h"
#include "indexer/TransferDecoder.h"
#include "rpc/EthClient.h"
#include "store/ContractReader.h"

#include <variant>

namespace forkscope::audit {

namespace {

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

} // namespace

void AuditRun::untrusted(const QString& what) const
{
    throwUntrustedNode(m_eth, what, kRerun);
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
    for (const auto& a : m_contracts)
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

std::optional<chain::Hash32> AuditRun::nodeHashAbove(std::uint64_t n, const chain::BlockHeader& h)
{
    const auto above = m_eth.blockByNumber(n + 1);
    if (!above)
        return std::nullopt;
    if (above->number != n + 1)
        untrusted(QStringLiteral("answered block %1 when asked for block %2")
                      .arg(above->number)
                      .arg(n + 1));
    if (above->parentHash != h.hash)
        untrusted(QStringLiteral("serves block %1 with parentHash %2, but its block %3 is %4: "
                                 "headers that do not link")
                      .arg(n + 1)
                      .arg(above->parentHash.toHex())
                      .arg(n)
                      .arg(h.hash.toHex()));
    return above->hash;
}

std::optional<std::uint64_t> AuditRun::compareBlockRows(std::uint64_t a, std::uint64_t b,
                                                        const QList<chain::BlockHeader>& headers,
                                                        const StoredChunk& stored,
                                                        QHash<std::uint64_t, AuditHole>& holes)
{
    for (std::uint64_t n = a; n <= b; ++n) {
        const auto it = stored.blocks.constFind(n);
        if (it == stored.blocks.cend())
            continue;
        ++m_r.storedBlocks;
        const chain::BlockHeader& h = headers.at(qsizetype(n - a));
        if (!h.hash.isHexOf(it->hash)) {
            // The chain moved on at n, unless what is stored above n links to the node's n.
            const auto above = stored.blocks.constFind(n + 1);
            std::optional<chain::Hash32> nodeAbove;
            if (above != stored.blocks.cend())
                nodeAbove = n < b ? headers.at(qsizetype(n + 1 - a)).hash : nodeHashAbove(n, h);
            const std::optional<QString> checkpointHash =
                n == m_target.checkpoint.number ? std::optional(m_target.checkpoint.hash.toHex())
                                                : std::nullopt;
            if (classifyHashMismatch(
                    h.hash, above != stored.blocks.cend() ? std::optional(*above) : std::nullopt,
                    nodeAbove, checkpointHash) == HashMismatch::Reorged) {
                m_r.reorgedAt = n;
                m_r.reorgedStoredHash = it->hash;
                m_r.reorgedNodeHash = h.hash;
                return n == a ? std::nullopt : std::optional(n - 1);
            }
            holes[n].alteredBlockFields << QStringLiteral("block_hash");
            holes[n].blockHashEdited = true;
        }
        if (!h.parentHash.isHexOf(it->parentHash))
            holes[n].alteredBlockFields << QStringLiteral("parent_hash");
        if (it->timestamp != qint64(h.timestamp))
            holes[n].alteredBlockFields << QStringLiteral("block_timestamp");
    }
    return b;
}

QHash<std::uint64_t, QList<chain::LogEntry>>
AuditRun::nodeLogs(std::uint64_t a, std::uint64_t last, const QList<chain::BlockHeader>& headers)
{
    QHash<std::uint64_t, QList<chain::LogEntry>> node;
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
        checkNodeLog(log, headers.at(qsizetype(log.blockNumber - a)), asked);
        if (seen.contains({log.blockNumber, log.logIndex}))
            untrusted(QStringLiteral("answered %1 with log %2 of block %3 twice")
                          .arg(asked)
                          .arg(log.logIndex)
                          .arg(log.blockNumber));
        seen.insert({log.blockNumber, log.logIndex});
        node[log.blockNumber].append(log);
    }
    return node;
}

void AuditRun::compareColumns(const QList<chain::LogEntry>& nodeLogs,
                              const QHash<std::uint64_t, StoredLog>& logs,
                              const QHash<std::uint64_t, StoredTransfer>& transfers,
                              AuditHole& hole)
{
    QSet<std::uint64_t> summed; // transfers summed from their log
    for (const chain::LogEntry& log : nodeLogs) {
        const auto l = logs.constFind(log.logIndex);
        if (l != logs.cend()) {
            // A data or topic edited in place keeps every count right.
            if (const QStringList fields = differingLogFields(*l, log); !fields.isEmpty())
                hole.alteredLogs.add(log.logIndex, fields);
            if (abi) {
                ++m_r.decodingsCompared;
                if (const QStringList fields = differingDecodedFields(*l, log, *abi);
                    !fields.isEmpty())
                    hole.alteredDecodings.add(log.logIndex, fields);
            }
        }
        const auto t = transfers.constFind(log.logIndex);
        if (t == transfers.cend())
            continue;
        ++m_r.transfersCompared;
        const indexer::TransferDecodeResult decoded = indexer::decodeTransfer(log);
        const auto* transfer = std::get_if<indexer::Transfer>(&decoded);
        if (!transfer)
            continue; // an extra transfer row (BlockComparison), summed as stored below
        QString detail;
        const QStringList fields = differingTransferFields(*t, *transfer, &detail);
        if (!fields.isEmpty()) {
            hole.alteredTransfers.add(log.logIndex, fields, detail);
            continue; // summed as stored below: the balances must be the rows' sums
        }
        if (sums) // as the row says, from the log's values already parsed
            sums->add(*transfer);
        summed.insert(log.logIndex);
    }
    if (sums)
        for (auto it = transfers.cbegin(); it != transfers.cend(); ++it)
            if (!summed.contains(it.key()))
                sums->add(*it);
}

QList<chain::LogEntry> AuditRun::referenceLogs(const chain::BlockHeader& h,
                                               const BlockRows& storedRows,
                                               QList<chain::LogEntry> nodeLogs, bool* rangeShort)
{
    const std::uint64_t n = h.number;
    BlockRows nodeRows = rowsOf(nodeLogs);
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
                *rangeShort = true;
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
        return nodeLogs;
    }
    // Every log of the block by hash, proven complete by the header's bloom: a node that
    // cannot give that is not a reference for this block.
    const auto provenByHash = [&] {
        const QList<chain::LogEntry> all = logsByHash(h);
        if (chain::bloom::of(all) != h.logsBloom)
            untrusted(QStringLiteral("hides logs of block %1: the bloom of the %2 logs it returns "
                                     "for the block by hash is not the header's logsBloom")
                          .arg(n)
                          .arg(all.size()));
        adopt(all,
              QStringLiteral("eth_getLogs(blockHash %1 of block %2)").arg(h.hash.toHex()).arg(n));
    };
    // A stored log the range answer lacks: ask for the block by hash before calling the row
    // extra (a provider that truncates or drops must not condemn good data).
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
    return nodeLogs;
}

void AuditRun::compareBlock(const chain::BlockHeader& h, const QList<chain::LogEntry>& rangeLogs,
                            const StoredChunk& stored, AuditHole& hole)
{
    const std::uint64_t n = h.number;
    BlockRows storedRows;
    const QHash<std::uint64_t, StoredLog> logs = stored.logs.value(n);
    storedRows.logIndexes = logs.keys();
    const QHash<std::uint64_t, StoredTransfer> transfers = stored.transfers.value(n);
    storedRows.transferIndexes = transfers.keys();
    bool rangeShort = false;
    const QList<chain::LogEntry> nodeLogs = referenceLogs(h, storedRows, rangeLogs, &rangeShort);
    const BlockRows nodeRows = rowsOf(nodeLogs);
    m_r.nodeLogs += nodeRows.logIndexes.size();
    if (!storedRows.isEmpty() || !nodeRows.isEmpty())
        ++m_r.blocksWithLogs;

    hole.blockRowMissing = !stored.blocks.contains(n);
    audit::compareBlock(storedRows, nodeRows, &hole);
    compareColumns(nodeLogs, logs, transfers, hole);
    hole.rangeAnswerShort = rangeShort && hole.missingLogs > 0;
}

void AuditRun::askFor(std::uint64_t last)
{
    QList<chain::Address> list = m_target.contracts;
    for (auto it = nodeChildren.cbegin(); it != nodeChildren.cend(); ++it)
        if (it.value() <= last)
            list.append(it.key());
    m_contracts = QSet<chain::Address>(list.cbegin(), list.cend());
    m_logs.setContracts(list);
}

void AuditRun::compareChildren(std::uint64_t a, std::uint64_t last,
                               const QHash<std::uint64_t, QList<chain::LogEntry>>& node,
                               QHash<std::uint64_t, AuditHole>& holes)
{
    const auto key = [](const QString& child, qint64 logIndex) {
        return QStringLiteral("%1 (log index %2)").arg(child).arg(logIndex);
    };
    // block -> "child (log index i)" as the node's verified logs create them
    QHash<std::uint64_t, QStringList> onNode;
    for (std::uint64_t n = a; n <= last; ++n) {
        const auto logs = node.constFind(n);
        if (logs == node.cend())
            continue;
        for (const wire::ChildCreation& c : wire::creationsIn(*logs, m_target.factories)) {
            const auto known = nodeChildren.constFind(c.child);
            if (known == nodeChildren.cend() || *known > c.blockNumber)
                untrusted(QStringLiteral("answered block %1 with a creation of child %2 its "
                                         "answer for the factory's creation events lacked")
                              .arg(n)
                              .arg(c.child.toHex()));
            if (*known < c.blockNumber)
                continue; // created before: the first creation counts
            onNode[n] << key(c.child.toHex(), qint64(c.logIndex));
        }
    }
    QHash<std::uint64_t, QStringList> stored;
    for (auto q = m_db.query(QStringLiteral("SELECT block_number, child, log_index FROM "
                                            "factory_children WHERE environment_id = ? AND "
                                            "chain_id = ? AND block_number BETWEEN ? AND ?"),
                             {m_target.environment.id, qint64(m_target.environment.chainId),
                              qint64(a), qint64(last)});
         q->next();)
        stored[q->value(0).toULongLong()] << key(q->value(1).toString(), q->value(2).toLongLong());
    for (std::uint64_t n = a; n <= last; ++n) {
        const QStringList want = onNode.value(n);
        const QStringList have = stored.value(n);
        for (const QString& c : want)
            if (!have.contains(c))
                holes[n].missingChildren << c;
        for (const QString& c : have)
            if (!want.contains(c))
                holes[n].extraChildren << c;
    }
}

bool AuditRun::chunk(std::uint64_t a, std::uint64_t b)
{
    const QList<chain::BlockHeader> headers = m_headers.fetch(a, b);
    const auto header = [&](std::uint64_t n) -> const chain::BlockHeader& {
        return headers.at(qsizetype(n - a));
    };
    m_r.blocksChecked += headers.size();
    const QVariantList scope{m_target.environment.id, qint64(m_target.environment.chainId)};

    // 1. The stored blocks against the headers: the first stored hash that is not the node's
    //    (and that the rows above do not contradict) is where the chain moved on; nothing
    //    from there is compared. One row above the chunk tells an edited hash at its top.
    StoredChunk stored;
    stored.readBlocks(m_db, scope, a, b + 1);
    QHash<std::uint64_t, AuditHole> holes;
    const std::optional<std::uint64_t> compared = compareBlockRows(a, b, headers, stored, holes);
    if (!compared)
        return false;
    const std::uint64_t last = *compared;

    // 2. The node's logs of ours, and the stored rows, each stored log tested against its
    //    block's bloom and hash.
    if (!m_target.factories.isEmpty())
        askFor(last);
    const QHash<std::uint64_t, QList<chain::LogEntry>> node = nodeLogs(a, last, headers);
    if (!m_target.factories.isEmpty())
        compareChildren(a, last, node, holes);
    stored.readLogs(m_db, scope, a, last, abi != nullptr);
    m_r.storedLogs += stored.logRows;
    m_r.storedTransfers += stored.transferRows;
    for (auto block = stored.logs.cbegin(); block != stored.logs.cend(); ++block) {
        const chain::BlockHeader& h = header(block.key());
        for (const StoredLog& log : *block) {
            if (!inBloom(h.logsBloom, log.address, log.topics))
                ++holes[block.key()].logsOutsideBloom;
            if (!h.hash.isHexOf(log.blockHash))
                ++holes[block.key()].logsOfAnotherBlock;
            if (!abi && !log.eventName.isNull())
                m_r.decodedLogsUnchecked = true;
        }
    }
    // 3. Block by block.
    for (std::uint64_t n = a; n <= last; ++n) {
        AuditHole hole = holes.value(n);
        hole.block = n;
        compareBlock(header(n), node.value(n), stored, hole);
        if (!hole.isEmpty())
            m_r.addHole(hole);
    }
    return !m_r.reorgedAt;
}

} // namespace forkscope::audit
