#include "InvariantChecker.h"
#include "BalanceBook.h"
#include "BatchCommitter.h"
#include "TransferDecoder.h"
#include "chain/Hex.h"
#include "rpc/EthClient.h"
#include "store/ContractReader.h"
#include "wire/PartedLogReader.h"

#include <QHash>
#include <QSet>
#include <optional>

namespace forkscope::indexer {

QString InvariantReport::summary() const
{
    if (ok())
        return QStringLiteral("invariants hold: %1 blocks, %2 logs, %3 transfers, %4 balances, "
                              "%5 outbox rows")
            .arg(blocks)
            .arg(logs)
            .arg(transfers)
            .arg(balances)
            .arg(outboxRows);
    return QStringLiteral("%1: %2")
        .arg(violations.size() == 1
                 ? QStringLiteral("1 invariant violation")
                 : QStringLiteral("%1 invariant violations").arg(violations.size()))
        .arg(violations.mid(0, 5).join(QStringLiteral("; ")));
}

namespace {
constexpr int kMaxReported = 50;

void violate(InvariantReport& r, const QString& what)
{
    if (r.violations.size() < kMaxReported)
        r.violations << what;
}

// A log's place, the key every row of a chunk is matched by. Numbers, not its "N/M" text:
// the check reads a million rows on a large index, and building and hashing that text per
// row was most of its own CPU (bench/README.md's history).
struct LogPos
{
    std::uint64_t block = 0;
    std::uint64_t index = 0;
    QString text() const { return QStringLiteral("%1/%2").arg(block).arg(index); }
    friend bool operator==(const LogPos&, const LogPos&) = default;
    friend size_t qHash(const LogPos& p, size_t seed = 0)
    {
        return qHashMulti(seed, p.block, p.index);
    }
};

LogPos rowPos(const store::ContractRows& q)
{
    return {q.value(0).toULongLong(), q.value(1).toULongLong()};
}

// A block number or log index as an event key writes it: decimal digits, no sign, no
// leading zero. Anything else does not name a log.
std::optional<std::uint64_t> keyNumber(QStringView s)
{
    if (s.isEmpty() || s.size() > 19 || (s.size() > 1 && s[0] == u'0'))
        return std::nullopt;
    std::uint64_t n = 0;
    for (QChar c : s) {
        if (c < u'0' || c > u'9')
            return std::nullopt;
        n = n * 10 + std::uint64_t(c.unicode() - u'0');
    }
    return n;
}

// Blocks checked at a time: the node's logs, the stored rows and what links them are held
// for one chunk only, so the check's memory does not grow with the environment (it held
// every node log of it at once: 170 MiB for the 100k workload, bench/README.md). Only the
// balance sums, one per holder, are kept for the whole run.
constexpr qint64 kChunkBlocks = 100;

// One check: the four invariants, chunk by chunk from the start block to the checkpoint,
// then the rows outside that range, then the balances.
class CheckRun
{
public:
    // The checkpoint covers blocks start..cpNumber (none if cpNumber < start).
    CheckRun(store::ContractReader& reader, rpc::EthClient& eth,
             const QList<chain::Address>& contracts, QVariantList scope, qint64 start,
             qint64 cpNumber)
        : m_reader(reader), m_eth(eth), m_contracts(contracts), m_scope(std::move(scope)),
          m_nodeLogs(eth, contracts), m_start(start), m_cpNumber(cpNumber),
          m_storedOutboxBelow(
              reader.storedOutboxBelow(m_scope.value(0).toString(), m_scope.value(1).toLongLong()))
    {
    }

    InvariantReport r;

    void blocks(const QString& cpHash, bool hasCp, int perPage);
    void chunk(qint64 a, qint64 b);
    // Rows below the start block or above the checkpoint: no log or transfer belongs there,
    // and an outbox row only if delivered (its event was reorged away after delivery).
    void outside();
    void balances();

private:
    void compareHeaders(const QList<QPair<qint64, QString>>& stored);
    QVariantList blocksBetween(qint64 a, qint64 b) const { return m_scope + QVariantList{a, b}; }
    // The transfer_events rows `where` says, each against the Transfer its log decodes to
    // (`expected`), summed per holder; `keys` gets each that has one.
    void transfers(const QString& where, const QVariantList& args,
                   const QHash<LogPos, Transfer>& expected, QSet<LogPos>& keys);
    // The outbox rows `where` says: pending only for a transfer that is live (in
    // `chunkTransfers`, its log the node's), none pending above the checkpoint, and one for
    // each of `chunkTransfers`.
    void outboxRows(const QString& where, const QVariantList& args,
                    const QHash<LogPos, chain::LogEntry>& node, const QSet<LogPos>& chunkTransfers);

    store::ContractReader& m_reader;
    rpc::EthClient& m_eth;
    const QList<chain::Address>& m_contracts;
    const QVariantList m_scope;
    wire::PartedLogReader m_nodeLogs;
    const qint64 m_start;
    const qint64 m_cpNumber;
    const qint64 m_storedOutboxBelow;      // rows rendered below it were stored and deleted
    QHash<HolderKey, SignedAmount> m_sums; // one per holder
};

// 1. One parent-hash chain from the start block to the checkpoint, equal to the node's.
void CheckRun::blocks(const QString& cpHash, bool hasCp, int perPage)
{
    qint64 expected = m_start;
    QString prevHash;
    QList<QPair<qint64, QString>> stored;
    // Page after page, each starting after the last number seen: `expected` and `prevHash`
    // carry across pages as across the rows of one query.
    qint64 after = -1;
    for (int rows = perPage; rows == perPage;) {
        rows = 0;
        const auto q = m_reader.query(QStringLiteral("SELECT block_number, block_hash, "
                                                     "parent_hash FROM blocks WHERE "
                                                     "environment_id = ? AND chain_id = ? AND "
                                                     "block_number > ? ORDER BY block_number "
                                                     "LIMIT ?"),
                                      m_scope + QVariantList{after, perPage});
        while (q->next()) {
            ++rows;
            const qint64 n = q->value(0).toLongLong();
            const QString hash = q->value(1).toString();
            after = n;
            if (n > m_cpNumber) {
                violate(r, QStringLiteral("block %1 is stored above the checkpoint %2")
                               .arg(n)
                               .arg(m_cpNumber));
                continue;
            }
            if (n != expected)
                violate(
                    r, QStringLiteral("gap in blocks: expected %1, found %2").arg(expected).arg(n));
            if (!prevHash.isEmpty() && q->value(2).toString() != prevHash)
                violate(r, QStringLiteral("block %1's parent hash does not link to block %2")
                               .arg(n)
                               .arg(n - 1));
            prevHash = hash;
            expected = n + 1;
            // At most kChunkBlocks blocks' headers per request, gaps included: a file with a
            // gap of a million blocks must not make one request of a million headers.
            if (!stored.isEmpty() && n - stored.first().first >= kChunkBlocks) {
                compareHeaders(stored);
                stored.clear();
            }
            stored.append({n, hash});
            ++r.blocks;
        }
    }
    if (!stored.isEmpty())
        compareHeaders(stored);
    // A checkpoint just below the first block (a shared backfill's start) covers nothing.
    if (hasCp && m_cpNumber >= m_start && (expected != m_cpNumber + 1 || prevHash != cpHash))
        violate(r, QStringLiteral("the block chain does not end at the checkpoint %1 (%2)")
                       .arg(m_cpNumber)
                       .arg(cpHash));
}

void CheckRun::compareHeaders(const QList<QPair<qint64, QString>>& stored)
{
    // Ascending but perhaps with gaps (reported above): each stored block by its number.
    const auto headers = m_eth.blocksByNumber(std::uint64_t(stored.first().first),
                                              std::uint64_t(stored.last().first));
    for (const auto& [n, hash] : stored) {
        const qsizetype at = qsizetype(n - stored.first().first);
        if (at >= headers.size() || !headers[at] || headers[at]->hash.toHex() != hash)
            violate(
                r, QStringLiteral("block %1 is not the node's block (stored %2)").arg(n).arg(hash));
    }
}

// 2. Exactly the node's logs of [a, b]; transfers exactly their decoding; the outbox
//    consistent with them (4, for these blocks).
void CheckRun::chunk(qint64 a, qint64 b)
{
    QHash<LogPos, chain::LogEntry> node;
    if (!m_contracts.isEmpty())
        for (chain::LogEntry& log : m_nodeLogs.read(std::uint64_t(a), std::uint64_t(b))) {
            const LogPos pos{log.blockNumber, log.logIndex};
            node.insert(pos, std::move(log));
        }
    QHash<LogPos, Transfer> expectedTransfers;
    {
        const auto q = m_reader.query(
            QStringLiteral("SELECT block_number, log_index, block_hash, tx_hash, address, "
                           "topic0, topic1, topic2, topic3, data FROM logs WHERE environment_id "
                           "= ? AND chain_id = ? AND block_number BETWEEN ? AND ?"),
            blocksBetween(a, b));
        QSet<LogPos> seen;
        while (q->next()) {
            ++r.logs;
            const LogPos pos = rowPos(*q);
            seen.insert(pos);
            const auto it = node.constFind(pos);
            if (it == node.cend()) {
                violate(r, QStringLiteral("stored log %1 is not on the node").arg(pos.text()));
                continue;
            }
            // Each stored column against the node's value, as the lowercase 0x hex the
            // contract's read surface must show; a topic column is NULL past the last topic.
            bool same = it->blockHash.isHexOf(q->value(2).toString()) &&
                        it->transactionHash.isHexOf(q->value(3).toString()) &&
                        it->address.isHexOf(q->value(4).toString()) &&
                        chain::hex::isEncodingOf(q->value(9).toString(), it->data);
            for (int t = 0; same && t < 4; ++t) {
                const QVariant stored = q->value(5 + t);
                same = t < it->topics.size()
                           ? !stored.isNull() && it->topics[t].isHexOf(stored.toString())
                           : stored.isNull();
            }
            if (!same)
                violate(r, QStringLiteral("stored log %1 differs from the node's").arg(pos.text()));
            const TransferDecodeResult decoded = decodeTransfer(*it);
            if (const auto* t = std::get_if<Transfer>(&decoded))
                expectedTransfers.insert(pos, *t);
        }
        for (auto it = node.cbegin(); it != node.cend(); ++it)
            if (!seen.contains(it.key()))
                violate(r, QStringLiteral("log %1 on the node is missing from the database")
                               .arg(it.key().text()));
    }
    QSet<LogPos> transferKeys;
    transfers(QStringLiteral("block_number BETWEEN ? AND ?"), blocksBetween(a, b),
              expectedTransfers, transferKeys);
    for (auto it = expectedTransfers.cbegin(); it != expectedTransfers.cend(); ++it)
        if (!transferKeys.contains(it.key()))
            violate(
                r,
                QStringLiteral("Transfer log %1 has no transfer_events row").arg(it.key().text()));
    outboxRows(QStringLiteral("block_number BETWEEN ? AND ?"), blocksBetween(a, b), node,
               transferKeys);
}

void CheckRun::transfers(const QString& where, const QVariantList& args,
                         const QHash<LogPos, Transfer>& expected, QSet<LogPos>& keys)
{
    const auto q = m_reader.query(
        QStringLiteral("SELECT block_number, log_index, contract, from_addr, to_addr, value, "
                       "tx_hash FROM transfer_events WHERE environment_id = ? AND chain_id = ? "
                       "AND ") +
            where,
        args);
    while (q->next()) {
        ++r.transfers;
        const LogPos pos = rowPos(*q);
        const auto exp = expected.constFind(pos);
        if (exp == expected.cend()) {
            violate(r, QStringLiteral("transfer %1 has no matching Transfer log").arg(pos.text()));
            continue;
        }
        keys.insert(pos);
        const QString value = q->value(5).toString();
        const bool same = exp->contract.isHexOf(q->value(2).toString()) &&
                          exp->from.isHexOf(q->value(3).toString()) &&
                          exp->to.isHexOf(q->value(4).toString()) &&
                          chain::u256::toDecimal(exp->value) == value;
        if (!same)
            violate(r, QStringLiteral("transfer %1 differs from its log").arg(pos.text()));
        // The balances are checked against what the stored rows say, so a wrong row also
        // shows as the balance it made wrong. A row that says exactly what its log does is
        // summed from the log's values, already parsed, rather than its text parsed again.
        const SignedAmount v =
            same ? SignedAmount(exp->value)
                 : SignedAmount(chain::u256::fromDecimal(value, QStringLiteral("value")));
        const auto holder = [&](const chain::Address& parsed, int column) {
            return same ? HolderKey{exp->contract, parsed}
                        : HolderKey::fromHex(q->value(2).toString(), q->value(column).toString());
        };
        if (!exp->from.isZero())
            m_sums[holder(exp->from, 3)] -= v;
        if (!exp->to.isZero())
            m_sums[holder(exp->to, 4)] += v;
    }
}

void CheckRun::outboxRows(const QString& where, const QVariantList& args,
                          const QHash<LogPos, chain::LogEntry>& node,
                          const QSet<LogPos>& chunkTransfers)
{
    const auto q = m_reader.query(QStringLiteral("SELECT block_number, event_key, delivered_at, "
                                                 "id IS NULL FROM outbox WHERE environment_id = "
                                                 "? AND chain_id = ? AND ") +
                                      where,
                                  args);
    QSet<LogPos> withRow;
    while (q->next()) {
        ++r.outboxRows;
        const qint64 n = q->value(0).toLongLong();
        const QString eventKey = q->value(1).toString();
        const bool delivered = !q->value(2).isNull();
        // Delivery stores every row it touches, in order, and moves the cursor past them:
        // a row rendered below it had a stored row (delivered, perhaps) that was deleted,
        // and the dispatcher, looking from the cursor up, will never send it.
        if (q->value(3).toBool() && n < m_storedOutboxBelow)
            violate(r, QStringLiteral("outbox row %1 lost its stored row below the outbox "
                                      "cursor (block %2): edited outside Forkscope")
                           .arg(eventKey)
                           .arg(m_storedOutboxBelow));
        if (!delivered && n > m_cpNumber)
            violate(r,
                    QStringLiteral("undelivered outbox row %1 above the checkpoint").arg(eventKey));
        // transfer:<block>:<block hash>:<log index> (BatchCommitter writes it).
        const QList<QStringView> parts = QStringView(eventKey).split(u':');
        if (parts.size() == 4 && parts[0] == QLatin1String("transfer")) {
            const auto block = keyNumber(parts[1]);
            const auto index = keyNumber(parts[3]);
            const LogPos pos{block.value_or(0), index.value_or(0)};
            const auto log = block && index ? node.constFind(pos) : node.cend();
            const bool live = log != node.cend() && chunkTransfers.contains(pos) &&
                              log->blockHash.isHexOf(parts[2]);
            if (live)
                withRow.insert(pos);
            else if (!delivered)
                violate(r,
                        QStringLiteral("pending outbox row %1 has no live transfer").arg(eventKey));
        }
    }
    for (const LogPos& k : chunkTransfers)
        if (!withRow.contains(k))
            violate(r, QStringLiteral("transfer %1 has no outbox row").arg(k.text()));
}

void CheckRun::outside()
{
    const QString where = QStringLiteral("(block_number < ? OR block_number > ?)");
    const QVariantList args = m_scope + QVariantList{m_start, m_cpNumber};
    const QString covered =
        m_cpNumber < m_start
            ? QStringLiteral("the checkpoint covers no block")
            : QStringLiteral("the checkpoint covers blocks %1..%2").arg(m_start).arg(m_cpNumber);
    const auto q = m_reader.query(QStringLiteral("SELECT block_number, log_index FROM logs WHERE "
                                                 "environment_id = ? AND chain_id = ? AND ") +
                                      where,
                                  args);
    while (q->next()) {
        ++r.logs;
        violate(r, QStringLiteral("stored log %1 is outside the indexed blocks (%2)")
                       .arg(rowPos(*q).text(), covered));
    }
    QSet<LogPos> none;
    transfers(where, args, {}, none);
    outboxRows(where, args, {}, {});
}

// 3. Balances: exactly the sums, one row per holder that appears in a transfer.
void CheckRun::balances()
{
    const auto q =
        m_reader.query(QStringLiteral("SELECT contract, holder, balance FROM token_balances "
                                      "WHERE environment_id = ? AND chain_id = ?"),
                       m_scope);
    QSet<HolderKey> seen;
    while (q->next()) {
        ++r.balances;
        const HolderKey k = HolderKey::fromHex(q->value(0).toString(), q->value(1).toString());
        seen.insert(k);
        const auto it = m_sums.constFind(k);
        if (it == m_sums.cend())
            violate(r, QStringLiteral("balance row for %1 in %2 has no transfers")
                           .arg(k.holder.toHex(), k.contract.toHex()));
        else if (chain::amount::toString(*it) != q->value(2).toString())
            violate(r, QStringLiteral("balance of %1 in %2 is %3, transfers sum to %4")
                           .arg(k.holder.toHex(), k.contract.toHex(), q->value(2).toString(),
                                chain::amount::toString(*it)));
    }
    for (auto it = m_sums.cbegin(); it != m_sums.cend(); ++it)
        if (!seen.contains(it.key()))
            violate(r, QStringLiteral("no balance row for %1 in %2")
                           .arg(it.key().holder.toHex(), it.key().contract.toHex()));
}

} // namespace

InvariantReport InvariantChecker::check(const QString& env, const QString& source,
                                        const QList<chain::Address>& contracts)
{
    const std::uint64_t chainId = m_eth.chainId();
    // One state: a commit between reading the checkpoint and reading the rows would show
    // its rows above the checkpoint read, a violation that is not there.
    const auto snapshot = m_reader.snapshot();
    const std::optional<store::CheckpointFacts> cp =
        m_reader.checkpoint(env, qint64(chainId), source);
    const qint64 cpNumber = cp ? cp->number : -1;
    const qint64 start = cp ? cp->startBlock : 0;
    CheckRun run(m_reader, m_eth, contracts, QVariantList{env, qint64(chainId)}, start, cpNumber);
    run.blocks(cp ? cp->hash : QString(), cp.has_value(), m_blocksPerPage);
    for (qint64 a = start; cp && a <= cpNumber; a += kChunkBlocks)
        run.chunk(a, std::min(cpNumber, a + kChunkBlocks - 1));
    run.outside();
    run.balances();
    return run.r;
}

} // namespace forkscope::indexer
