// ForeignAuditor's balance check: the holders' balances of the audited table against the
// sums of the node's Transfers up to the audited range's end.
#include "ForeignAuditor.h"
#include "ForeignError.h"
#include "ForeignRow.h"
#include "ForeignTable.h"
#include "ForeignValue.h"
#include "audit/AuditError.h"
#include "indexer/TransferDecoder.h"
#include "rpc/EthClient.h"
#include "wire/PartedLogReader.h"

#include <variant>

namespace forkscope::foreign {

namespace {

// Balance rows read before the audit asks for a narrower query.
constexpr qsizetype kMaxBalanceRows = 200'000;

int column(const QStringList& names, const char* name)
{
    for (int i = 0; i < names.size(); ++i)
        if (names[i].compare(QLatin1String(name), Qt::CaseInsensitive) == 0)
            return i;
    return -1;
}

// received - sent, as text: "-5" when the Transfers send more than they bring.
QString balanceText(const std::pair<chain::U256, chain::U256>& s)
{
    return s.first >= s.second ? chain::u256::toDecimal(s.first - s.second)
                               : QStringLiteral("-") + chain::u256::toDecimal(s.second - s.first);
}

} // namespace

void ForeignAuditor::sumTransfer(const NodeTransfer& t)
{
    // The zero address mints and burns: it holds no balance.
    if (!t.from.isZero())
        m_sums[{t.contract, t.from}].second += t.value;
    if (!t.to.isZero())
        m_sums[{t.contract, t.to}].first += t.value;
}

void ForeignAuditor::sumBelow(std::uint64_t from, ForeignAuditResult& r)
{
    m_sums.clear();
    if (from == 0)
        return;
    wire::PartedLogReader reader(m_eth, askedThrough(from - 1));
    reader.setTopics({{indexer::transferTopic()}});
    reader.checkAnswer = [this](const QList<chain::LogEntry>& logs, std::uint64_t a,
                                std::uint64_t b) {
        for (const chain::LogEntry& log : logs)
            if (log.blockNumber < a || log.blockNumber > b || log.removed || !isOurTransfer(log))
                untrusted(QStringLiteral("answered eth_getLogs(%1..%2) for the balances with log "
                                         "%3 of block %4, which was not asked for")
                              .arg(a)
                              .arg(b)
                              .arg(log.logIndex)
                              .arg(log.blockNumber));
    };
    // In ranges, so no one answer holds the whole history.
    constexpr std::uint64_t kBlocksPerRead = 10'000;
    for (std::uint64_t a = 0; a < from; a += kBlocksPerRead) {
        const std::uint64_t b = std::min(from - 1, a + kBlocksPerRead - 1);
        for (const chain::LogEntry& log : reader.read(a, b))
            if (const indexer::TransferDecodeResult d = indexer::decodeTransfer(log);
                const auto* t = std::get_if<indexer::Transfer>(&d))
                sumTransfer(NodeTransfer{log.logIndex, log.transactionHash, t->contract, t->from,
                                         t->to, t->value});
    }
    r.getLogsCalls += reader.calls();
}

void ForeignAuditor::checkBalances(const QString& balancesQuery, ForeignAuditResult& r)
{
    const QStringList names = m_table.columns(balancesQuery);
    const int contractColumn = column(names, "contract");
    const int holderColumn = column(names, "holder");
    const int balanceColumn = column(names, "balance");
    const int idColumn = column(names, "id");
    const QString yields = QStringLiteral(" (it yields: %1)").arg(names.join(QStringLiteral(", ")));
    if (holderColumn < 0 || balanceColumn < 0)
        throw ForeignError(ForeignError::Kind::BadQuery,
                           QStringLiteral("the balances query yields no `holder` and `balance` "
                                          "columns%1")
                               .arg(yields));
    if (contractColumn < 0 && (m_contractList.size() != 1 || m_factory))
        throw ForeignError(ForeignError::Kind::BadQuery,
                           QStringLiteral("the balances query yields no `contract` column (it "
                                          "may be left out when exactly one --contract is "
                                          "audited)%1")
                               .arg(yields));
    QSet<QPair<chain::Address, chain::Address>> seen;
    m_table.allRows(balancesQuery, kMaxBalanceRows, [&](const ForeignCells& cells) {
        QString why;
        const QString label =
            idColumn >= 0 ? QStringLiteral("id %1").arg(shown(cells.at(idColumn)))
                          : QStringLiteral("with holder %1").arg(shown(cells.at(holderColumn)));
        const auto fail = [&](int c) {
            return ForeignError(ForeignError::Kind::BadValue,
                                badCell(label, names.at(c), cells.at(c), why));
        };
        chain::Address contract = m_contractList.value(0);
        if (contractColumn >= 0) {
            const auto c = addressOf(cells.at(contractColumn), &why);
            if (!c)
                throw fail(contractColumn);
            contract = *c;
        }
        const auto holder = addressOf(cells.at(holderColumn), &why);
        if (!holder)
            throw fail(holderColumn);
        const auto balance = amountOf(cells.at(balanceColumn), &why);
        if (!balance)
            throw fail(balanceColumn);
        if (!m_contracts.contains(contract))
            return;
        ++r.balancesChecked;
        seen.insert({contract, *holder});
        const auto sum = m_sums.value({contract, *holder});
        if (sum.first >= sum.second && sum.first - sum.second == *balance)
            return;
        ForeignFinding f;
        f.kind = ForeignFinding::Kind::WrongBalance;
        f.block = m_summedTo;
        f.contract = contract.toHex();
        f.holder = holder->toHex();
        f.row = label;
        f.fields = {QStringLiteral("balance")};
        f.detail = QStringLiteral("holds %1, but the node's Transfers up to block %2 sum to %3")
                       .arg(chain::u256::toDecimal(*balance))
                       .arg(m_summedTo)
                       .arg(balanceText(sum));
        r.add(f);
    });
    for (auto it = m_sums.cbegin(); it != m_sums.cend(); ++it) {
        ++r.holdersSummed;
        if (seen.contains(it.key()) || it->first == it->second)
            continue;
        ForeignFinding f;
        f.kind = ForeignFinding::Kind::WrongBalance;
        f.block = m_summedTo;
        f.contract = it.key().first.toHex();
        f.holder = it.key().second.toHex();
        f.fields = {QStringLiteral("balance")};
        f.detail = QStringLiteral("is missing: the node's Transfers up to block %1 give it %2")
                       .arg(m_summedTo)
                       .arg(balanceText(*it));
        r.add(f);
    }
}

} // namespace forkscope::foreign
