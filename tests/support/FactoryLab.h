#pragma once

// What the factory suites share: a DemoFactory chain per test row on a real anvil, the store
// as a data row, and the checks every row makes through the contract's surface
// (store::ContractReader) against what the node says, decoded here by hand. Header-only, as
// BackendLab.h.
#include "BackendLab.h"
#include "FactoryChain.h"
#include "chain/Keccak.h"

#include <QFile>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

namespace forkscope::test {

class FactoryLab : public BackendLab
{
protected:
    // A chain of its own (and a seed of its own) per row: reorgs change it.
    void newChain(int seed)
    {
        m_chain.reset();
        m_lab = std::make_unique<IndexerLab>();
        m_chain = std::make_unique<FactoryChain>(*m_lab);
        m_random.seed(quint32(qHash(QString::fromLatin1(QTest::currentDataTag()))) + quint32(seed));
    }

    // Each store; a file of its own per test function (each row runs on a chain of its own).
    void rows()
    {
        QTest::addColumn<QString>("db");
        QTest::newRow("sqlite") << m_dir.filePath(
            QString::fromLatin1(QTest::currentTestFunction()) + QStringLiteral(".sqlite"));
        QTest::newRow("postgresql") << m_cluster.url();
    }

    QStringList factoryArgs(const QString& db, const QString& env) const
    {
        return {QStringLiteral("index"),
                QStringLiteral("--rpc"),
                m_lab->devnet().url().toString(),
                QStringLiteral("--db"),
                db,
                QStringLiteral("--env"),
                env,
                QStringLiteral("--factory"),
                m_chain->factory().toHex(),
                QStringLiteral("--factory-event"),
                kPairCreated,
                QStringLiteral("--child-arg"),
                QStringLiteral("pair"),
                QStringLiteral("--batch-size"),
                QStringLiteral("3"),
                QStringLiteral("--exit-when-synced")};
    }

    // The stored children, logs and balances of `env` are the node's, up to the checkpoint:
    // each child from its creation event, each of its logs from that block on, each holder's
    // balance the sum of the node's Transfers, and no row of any other contract.
    void expectTheNodesChildren(Backend& b, const QString& env)
    {
        store::ContractReader& r = b.open();
        const qint64 cp = checkpointOf(r, env);
        QVERIFY(cp > 0);
        const QList<NodeChild> node = m_chain->nodeChildren(quint64(cp));
        QList<NodeChild> stored;
        for (auto q = r.query(QStringLiteral("SELECT child, block_number, log_index, factory "
                                             "FROM factory_children WHERE environment_id = ? "
                                             "ORDER BY block_number, log_index"),
                              {env});
             q->next();) {
            QCOMPARE(q->value(3).toString(), m_chain->factory().toHex());
            stored << NodeChild{q->value(0).toString(), q->value(1).toLongLong(),
                                q->value(2).toLongLong()};
        }
        QCOMPARE(stored, node);

        // Every log of the factory and its children, once: a child's constructor mint,
        // logged before the creation event, included. Per child, every log from its
        // creation block on (an address has no logs before its creation).
        QList<chain::Address> addresses{m_chain->factory()};
        for (const NodeChild& c : node)
            addresses << chain::Address::fromHex(c.address, QStringLiteral("child"));
        QList<chain::LogEntry> nodeLogs;
        for (qsizetype i = 0; i < addresses.size(); i += 500) // anvil takes any number
            nodeLogs +=
                m_lab->eth().getLogs(rpc::LogFilter::range(0, quint64(cp), addresses.mid(i, 500)));
        QSet<QString> expected;
        // contract -> holder -> balance, summed from the node's Transfers
        QHash<QString, QHash<QString, qint64>> sums;
        const chain::Hash32 transfer =
            chain::eventTopic(QStringLiteral("Transfer(address,address,uint256)"));
        const QString zero = QStringLiteral("0x") + QString(40, QLatin1Char('0'));
        for (const chain::LogEntry& l : nodeLogs) {
            expected << QStringLiteral("%1/%2/%3/%4")
                            .arg(l.blockNumber)
                            .arg(l.logIndex)
                            .arg(l.address.toHex(), l.transactionHash.toHex());
            if (l.topics.size() != 3 || l.topics[0] != transfer)
                continue;
            const qint64 value = l.data.right(8).toHex().toLongLong(nullptr, 16);
            const QString from = QStringLiteral("0x") + l.topics[1].toByteArray().right(20).toHex();
            const QString to = QStringLiteral("0x") + l.topics[2].toByteArray().right(20).toHex();
            if (from != zero)
                sums[l.address.toHex()][from] -= value;
            if (to != zero)
                sums[l.address.toHex()][to] += value;
        }
        // The constructors' mints are there, each before its factory's event in the same
        // block.
        for (const NodeChild& c : node) {
            bool mintBefore = false;
            for (const chain::LogEntry& l : nodeLogs)
                mintBefore = mintBefore ||
                             (l.address.toHex() == c.address && qint64(l.blockNumber) == c.block &&
                              qint64(l.logIndex) < c.logIndex);
            QVERIFY2(mintBefore, qPrintable(c.address));
        }
        QSet<QString> got;
        qint64 rows = 0;
        for (auto q = r.query(QStringLiteral("SELECT block_number, log_index, address, tx_hash "
                                             "FROM logs WHERE environment_id = ?"),
                              {env});
             q->next(); ++rows)
            got << QStringLiteral("%1/%2/%3/%4")
                       .arg(q->value(0).toLongLong())
                       .arg(q->value(1).toLongLong())
                       .arg(q->value(2).toString(), q->value(3).toString());
        QCOMPARE(rows, qint64(nodeLogs.size()));
        QCOMPARE(got, expected);

        // Per child, each holder's balance is the node's sum; no balance of anything else.
        qint64 balances = 0;
        for (auto q = r.query(QStringLiteral("SELECT contract, holder, balance FROM "
                                             "token_balances WHERE environment_id = ?"),
                              {env});
             q->next(); ++balances) {
            const QString contract = q->value(0).toString();
            QVERIFY2(sums.contains(contract), qPrintable(contract + " is no child on the node"));
            QCOMPARE(q->value(2).toString(),
                     QString::number(sums[contract].value(q->value(1).toString(), -1)));
        }
        qint64 holders = 0;
        for (const auto& perChild : std::as_const(sums))
            holders += perChild.size();
        QCOMPARE(balances, holders);
        b.close();
    }

    // No row of a vanished child: every Transfer and outbox row not yet delivered belongs to a
    // stored log (a delivered one may wait for its retraction, expectDeliveredRetracted).
    void expectNoOrphans(Backend& b, const QString& env)
    {
        store::ContractReader& r = b.open();
        QCOMPARE(r.scalar(QStringLiteral("SELECT count(*) FROM transfer_events t WHERE "
                                         "t.environment_id = ? AND NOT EXISTS (SELECT 1 FROM "
                                         "factory_children c WHERE c.environment_id = "
                                         "t.environment_id AND c.child = t.contract)"),
                          {env}),
                 qint64(0));
        QCOMPARE(r.scalar(QStringLiteral("SELECT count(*) FROM outbox o WHERE o.environment_id "
                                         "= ? AND o.delivered_at IS NULL AND o.event_key LIKE "
                                         "'transfer:%' AND NOT EXISTS (SELECT 1 FROM logs l "
                                         "WHERE l.environment_id = o.environment_id AND "
                                         "'transfer:' || l.block_number || ':' || l.block_hash "
                                         "|| ':' || l.log_index = o.event_key)"),
                          {env}),
                 qint64(0));
        b.close();
    }

    // What was delivered and then rolled back is retracted, and the retractions delivered
    // (to `outbox`, the --outbox-file): no delivered event whose log is gone lacks its
    // retraction. Returns how many delivered events were rolled back.
    qint64 expectDeliveredRetracted(Backend& b, const QString& env, const QString& outbox)
    {
        store::ContractReader& r = b.open();
        const QString reorgedAway = QStringLiteral(
            "FROM outbox o WHERE o.environment_id = ? AND o.delivered_at IS NOT NULL AND "
            "o.event_key LIKE 'transfer:%' AND NOT EXISTS (SELECT 1 FROM logs l WHERE "
            "l.environment_id = o.environment_id AND 'transfer:' || l.block_number || ':' || "
            "l.block_hash || ':' || l.log_index = o.event_key)");
        const qint64 gone = r.scalar(QStringLiteral("SELECT count(*) ") + reorgedAway, {env});
        [&] {
            QCOMPARE(
                r.scalar(QStringLiteral("SELECT count(*) ") + reorgedAway +
                             QStringLiteral(" AND NOT EXISTS (SELECT 1 FROM outbox x WHERE "
                                            "x.environment_id = o.environment_id AND x.event_key "
                                            "= 'retract:' || o.event_key AND x.delivered_at IS "
                                            "NOT NULL)"),
                         {env}),
                qint64(0));
            const qint64 retracted = r.scalar(QStringLiteral("SELECT count(*) FROM outbox WHERE "
                                                             "environment_id = ? AND event_key "
                                                             "LIKE 'retract:%'"),
                                              {env});
            // Each retraction in the file, once or (a process killed while sending it) more.
            QFile lines(outbox);
            QVERIFY(lines.open(QIODevice::ReadOnly));
            const QString text = QString::fromUtf8(lines.readAll());
            QSet<QString> keys;
            static const QRegularExpression kRetracted(
                QStringLiteral("\"type\":\"retracted\",\"eventKey\":\"([^\"]+)\""));
            for (auto m = kRetracted.globalMatch(text); m.hasNext();)
                keys << m.next().captured(1);
            QCOMPARE(qint64(keys.size()), retracted);
        }();
        b.close();
        return gone;
    }

    QTemporaryDir m_dir;
    std::unique_ptr<FactoryChain> m_chain;
    QRandomGenerator m_random;
};

} // namespace forkscope::test
