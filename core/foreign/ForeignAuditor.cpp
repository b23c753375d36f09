#include "ForeignAuditor.h"
#include "ForeignError.h"
#include "ForeignRow.h"
#include "ForeignTable.h"
#include "ForeignValue.h"
#include "audit/AuditError.h"
#include "audit/BlockLogsProof.h"
#include "chain/LogsBloom.h"
#include "indexer/TransferDecoder.h"
#include "rpc/EthClient.h"
#include "wire/PartedLogReader.h"

#include <variant>

namespace forkscope::foreign {

namespace {
const QString kRerun = QStringLiteral("a reorg while auditing looks the same: run the audit again");

std::optional<NodeTransfer> transferOf(const chain::LogEntry& log)
{
    const indexer::TransferDecodeResult d = indexer::decodeTransfer(log);
    const auto* t = std::get_if<indexer::Transfer>(&d);
    if (!t)
        return std::nullopt; // the Transfer topic without an ERC-20 Transfer's layout
    return NodeTransfer{log.logIndex, log.transactionHash, t->contract, t->from, t->to, t->value};
}

} // namespace

ForeignAuditor::ForeignAuditor(ForeignTable& table, rpc::EthClient& eth,
                               QList<chain::Address> contracts)
    : m_table(table), m_eth(eth), m_contractList(std::move(contracts)),
      m_contracts(m_contractList.cbegin(), m_contractList.cend()), m_audited(m_contractList),
      m_headers(eth, kRerun,
                QStringLiteral(": it has not reached it (a lagging node?); audit against a "
                               "synced node")),
      m_logs(eth, m_contractList)
{
    m_logs.setTopics({{indexer::transferTopic()}});
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

void ForeignAuditor::untrusted(const QString& what) const
{
    audit::throwUntrustedNode(m_eth, what, kRerun);
}

ForeignRange ForeignAuditor::resolveRange(ForeignTable& table, const QString& query,
                                          std::optional<std::uint64_t> from,
                                          std::optional<std::uint64_t> to, std::uint64_t head,
                                          std::uint64_t confirmations)
{
    ForeignRange range;
    std::optional<std::uint64_t> highest;
    if (!from || !to) {
        const auto span = table.blockNumberSpan(query);
        if (!span)
            throw ForeignError(ForeignError::Kind::BadQuery,
                               QStringLiteral("the query yields no row on %1: give --from-block "
                                              "and --to-block to audit a range that should hold "
                                              "none")
                                   .arg(table.describe()));
        if (!from)
            from = span->first;
        highest = span->second;
    }
    const std::uint64_t safe = head >= confirmations ? head - confirmations : 0;
    range.from = *from;
    range.to = to ? *to : std::min(*highest, safe);
    if (!to && *highest > safe)
        range.rowsAbove = safe;
    if (to && *to > safe)
        throw ForeignError(ForeignError::Kind::BadQuery,
                           QStringLiteral("--to-block %1 is above the node's head %2 minus %3 "
                                          "confirmations (%4)")
                               .arg(*to)
                               .arg(head)
                               .arg(confirmations)
                               .arg(safe));
    if (range.from > range.to)
        throw ForeignError(ForeignError::Kind::BadQuery,
                           QStringLiteral("nothing to audit: the first block %1 is above the "
                                          "last %2 (the node's head %3 minus %4 confirmations)")
                               .arg(range.from)
                               .arg(range.to)
                               .arg(head)
                               .arg(confirmations));
    return range;
}

bool ForeignAuditor::isOurTransfer(const chain::LogEntry& log) const
{
    return m_contracts.contains(log.address) && !log.topics.isEmpty() &&
           log.topics.first() == indexer::transferTopic();
}

bool ForeignAuditor::admitsOurTransfer(const chain::LogsBloom& bloom)
{
    if (!chain::bloom::mayContain(bloom, m_bloomBits.bitsOf(indexer::transferTopic())))
        return false;
    for (const chain::Address& a : m_audited)
        if (chain::bloom::mayContain(bloom, m_bloomBits.bitsOf(a)))
            return true;
    return false;
}

void ForeignAuditor::learnChildren(std::uint64_t to, ForeignAuditResult& r)
{
    wire::PartedLogReader reader(m_eth, {m_factory->factory()});
    reader.setTopics({{m_factory->topic0()}});
    reader.checkAnswer = m_logs.checkAnswer;
    m_creations.clear();
    m_childBlock.clear();
    m_audited = m_contractList;
    m_contracts = QSet<chain::Address>(m_contractList.cbegin(), m_contractList.cend());
    for (const chain::LogEntry& log : reader.read(0, to)) {
        if (log.address != m_factory->factory())
            untrusted(QStringLiteral("answered eth_getLogs for the factory %1 with a log of %2")
                          .arg(m_factory->factory().toHex(), log.address.toHex()));
        const auto c = m_factory->creationOf(log);
        if (!c)
            continue; // the topic, without the creation event's layout
        m_creations.append(log);
        if (m_childBlock.contains(c->child))
            continue;
        m_childBlock.insert(c->child, c->blockNumber);
        if (!m_contracts.contains(c->child)) {
            m_contracts.insert(c->child);
            m_audited.append(c->child);
        }
    }
    r.getLogsCalls += reader.calls();
    r.factory = m_factory->factory().toHex();
    r.children = m_childBlock.size();
}

QList<chain::Address> ForeignAuditor::askedThrough(std::uint64_t block) const
{
    QList<chain::Address> out = m_contractList;
    for (auto it = m_childBlock.cbegin(); it != m_childBlock.cend(); ++it)
        if (it.value() <= block && !out.contains(it.key()))
            out.append(it.key());
    return out;
}

void ForeignAuditor::checkNodeLog(const chain::LogEntry& log, const chain::BlockHeader& h,
                                  const QString& asked)
{
    const QString which =
        QStringLiteral("log %1 of block %2").arg(log.logIndex).arg(log.blockNumber);
    if (log.removed)
        untrusted(QStringLiteral("answered %1 with %2 marked removed").arg(asked, which));
    if (log.blockNumber != h.number || log.blockHash != h.hash)
        untrusted(QStringLiteral("answered %1 with %2 carrying block hash %3, but the block's "
                                 "header is %4")
                      .arg(asked, which, log.blockHash.toHex(), h.hash.toHex()));
    if (!m_bloomBits.mayContain(h.logsBloom, log))
        untrusted(QStringLiteral("answered %1 with %2, which its block's logsBloom rules out")
                      .arg(asked, which));
}

QList<chain::LogEntry> ForeignAuditor::logsByHash(const chain::BlockHeader& h,
                                                  ForeignAuditResult& r)
{
    rpc::LogFilter f;
    f.blockHash = h.hash;
    ++r.byHashFetches;
    const QList<chain::LogEntry> logs = m_eth.getLogs(f);
    const QString asked =
        QStringLiteral("eth_getLogs(blockHash %1 of block %2)").arg(h.hash.toHex()).arg(h.number);
    for (const auto& log : logs)
        checkNodeLog(log, h, asked);
    // Every log of the block, or the bloom recomputed from them is not the header's.
    if (chain::bloom::of(logs) != h.logsBloom)
        untrusted(QStringLiteral("hides logs of block %1: the bloom of the %2 logs it returns for "
                                 "the block by hash is not the header's logsBloom")
                      .arg(h.number)
                      .arg(logs.size()));
    return logs;
}

QList<chain::LogEntry>
ForeignAuditor::referenceLogs(const chain::BlockHeader& h, const QList<chain::LogEntry>& rangeLogs,
                              const QList<ForeignRow>& rows, ForeignAuditResult& r,
                              QHash<QPair<chain::Hash32, std::uint64_t>, std::uint64_t>* positions)
{
    QSet<std::uint64_t> inRange;
    for (const auto& log : rangeLogs)
        inRange.insert(log.logIndex);
    bool needAll = false;
    for (const ForeignRow& row : rows)
        if (!row.logIndex || !inRange.contains(*row.logIndex))
            needAll = true; // a position to resolve, or a row the range answer may have missed
    const bool suspect = rows.isEmpty() && rangeLogs.isEmpty() && admitsOurTransfer(h.logsBloom);
    if (!needAll && !suspect && !m_proof)
        return rangeLogs;
    if (m_proof && rows.isEmpty() && rangeLogs.isEmpty() && !suspect)
        return rangeLogs;

    QList<chain::LogEntry> all;
    if (m_proof) {
        all = m_proof->provenLogs(h);
        ++r.provenBlocks;
        const QString asked =
            QStringLiteral("its %1 proof of block %2").arg(m_proof->name()).arg(h.number);
        for (const auto& log : all)
            checkNodeLog(log, h, asked);
    } else {
        all = logsByHash(h, r);
    }
    QHash<chain::Hash32, std::uint64_t> placeInTx;
    QList<chain::LogEntry> ours;
    for (const auto& log : all) {
        positions->insert({log.transactionHash, placeInTx[log.transactionHash]++}, log.logIndex);
        if (isOurTransfer(log))
            ours.append(log);
    }
    if (suspect) {
        ++r.bloomSuspects;
        if (ours.isEmpty())
            ++r.bloomFalsePositives;
    }
    return ours;
}

void ForeignAuditor::chunk(const QString& query, const ForeignColumns& columns, std::uint64_t a,
                           std::uint64_t b, ForeignAuditResult& r)
{
    const QList<chain::BlockHeader> headers = m_headers.fetch(a, b);
    r.blocksChecked += headers.size();
    if (m_factory) {
        // The creation events of these blocks are the chain's too, or nothing is concluded.
        for (const chain::LogEntry& log : m_creations)
            if (log.blockNumber >= a && log.blockNumber <= b)
                checkNodeLog(log, headers.at(qsizetype(log.blockNumber - a)),
                             QStringLiteral("eth_getLogs for the factory's creation events"));
        m_logs.setContracts(askedThrough(b));
    }

    QHash<std::uint64_t, QList<ForeignRow>> rows;
    m_table.rowsBetween(query, a, b, kMaxRowsPerChunk, [&](const ForeignCells& cells) {
        ForeignRow row = columns.read(cells);
        ++r.rowsRead;
        if (!m_contracts.contains(row.contract)) {
            ++r.rowsOfOtherContracts;
            return;
        }
        rows[row.block].append(std::move(row));
    });

    const qint64 callsBefore = m_logs.calls();
    const QList<chain::LogEntry> logs = m_logs.read(a, b);
    r.getLogsCalls += m_logs.calls() - callsBefore;
    const QString asked = QStringLiteral("eth_getLogs(%1..%2)").arg(a).arg(b);
    QHash<std::uint64_t, QList<chain::LogEntry>> node;
    QSet<QPair<std::uint64_t, std::uint64_t>> seen;
    for (const chain::LogEntry& log : logs) {
        if (!isOurTransfer(log))
            untrusted(QStringLiteral("answered %1 with log %2 of block %3, not a Transfer of the "
                                     "contracts asked")
                          .arg(asked)
                          .arg(log.logIndex)
                          .arg(log.blockNumber));
        checkNodeLog(log, headers.at(qsizetype(log.blockNumber - a)), asked);
        if (seen.contains(log.position()))
            untrusted(QStringLiteral("answered %1 with log %2 of block %3 twice")
                          .arg(asked)
                          .arg(log.logIndex)
                          .arg(log.blockNumber));
        seen.insert(log.position());
        node[log.blockNumber].append(log);
    }

    for (std::uint64_t n = a; n <= b; ++n) {
        const chain::BlockHeader& h = headers.at(qsizetype(n - a));
        QList<ForeignRow> blockRows = rows.value(n);
        QHash<QPair<chain::Hash32, std::uint64_t>, std::uint64_t> positions;
        const QList<chain::LogEntry> reference =
            referenceLogs(h, node.value(n), blockRows, r, &positions);
        for (ForeignRow& row : blockRows)
            if (!row.logIndex) {
                const auto at = positions.constFind({*row.txHash, *row.txPosition});
                if (at != positions.cend())
                    row.logIndex = *at;
            }
        QList<NodeTransfer> transfers;
        for (const chain::LogEntry& log : reference)
            if (const auto t = transferOf(log)) {
                transfers.append(*t);
                if (m_sum)
                    sumTransfer(*t);
            }
        r.nodeTransfers += transfers.size();
        if (!transfers.isEmpty() || !blockRows.isEmpty())
            ++r.blocksWithTransfers;
        for (const ForeignFinding& f : compareForeignBlock(n, h.hash, blockRows, transfers))
            r.add(f);
    }
}

ForeignAuditResult ForeignAuditor::audit(const QString& query, const ForeignRange& range,
                                         bool sumTransfers)
{
    ForeignAuditResult r;
    r.target = m_table.describe();
    r.query = query;
    r.node = m_eth.endpointText();
    for (const auto& c : m_contractList)
        r.contracts << c.toHex();
    r.from = range.from;
    r.to = range.to;
    r.rowsAboveTo = range.rowsAbove;
    if (m_proof)
        r.proofName = m_proof->name();
    // With one contract the query may leave `contract` out; never with a factory's children.
    const ForeignColumns columns(m_table.columns(query), m_contractList.size() == 1 && !m_factory
                                                             ? std::optional(m_contractList.first())
                                                             : std::nullopt);
    r.compared = columns.compared();
    m_sum = sumTransfers;
    m_headers.reset();
    std::uint64_t a = range.from;
    try {
        if (m_factory)
            learnChildren(range.to, r);
        if (m_sum)
            sumBelow(range.from, r);
        for (; a <= range.to; a += m_chunk) {
            const std::uint64_t b = std::min(range.to, a + m_chunk - 1);
            chunk(query, columns, a, b, r);
            if (onChunk)
                onChunk(r, b);
            if (b == range.to)
                break; // a + m_chunk could wrap past 2^64 at the very top
        }
    } catch (const rpc::RpcException& e) {
        throw audit::AuditError(audit::AuditError::Kind::NodeUnavailable,
                                QStringLiteral("node %1 did not answer while blocks %2..%3 were "
                                               "audited (%4); nothing was concluded, run the "
                                               "audit again")
                                    .arg(r.node)
                                    .arg(a)
                                    .arg(std::min(range.to, a + m_chunk - 1))
                                    .arg(e.error().toString()));
    }
    m_summedTo = range.to;
    return r;
}

} // namespace forkscope::foreign
