#include "InvariantChecker.h"
#include "BalanceBook.h"
#include "BatchCommitter.h"
#include "TransferDecoder.h"
#include "chain/Hex.h"
#include "rpc/EthClient.h"
#include "store/ContractReader.h"

#include <QHash>
#include <QSet>

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
    return QStringLiteral("%1 invariant violation(s): %2")
        .arg(violations.size())
        .arg(violations.mid(0, 5).join(QStringLiteral("; ")));
}

namespace {
constexpr int kMaxReported = 50;

void violate(InvariantReport& r, const QString& what)
{
    if (r.violations.size() < kMaxReported)
        r.violations << what;
}

QString logKey(std::uint64_t block, std::uint64_t index)
{
    return QStringLiteral("%1/%2").arg(block).arg(index);
}
} // namespace

InvariantReport InvariantChecker::check(const QString& env, const QString& source,
                                        const QList<chain::Address>& contracts)
{
    InvariantReport r;
    const std::uint64_t chainId = m_eth.chainId();
    const QVariantList scope{env, qint64(chainId)};

    const std::optional<store::CheckpointFacts> cp =
        m_reader.checkpoint(env, qint64(chainId), source);
    const bool hasCp = cp.has_value();
    const qint64 cpNumber = hasCp ? cp->number : -1;
    const QString cpHash = hasCp ? cp->hash : QString();
    const qint64 start = hasCp ? cp->startBlock : 0;

    // 1. One parent-hash chain from the start block to the checkpoint, equal to the node's.
    {
        const auto q =
            m_reader.query(QStringLiteral("SELECT block_number, block_hash, parent_hash FROM "
                                          "blocks WHERE environment_id = ? AND chain_id = ? "
                                          "ORDER BY block_number"),
                           scope);
        qint64 expected = start;
        QString prevHash;
        QList<QPair<qint64, QString>> stored;
        while (q->next()) {
            const qint64 n = q->value(0).toLongLong();
            const QString hash = q->value(1).toString();
            if (n > cpNumber) {
                violate(r, QStringLiteral("block %1 is stored above the checkpoint %2")
                               .arg(n)
                               .arg(cpNumber));
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
            stored.append({n, hash});
            ++r.blocks;
        }
        // A checkpoint just below the first block (a shared backfill's start) covers nothing.
        if (hasCp && cpNumber >= start && (expected != cpNumber + 1 || prevHash != cpHash))
            violate(r, QStringLiteral("the block chain does not end at the checkpoint %1 (%2)")
                           .arg(cpNumber)
                           .arg(cpHash));
        for (qsizetype i = 0; i < stored.size(); i += 100) {
            const auto chunk = stored.mid(i, 100);
            const auto headers = m_eth.blocksByNumber(std::uint64_t(chunk.first().first),
                                                      std::uint64_t(chunk.last().first));
            for (qsizetype j = 0; j < chunk.size() && j < headers.size(); ++j)
                if (!headers[j] || headers[j]->hash.toHex() != chunk[j].second)
                    violate(r, QStringLiteral("block %1 is not the node's block (stored %2)")
                                   .arg(chunk[j].first)
                                   .arg(chunk[j].second));
        }
    }

    // 2. Exactly the node's logs of those blocks; transfers exactly their decoding.
    QHash<QString, chain::LogEntry> nodeLogs;
    if (hasCp && !contracts.isEmpty()) {
        for (qint64 from = start; from <= cpNumber; from += 1000) {
            rpc::LogFilter f;
            f.fromBlock = std::uint64_t(from);
            f.toBlock = std::uint64_t(std::min(cpNumber, from + 999));
            f.addresses = contracts;
            for (const auto& log : m_eth.getLogs(f))
                nodeLogs.insert(logKey(log.blockNumber, log.logIndex), log);
        }
    }
    QHash<QString, Transfer> expectedTransfers;
    {
        const auto q =
            m_reader.query(QStringLiteral("SELECT block_number, log_index, block_hash, tx_hash, "
                                          "address, topic0, topic1, topic2, topic3, data FROM "
                                          "logs WHERE environment_id = ? AND chain_id = ?"),
                           scope);
        QSet<QString> seen;
        while (q->next()) {
            ++r.logs;
            const auto block = q->value(0).toULongLong();
            const auto index = q->value(1).toULongLong();
            const QString key = logKey(block, index);
            seen.insert(key);
            const auto it = nodeLogs.constFind(key);
            if (it == nodeLogs.cend()) {
                violate(r, QStringLiteral("stored log %1 is not on the node").arg(key));
                continue;
            }
            QStringList topics;
            for (const auto& t : it->topics)
                topics << t.toHex();
            QStringList storedTopics;
            for (int t = 0; t < 4; ++t)
                if (!q->value(5 + t).isNull())
                    storedTopics << q->value(5 + t).toString();
            if (q->value(2).toString() != it->blockHash.toHex() ||
                q->value(3).toString() != it->transactionHash.toHex() ||
                q->value(4).toString() != it->address.toHex() || storedTopics != topics ||
                q->value(9).toString() != chain::hex::encodeData(it->data))
                violate(r, QStringLiteral("stored log %1 differs from the node's").arg(key));
            const TransferDecodeResult decoded = decodeTransfer(*it);
            if (const auto* t = std::get_if<Transfer>(&decoded))
                expectedTransfers.insert(key, *t);
        }
        for (auto it = nodeLogs.cbegin(); it != nodeLogs.cend(); ++it)
            if (!seen.contains(it.key()))
                violate(r, QStringLiteral("log %1 on the node is missing from the database")
                               .arg(it.key()));
    }

    QHash<HolderKey, SignedAmount> sums;
    QSet<QString> transferKeys;
    {
        const auto q =
            m_reader.query(QStringLiteral("SELECT block_number, log_index, contract, from_addr, "
                                          "to_addr, value, tx_hash FROM transfer_events WHERE "
                                          "environment_id = ? AND chain_id = ?"),
                           scope);
        while (q->next()) {
            ++r.transfers;
            const QString key = logKey(q->value(0).toULongLong(), q->value(1).toULongLong());
            const auto exp = expectedTransfers.constFind(key);
            if (exp == expectedTransfers.cend()) {
                violate(r, QStringLiteral("transfer %1 has no matching Transfer log").arg(key));
                continue;
            }
            if (exp->contract.toHex() != q->value(2).toString() ||
                exp->from.toHex() != q->value(3).toString() ||
                exp->to.toHex() != q->value(4).toString() ||
                chain::u256::toDecimal(exp->value) != q->value(5).toString())
                violate(r, QStringLiteral("transfer %1 differs from its log").arg(key));
            transferKeys.insert(key);
            const SignedAmount v(
                chain::u256::fromDecimal(q->value(5).toString(), QStringLiteral("value")));
            if (!exp->from.isZero())
                sums[HolderKey::fromHex(q->value(2).toString(), q->value(3).toString())] -= v;
            if (!exp->to.isZero())
                sums[HolderKey::fromHex(q->value(2).toString(), q->value(4).toString())] += v;
        }
        for (auto it = expectedTransfers.cbegin(); it != expectedTransfers.cend(); ++it)
            if (!transferKeys.contains(it.key()))
                violate(r,
                        QStringLiteral("Transfer log %1 has no transfer_events row").arg(it.key()));
    }

    // 3. Balances: exactly the sums, one row per holder that appears in a transfer.
    {
        const auto q =
            m_reader.query(QStringLiteral("SELECT contract, holder, balance FROM token_balances "
                                          "WHERE environment_id = ? AND chain_id = ?"),
                           scope);
        QSet<HolderKey> seen;
        while (q->next()) {
            ++r.balances;
            const HolderKey k = HolderKey::fromHex(q->value(0).toString(), q->value(1).toString());
            seen.insert(k);
            const auto it = sums.constFind(k);
            if (it == sums.cend())
                violate(r, QStringLiteral("balance row for %1 in %2 has no transfers")
                               .arg(k.holder.toHex(), k.contract.toHex()));
            else if (chain::amount::toString(*it) != q->value(2).toString())
                violate(r, QStringLiteral("balance of %1 in %2 is %3, transfers sum to %4")
                               .arg(k.holder.toHex(), k.contract.toHex(), q->value(2).toString(),
                                    chain::amount::toString(*it)));
        }
        for (auto it = sums.cbegin(); it != sums.cend(); ++it)
            if (!seen.contains(it.key()))
                violate(r, QStringLiteral("no balance row for %1 in %2")
                               .arg(it.key().holder.toHex(), it.key().contract.toHex()));
    }

    // 4. Outbox: nothing undelivered above the checkpoint; one row per transfer; pending
    //    rows only for transfers that still exist.
    {
        const auto q =
            m_reader.query(QStringLiteral("SELECT block_number, event_key, delivered_at FROM "
                                          "outbox WHERE environment_id = ? AND chain_id = ?"),
                           scope);
        QSet<QString> outboxTransferKeys;
        while (q->next()) {
            ++r.outboxRows;
            const qint64 n = q->value(0).toLongLong();
            const QString eventKey = q->value(1).toString();
            const bool delivered = !q->value(2).isNull();
            if (!delivered && n > cpNumber)
                violate(
                    r,
                    QStringLiteral("undelivered outbox row %1 above the checkpoint").arg(eventKey));
            const QStringList parts = eventKey.split(QLatin1Char(':'));
            if (parts.size() == 4 && parts[0] == QLatin1String("transfer")) {
                const QString key = parts[1] + QLatin1Char('/') + parts[3];
                const bool live = transferKeys.contains(key) && nodeLogs.contains(key) &&
                                  nodeLogs.value(key).blockHash.toHex() == parts[2];
                if (live)
                    outboxTransferKeys.insert(key);
                else if (!delivered)
                    violate(
                        r,
                        QStringLiteral("pending outbox row %1 has no live transfer").arg(eventKey));
            }
        }
        for (const QString& k : transferKeys)
            if (!outboxTransferKeys.contains(k))
                violate(r, QStringLiteral("transfer %1 has no outbox row").arg(k));
    }
    return r;
}

} // namespace forkscope::indexer
