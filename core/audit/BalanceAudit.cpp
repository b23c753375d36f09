#include "BalanceAudit.h"
#include "AuditError.h"
#include "chain/ChainParseError.h"
#include "chain/U256.h"
#include "rpc/EthClient.h"
#include "store/ContractReader.h"

#include <QList>
#include <algorithm>

namespace forkscope::audit {

namespace {

std::optional<chain::Address> addressOf(const QString& hex)
{
    try {
        return chain::Address::fromHex(hex, QStringLiteral("address"));
    } catch (const chain::ChainParseError&) {
        return std::nullopt;
    }
}

// A balance row as read, kept until its page's balanceOf answers are in.
struct BalanceRow
{
    indexer::HolderKey key;
    QString balance;
};

class BalanceRun
{
public:
    BalanceRun(AuditResult& r, const BalanceOfAt* balanceOf) : m_r(r), m_balanceOf(balanceOf) {}

    void row(TransferSums& sums, const QString& contract, const QString& holder,
             const QString& balance, qint64 sides);
    // Asks the token for the rows queued so far.
    void askBalanceOf();
    void missing(TransferSums& sums);

private:
    AuditResult& m_r;
    const BalanceOfAt* m_balanceOf;
    QList<BalanceRow> m_queued;
};

void BalanceRun::row(TransferSums& sums, const QString& contract, const QString& holder,
                     const QString& balance, qint64 sides)
{
    ++m_r.balancesChecked;
    BalanceFinding f;
    f.contract = contract;
    f.holder = holder;
    f.stored = balance;
    f.storedSides = sides;
    const auto c = addressOf(contract);
    const auto h = addressOf(holder);
    const auto it = c && h ? sums.sums().find({*c, *h}) : sums.sums().end();
    if (it == sums.sums().end()) {
        f.kind = BalanceFinding::Kind::Extra;
        m_r.addBalanceFinding(f);
        return;
    }
    it->hasRow = true;
    f.expected = chain::amount::toString(it->amount);
    f.expectedSides = it->sides;
    if (it->unsummable)
        f.kind = BalanceFinding::Kind::Unsummable;
    else if (f.expected != balance)
        f.kind = BalanceFinding::Kind::Differs;
    else if (sides != it->sides)
        f.kind = BalanceFinding::Kind::SidesDiffer;
    else {
        if (m_balanceOf)
            m_queued.append({it.key(), balance});
        return;
    }
    m_r.addBalanceFinding(f);
}

void BalanceRun::askBalanceOf()
{
    for (qsizetype at = 0; at < m_queued.size(); at += kBalanceOfCallsPerBatch) {
        const QList<BalanceRow> part = m_queued.mid(at, kBalanceOfCallsPerBatch);
        QList<std::pair<chain::Address, QByteArray>> calls;
        for (const BalanceRow& row : part)
            calls.append({row.key.contract, QByteArray::fromHex("70a08231") + QByteArray(12, '\0') +
                                                row.key.holder.toByteArray()});
        QList<QByteArray> answers;
        try {
            answers = m_balanceOf->eth->callContractsAt(calls, m_balanceOf->blockHash);
        } catch (const rpc::RpcException& e) {
            throw AuditError(AuditError::Kind::NodeUnavailable,
                             QStringLiteral("--balance-of: node %1 did not answer balanceOf at "
                                            "the checkpoint %2 (%3): it needs the state of that "
                                            "block (an archive node for an old one) and ERC-20 "
                                            "tokens; the rest was checked, run verify without "
                                            "--balance-of to see it")
                                 .arg(m_balanceOf->eth->endpointText())
                                 .arg(m_balanceOf->block)
                                 .arg(e.error().toString()));
        }
        m_r.balanceOfCalls += calls.size();
        for (qsizetype i = 0; i < part.size(); ++i) {
            const BalanceRow& row = part[i];
            if (answers[i].size() != 32)
                throw AuditError(AuditError::Kind::NodeUntrusted,
                                 QStringLiteral("--balance-of: token %1 answered balanceOf(%2) "
                                                "with %3 bytes, not one 32-byte word: not an "
                                                "ERC-20 balanceOf; nothing was concluded")
                                     .arg(row.key.contract.toHex(), row.key.holder.toHex())
                                     .arg(answers[i].size()));
            const QString onChain = chain::u256::toDecimal(
                chain::u256::fromBigEndian(answers[i], QStringLiteral("balanceOf")));
            if (onChain == row.balance)
                continue;
            BalanceFinding f;
            f.kind = BalanceFinding::Kind::NotBalanceOf;
            f.contract = row.key.contract.toHex();
            f.holder = row.key.holder.toHex();
            f.stored = row.balance;
            f.expected = onChain;
            m_r.addBalanceFinding(f);
        }
    }
    m_queued.clear();
}

void BalanceRun::missing(TransferSums& sums)
{
    // In key order, so that the lines read the same on every run.
    QList<indexer::HolderKey> keys;
    for (auto it = sums.sums().cbegin(); it != sums.sums().cend(); ++it)
        if (!it->hasRow)
            keys.append(it.key());
    std::sort(keys.begin(), keys.end(), indexer::holderKeyLess);
    for (const indexer::HolderKey& k : keys) {
        const TransferSums::Sum& s = sums.sums()[k];
        BalanceFinding f;
        f.kind = s.unsummable ? BalanceFinding::Kind::Unsummable : BalanceFinding::Kind::Missing;
        f.contract = k.contract.toHex();
        f.holder = k.holder.toHex();
        f.expected = chain::amount::toString(s.amount);
        f.expectedSides = s.sides;
        m_r.addBalanceFinding(f);
    }
}

} // namespace

void TransferSums::side(const chain::Address& contract, const chain::Address& holder,
                        const std::optional<chain::SignedAmount>& delta)
{
    if (holder.isZero())
        return;
    Sum& s = m_sums[{contract, holder}];
    ++s.sides;
    if (!delta)
        s.unsummable = true;
    else
        s.amount += *delta;
}

void TransferSums::add(const indexer::Transfer& t)
{
    ++m_transfers;
    const chain::SignedAmount value(t.value);
    side(t.contract, t.from, -value);
    side(t.contract, t.to, value);
}

void TransferSums::add(const StoredTransfer& t)
{
    ++m_transfers;
    const auto contract = addressOf(t.contract);
    if (!contract)
        return;
    std::optional<chain::SignedAmount> value;
    try {
        value = chain::SignedAmount(chain::u256::fromDecimal(t.value, QStringLiteral("value")));
    } catch (const chain::ChainParseError&) {
    }
    if (const auto from = addressOf(t.from))
        side(*contract, *from, value ? std::optional(-*value) : std::nullopt);
    if (const auto to = addressOf(t.to))
        side(*contract, *to, value);
}

void TransferSums::addStored(store::ContractReader& reader, const QVariantList& scope,
                             std::uint64_t from, std::uint64_t to)
{
    forEachStoredTransfer(
        reader, scope, from, to,
        [this](std::uint64_t, std::uint64_t, const StoredTransfer& t) { add(t); }, m_rowsPerPage);
}

void forEachStoredTransfer(store::ContractReader& reader, const QVariantList& scope,
                           std::uint64_t from, std::uint64_t to,
                           const std::function<void(std::uint64_t block, std::uint64_t logIndex,
                                                    const StoredTransfer&)>& row,
                           int rowsPerPage)
{
    // Keyset pages in the primary key's order: each page starts after the last row read.
    qint64 afterBlock = qint64(from);
    qint64 afterIndex = -1;
    for (int rows = rowsPerPage; rows == rowsPerPage;) {
        rows = 0;
        const auto q = reader.query(
            QStringLiteral("SELECT block_number, log_index, contract, from_addr, to_addr, value "
                           "FROM transfer_events WHERE environment_id = ? AND chain_id = ? AND "
                           "(block_number, log_index) > (?, ?) AND block_number <= ? ORDER BY "
                           "block_number, log_index LIMIT ?"),
            scope + QVariantList{afterBlock, afterIndex, qint64(to), rowsPerPage});
        while (q->next()) {
            ++rows;
            afterBlock = q->value(0).toLongLong();
            afterIndex = q->value(1).toLongLong();
            row(std::uint64_t(afterBlock), std::uint64_t(afterIndex),
                {q->value(2).toString(), q->value(3).toString(), q->value(4).toString(),
                 q->value(5).toString()});
        }
    }
}

void checkBalances(store::ContractReader& reader, const QVariantList& scope, TransferSums& sums,
                   AuditResult& r, const BalanceOfAt* balanceOf)
{
    BalanceRun run(r, balanceOf);
    // Keyset pages: each after the last (contract, holder) read (an empty string would be
    // bound as NULL on PostgreSQL, so the first page has no lower bound).
    std::optional<std::pair<QString, QString>> after;
    const int perPage = sums.rowsPerPage();
    for (int rows = perPage; rows == perPage;) {
        rows = 0;
        const auto q = reader.query(
            QStringLiteral("SELECT contract, holder, balance, transfer_sides FROM token_balances "
                           "WHERE environment_id = ? AND chain_id = ?%1 ORDER BY contract, holder "
                           "LIMIT ?")
                .arg(after ? QStringLiteral(" AND (contract, holder) > (?, ?)") : QString()),
            scope + (after ? QVariantList{after->first, after->second} : QVariantList{}) +
                QVariantList{perPage});
        while (q->next()) {
            ++rows;
            after = {q->value(0).toString(), q->value(1).toString()};
            run.row(sums, after->first, after->second, q->value(2).toString(),
                    q->value(3).toLongLong());
        }
        run.askBalanceOf();
    }
    run.missing(sums);
}

} // namespace forkscope::audit
