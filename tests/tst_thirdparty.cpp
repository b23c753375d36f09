// A real third-party indexer in the lab: Ponder, pinned and installed from the npm
// registry by packaging/bootstrap.sh, indexes the lab's anvil into PostgreSQL through
// lab::ForeignIndexer, the way `forkscope lab run --indexer` starts an indexer. What it
// stores is compared with the node's own logs after it catches up, after reorgs that move
// transfers to other blocks, and after a kill -9 and a restart.
#include "IndexerLab.h"
#include "StoreRows.h"
#include "chain/U256.h"
#include "indexer/TransferDecoder.h"
#include "lab/ForeignIndexer.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgError.h"
#include "store/pg/PgResult.h"

#include <QSignalSpy>
#include <QtTest>
#include <csignal>

using namespace forkscope;
using namespace forkscope::test;

namespace {

// Ponder builds its project with vite before it indexes: seconds, more on a busy machine.
constexpr int kCatchUpMs = 180000;

QString ponderCommand()
{
    return QStringLiteral("exec bash '%1/resources/indexers/ponder/run.sh'")
        .arg(QStringLiteral(FORKSCOPE_SOURCE_DIR));
}

// What the node holds: one line per Transfer log of the lab's tokens, in the columns the
// Ponder project stores, sorted.
QStringList nodeTransfers(IndexerLab& lab)
{
    const std::uint64_t head = lab.eth().blockNumber();
    rpc::LogFilter filter = rpc::LogFilter::range(0, head, lab.contracts());
    filter.topics = {{indexer::transferTopic()}};
    QStringList out;
    for (const chain::LogEntry& l : lab.eth().getLogs(filter)) {
        if (l.topics.size() != 3 || l.data.size() != 32)
            continue;
        out << QStringList{QString::number(l.blockNumber),
                           l.blockHash.toHex(),
                           QString::number(l.logIndex),
                           l.transactionHash.toHex(),
                           l.address.toHex(),
                           QStringLiteral("0x") + l.topics[1].toHex().right(40),
                           QStringLiteral("0x") + l.topics[2].toHex().right(40),
                           chain::u256::toDecimal(chain::u256::fromBigEndian(l.data, "value"))}
                   .join(QLatin1Char('|'));
    }
    out.sort();
    return out;
}

// What Ponder stored, the same way; empty while its table does not exist yet.
QStringList ponderTransfers(const QString& url)
{
    try {
        auto db = store::pg::PgConnection::open(url);
        const store::pg::PgResult r =
            db->run("ponder_rows",
                    "SELECT block_number::text, block_hash, log_index::text, transaction_hash, "
                    "contract, \"from\", \"to\", amount::text FROM ponder_lab.transfer_event");
        QStringList out;
        for (int i = 0; i < r.rows(); ++i) {
            QStringList cols;
            for (int c = 0; c < 8; ++c)
                cols << QString::fromUtf8(r.text(i, c)).toLower();
            out << cols.join(QLatin1Char('|'));
        }
        out.sort();
        return out;
    } catch (const store::pg::PgError&) {
        return {};
    }
}

} // namespace

class TestThirdParty : public QObject
{
    Q_OBJECT
    StoreRows m_stores;

private slots:
    void initTestCase() { m_stores.startCluster(); }
    void placeholdersAreFilled_data();
    void placeholdersAreFilled();
    void stopEndsEverythingTheCommandStarted_data();
    void stopEndsEverythingTheCommandStarted();
    void anEmptyCommandIsRefused();
    void ponderMatchesTheNodeThroughReorgsAndAKill();
};

void TestThirdParty::placeholdersAreFilled_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("expanded");
    QTest::newRow("rpc") << "idx --rpc {rpc}"
                         << "idx --rpc http://127.0.0.1:8545";
    QTest::newRow("contracts and chain") << "idx {contracts} {chain_id}"
                                         << "idx 0x01,0x02 31337";
    QTest::newRow("database and work dir") << "idx --db {database} --dir {work_dir}"
                                           << "idx --db postgresql://h/db --dir /tmp/w";
    QTest::newRow("none") << "idx --help"
                          << "idx --help";
}

void TestThirdParty::placeholdersAreFilled()
{
    QFETCH(QString, command);
    QFETCH(QString, expanded);
    lab::ForeignIndexer::Options o;
    o.rpc = QUrl(QStringLiteral("http://127.0.0.1:8545"));
    o.contracts = {QStringLiteral("0x01"), QStringLiteral("0x02")};
    o.databaseUrl = QStringLiteral("postgresql://h/db");
    QCOMPARE(lab::ForeignIndexer::expand(command, o, QStringLiteral("/tmp/w")), expanded);
}

void TestThirdParty::stopEndsEverythingTheCommandStarted_data()
{
    QTest::addColumn<bool>("crash");
    QTest::newRow("stop") << false;
    QTest::newRow("kill -9") << true;
}

// A compound command leaves its shell waiting on children: ending the shell alone would
// leave them running, indexing on after the lab has gone.
void TestThirdParty::stopEndsEverythingTheCommandStarted()
{
    QFETCH(bool, crash);
    lab::ForeignIndexer indexer;
    lab::ForeignIndexer::Options o;
    o.command = QStringLiteral("sleep 300 & sleep 301 & echo \"$FORKSCOPE_RPC\"; wait");
    o.rpc = QUrl(QStringLiteral("http://127.0.0.1:1"));
    indexer.start(o);
    QTRY_VERIFY(indexer.logTail().contains(QLatin1String("http://127.0.0.1:1")));
    const qint64 group = indexer.processId();
    QVERIFY(group > 0);
    QVERIFY(::kill(-pid_t(group), 0) == 0); // the group is alive
    if (crash)
        indexer.kill();
    else
        indexer.stop();
    QVERIFY(!indexer.isRunning());
    QTRY_VERIFY(::kill(-pid_t(group), 0) != 0); // nothing of it is left
}

void TestThirdParty::anEmptyCommandIsRefused()
{
    lab::ForeignIndexer indexer;
    try {
        indexer.start({});
        QFAIL("an empty command was started");
    } catch (const lab::ForeignIndexerError& e) {
        QVERIFY2(e.message().contains(QLatin1String("no indexer command")),
                 qPrintable(e.message()));
    }
}

void TestThirdParty::ponderMatchesTheNodeThroughReorgsAndAKill()
{
    IndexerLab lab;
    lab::DemoToken& a = lab.deployToken("AAA");
    lab.deployToken("BBB");
    lab.sprayAll(6, 3, 12);
    const QString database = m_stores.freshDatabase(QStringLiteral("postgresql"));

    lab::ForeignIndexer ponder;
    QSignalSpy died(&ponder, &lab::ForeignIndexer::exitedUnexpectedly);
    lab::ForeignIndexer::Options options;
    options.command = ponderCommand();
    options.rpc = lab.devnet().url();
    for (const chain::Address& c : lab.contracts())
        options.contracts << c.toHex();
    options.databaseUrl = database;
    ponder.start(options);

    QStringList want = nodeTransfers(lab);
    QCOMPARE(want.size(), 2 * (1 + 6 * 3)); // a mint and 6 sprays of 3, per token
    QTRY_COMPARE_WITH_TIMEOUT(ponderTransfers(database), want, kCatchUpMs);
    QVERIFY2(died.isEmpty(), qPrintable(ponder.logTail()));

    // A reorg that drops the top blocks' transfers and mines one of them again lower in the
    // new branch: Ponder must remove the orphaned rows and store the re-included one.
    lab.reorg(3, {{a.txRequest(lab::DemoToken::sprayCalldata(2, 500, 12)), 0}});
    lab.mine(1);
    want = nodeTransfers(lab);
    QTRY_COMPARE_WITH_TIMEOUT(ponderTransfers(database), want, kCatchUpMs);

    // kill -9 while new blocks arrive, then a restart on its own state.
    lab.sprayAll(3, 2, 12);
    ponder.kill();
    lab.sprayAll(3, 2, 12);
    ponder.start(options);
    want = nodeTransfers(lab);
    QTRY_COMPARE_WITH_TIMEOUT(ponderTransfers(database), want, kCatchUpMs);
    QVERIFY2(died.isEmpty(), qPrintable(ponder.logTail()));
    ponder.stop();
    QVERIFY(!ponder.isRunning());
}

QTEST_GUILESS_MAIN(TestThirdParty)
#include "tst_thirdparty.moc"
