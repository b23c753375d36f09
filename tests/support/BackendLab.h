#pragma once

// What the suites that run the same indexer tests on both stores share: a
// store as a data row (`sqlite`, `postgresql`), a lab chain with two tokens on a real anvil,
// a throwaway PostgreSQL cluster, and the checks every row makes through the contract's
// surface (store::ContractReader). Header-only: test code is built with Qt's casts from
// ASCII, the support library without.
#include "IndexerLab.h"
#include "lab/PgLab.h"
#include "store/ContractReader.h"
#include "store/Database.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContractReader.h"

#include <QProcessEnvironment>
#include <QSet>
#include <QtTest>

namespace forkscope::test {

// One store, as the commands take it (--db) and as a test reads it.
struct Backend
{
    explicit Backend(QString url) : db(std::move(url)) {}
    QString db;
    std::unique_ptr<store::Database> sqlite;
    std::unique_ptr<store::pg::PgConnection> pg;
    std::unique_ptr<store::ContractReader> reader;

    // A fresh connection each time: reads see what the processes committed since.
    store::ContractReader& open()
    {
        reader.reset();
        sqlite.reset();
        pg.reset();
        if (store::pg::isPostgresUrl(db)) {
            pg = store::pg::PgConnection::open(db);
            reader = std::make_unique<store::pg::PgContractReader>(*pg);
        } else {
            sqlite = store::Database::open(db);
            reader = std::make_unique<store::SqliteContractReader>(*sqlite);
        }
        return *reader;
    }
    void close()
    {
        reader.reset();
        sqlite.reset();
        pg.reset();
    }
};

// A suite's fixture: derive the test object from it (after QObject).
class BackendLab
{
protected:
    // The lab chain: two tokens, 12 spray transactions each, and an approval (a log of the
    // contract that is not a Transfer); then the cluster.
    void startLab()
    {
        m_lab = std::make_unique<IndexerLab>();
        lab::DemoToken& aaa = m_lab->deployToken(QStringLiteral("AAA"));
        m_lab->deployToken(QStringLiteral("BBB"));
        m_lab->sprayAll(12, 3, 10);
        // approve(holder 2, 77): a log of the contract that is not a Transfer.
        aaa.send(QByteArray::fromHex("095ea7b3") + QByteArray(12, '\0') +
                 lab::DemoToken::sprayHolder(2).toByteArray() +
                 chain::u256::toBigEndian32(chain::U256(77)));
        m_cluster.start();
    }

    // The data rows: each store, as `--db` takes it.
    void backends()
    {
        QTest::addColumn<QString>("db");
        QTest::newRow("sqlite") << m_lab->tempPath(QStringLiteral("backends.sqlite"));
        QTest::newRow("postgresql") << m_cluster.url();
    }

    QStringList indexArgs(const QString& db, const QString& env) const
    {
        return QStringList{QStringLiteral("index"),
                           QStringLiteral("--rpc"),
                           m_lab->devnet().url().toString(),
                           QStringLiteral("--db"),
                           db,
                           QStringLiteral("--env"),
                           env,
                           QStringLiteral("--batch-size"),
                           QStringLiteral("8")} +
               m_lab->contractArgs();
    }

    qint64 checkpointOf(store::ContractReader& r, const QString& env) const
    {
        const auto cp = r.checkpoint(env, 31337, QStringLiteral("default"));
        return cp ? cp->number : -1;
    }

    // The environment's checkpoint is the node's head block (its height and its hash).
    bool onHead(Backend& b, const QString& env)
    {
        try {
            store::ContractReader& r = b.open();
            const auto cp = r.checkpoint(env, 31337, QStringLiteral("default"));
            const auto head = m_lab->eth().latestBlock();
            return cp && head && cp->number == qint64(head->number) &&
                   cp->hash == head->hash.toHex();
        } catch (const std::exception&) {
            return false; // not created yet
        }
    }

    // Every log of the contracts from `fromBlock` (the environment's --from-block) up to the
    // checkpoint, once, as the node has it, read through the `logs` surface; `rows` says how
    // many.
    void expectEveryLogOnce(Backend& b, const QString& env, qint64& rows, qint64 fromBlock = 0)
    {
        store::ContractReader& r = b.open();
        const qint64 cp = checkpointOf(r, env);
        QVERIFY(cp >= 0);
        rpc::LogFilter f;
        f.fromBlock = std::uint64_t(fromBlock);
        f.toBlock = std::uint64_t(cp);
        f.addresses = m_lab->contracts();
        const auto nodeLogs = m_lab->eth().getLogs(f);
        QSet<QString> expected;
        for (const auto& l : nodeLogs)
            expected << QStringLiteral("%1/%2/%3")
                            .arg(l.blockNumber)
                            .arg(l.logIndex)
                            .arg(l.transactionHash.toHex());
        QSet<QString> got;
        rows = 0;
        for (auto q =
                 r.query(QStringLiteral("SELECT block_number, log_index, tx_hash FROM logs WHERE "
                                        "environment_id = ?"),
                         {env});
             q->next(); ++rows)
            got << QStringLiteral("%1/%2/%3")
                       .arg(q->value(0).toLongLong())
                       .arg(q->value(1).toLongLong())
                       .arg(q->value(2).toString());
        QCOMPARE(rows, qint64(nodeLogs.size()));
        QCOMPARE(got, expected);
    }

    // `forkscope verify` of the environment against the lab's node.
    QStringList verifyArgs(const QString& db, const QString& env) const
    {
        return {QStringLiteral("verify"),
                QStringLiteral("--db"),
                db,
                QStringLiteral("--env"),
                env,
                QStringLiteral("--rpc"),
                m_lab->devnet().url().toString()};
    }

    // The checkpoint is at the node's head, and every log is there once.
    void expectSyncedWithEveryLog(Backend& b, const QString& env)
    {
        QCOMPARE(checkpointOf(b.open(), env), qint64(m_lab->eth().blockNumber()));
        qint64 rows = 0;
        expectEveryLogOnce(b, env, rows);
        b.close();
    }

    // Each backend times each of `values`, as a second column `column`.
    void backendsTimes(const char* column, std::initializer_list<const char*> values)
    {
        QTest::addColumn<QString>("db");
        QTest::addColumn<QString>(column);
        for (const char* v : values) {
            QTest::addRow("sqlite, %s", v)
                << m_lab->tempPath(QStringLiteral("backends.sqlite")) << QString::fromLatin1(v);
            QTest::addRow("postgresql, %s", v) << m_cluster.url() << QString::fromLatin1(v);
        }
    }

    // What a reader sees of an environment, to prove that nothing changed: its checkpoint
    // and how many rows each part of the contract holds.
    QStringList stateOf(Backend& b, const QString& env)
    {
        store::ContractReader& r = b.open();
        const auto cp = r.checkpoint(env, 31337, QStringLiteral("default"));
        QStringList out{cp ? QStringLiteral("%1 %2").arg(cp->number).arg(cp->hash) : QString()};
        for (const char* table : {"blocks", "logs", "transfer_events", "outbox", "reorg_events"})
            out << QStringLiteral("%1 %2")
                       .arg(QLatin1String(table))
                       .arg(r.scalar(
                           QStringLiteral("SELECT count(*) FROM %1 WHERE environment_id = ?")
                               .arg(QLatin1String(table)),
                           {env}));
        b.close();
        return out;
    }

    // Each backend, without a crash and with the process killed at a crash point first.
    static void crashRows(const QString& sqlite, const QString& pg, const char* point)
    {
        QTest::addColumn<QString>("db");
        QTest::addColumn<QString>("crash");
        QTest::newRow("sqlite") << sqlite << QString();
        QTest::newRow("postgresql") << pg << QString();
        QTest::addRow("sqlite, killed at %s", point) << sqlite << QString::fromLatin1(point);
        QTest::addRow("postgresql, killed at %s", point) << pg << QString::fromLatin1(point);
    }

    // Killed the (skip + 1)th time the process reaches `point`.
    static QProcessEnvironment crashingAt(const QString& point, int skip)
    {
        QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
        e.insert(QStringLiteral("FORKSCOPE_CRASH_AT"), point);
        e.insert(QStringLiteral("FORKSCOPE_CRASH_AFTER"), QString::number(skip));
        return e;
    }

    std::unique_ptr<IndexerLab> m_lab;
    lab::PgLab m_cluster;
};

} // namespace forkscope::test
