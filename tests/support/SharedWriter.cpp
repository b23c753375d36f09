#include "SharedWriter.h"
#include "chain/SignedAmount.h"
#include "chain/U256.h"
#include "indexer/TransferDecoder.h"

#include <QtTest>
#include <map>

namespace forkscope::test {

std::unique_ptr<IndexerLab> twoTokenChain()
{
    auto lab = std::make_unique<IndexerLab>();
    lab->deployToken(QStringLiteral("AAA"));
    lab->deployToken(QStringLiteral("BBB"));
    lab->sprayAll(30, 4, 12); // 60 blocks of Transfers
    lab->mine(60);            // and empty ones between them and the head
    return lab;
}

void checkSharedAgainstNode(IndexerLab& lab, store::pg::PgConnection& db_, const QString& env,
                            qint64 head)
{
    store::pg::PgConnection* db = &db_;
    // Independent check against the node: every log of the contracts, once.
    rpc::LogFilter f;
    f.fromBlock = 0;
    f.toBlock = std::uint64_t(head);
    f.addresses = lab.contracts();
    const QList<chain::LogEntry> nodeLogs = lab.eth().getLogs(f);
    QVERIFY(nodeLogs.size() > 200);
    QSet<QString> expected;
    std::map<QString, chain::U256> expectedValue; // per token
    for (const chain::LogEntry& l : nodeLogs) {
        expected.insert(QStringLiteral("%1/%2/%3")
                            .arg(l.blockNumber)
                            .arg(l.logIndex)
                            .arg(l.transactionHash.toHex()));
        const auto d = indexer::decodeTransfer(l);
        if (const auto* t = std::get_if<indexer::Transfer>(&d))
            expectedValue[t->contract.toHex()] += t->value;
    }
    // Through the read surface: the hex views, which show only what the checkpoint covers.
    const auto [got, rows] = storedLogKeys(*db, env, "tx_hash");
    QCOMPARE(rows, nodeLogs.size()); // nothing doubled
    QCOMPARE(got, expected);         // nothing missing, nothing invented
    const auto sums = db->run("t_sums",
                              "SELECT contract, sum(value::numeric)::text FROM transfer_events "
                              "WHERE environment_id = $1 GROUP BY contract",
                              {env.toUtf8()});
    QCOMPARE(sums.rows(), int(expectedValue.size()));
    for (int i = 0; i < sums.rows(); ++i)
        QCOMPARE(QString::fromUtf8(sums.text(i, 1)),
                 chain::u256::toDecimal(expectedValue[QString::fromUtf8(sums.text(i, 0))]));
    // Balances: received minus sent per (token, holder), from the node's logs, against the
    // token_balances view (the zero address is no holder).
    QHash<QString, std::pair<chain::SignedAmount, int>> expectedBalance;
    for (const chain::LogEntry& l : nodeLogs) {
        const auto d = indexer::decodeTransfer(l);
        const auto* t = std::get_if<indexer::Transfer>(&d);
        if (!t)
            continue;
        const chain::SignedAmount v(t->value);
        if (!t->from.isZero()) {
            auto& e = expectedBalance[t->contract.toHex() + t->from.toHex()];
            e.first -= v;
            ++e.second;
        }
        if (!t->to.isZero()) {
            auto& e = expectedBalance[t->contract.toHex() + t->to.toHex()];
            e.first += v;
            ++e.second;
        }
    }
    const auto balances = db->run("t_balances",
                                  "SELECT contract, holder, balance, transfer_sides FROM "
                                  "token_balances WHERE environment_id = $1",
                                  {env.toUtf8()});
    QVERIFY(expectedBalance.size() > 10); // 2 tokens, 12 holders and the sender
    QCOMPARE(balances.rows(), int(expectedBalance.size()));
    for (int i = 0; i < balances.rows(); ++i) {
        const QString key = QString::fromUtf8(balances.text(i, 0) + balances.text(i, 1));
        QVERIFY2(expectedBalance.contains(key), qPrintable(key));
        QCOMPARE(QString::fromUtf8(balances.text(i, 2)),
                 chain::amount::toString(expectedBalance[key].first));
        QCOMPARE(balances.int64(i, 3), expectedBalance[key].second);
    }
}

} // namespace forkscope::test
