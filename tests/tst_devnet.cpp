// The managed anvil: found, started on a free loopback port, answering, and stopped; and
// the demo token the lab drives on it.
#include "chain/Hex.h"
#include "chain/TokenAmount.h"
#include "lab/DemoToken.h"
#include "lab/Devnet.h"
#include "rpc/EthClient.h"

#include <QJsonArray>
#include <QJsonObject>

#include <QtTest>
#include <csignal>

using namespace forkscope;

namespace {
bool processAlive(qint64 pid)
{
    return pid > 0 && ::kill(pid_t(pid), 0) == 0;
}
} // namespace

class TestDevnet : public QObject
{
    Q_OBJECT
private slots:
    void startsAnswersAndStops();
    void twoDevnetsSideBySide();
    void explicitPortInUseIsClearError();
    void badAnvilOverrideIsClearError();
    void persistedStatesLeaveNothingBehind();
    void demoTokenSpraysPaymentAmounts_data();
    void demoTokenSpraysPaymentAmounts();
};

void TestDevnet::startsAnswersAndStops()
{
    lab::Devnet devnet;
    devnet.start();
    QVERIFY(devnet.isRunning());
    QCOMPARE(devnet.url().host(), QStringLiteral("127.0.0.1"));
    rpc::JsonRpcClient client(devnet.url());
    rpc::EthClient eth(client);
    QCOMPARE(eth.chainId(), 31337u);
    QCOMPARE(eth.blockNumber(), 0u);
    const qint64 pid = devnet.processId();
    QVERIFY(processAlive(pid));
    const QString log = devnet.logPath();
    QVERIFY(QFileInfo::exists(log));
    devnet.stop();
    QVERIFY(!devnet.isRunning());
    QTRY_VERIFY(!processAlive(pid));
    // Nothing went wrong, so anvil wrote nothing: its empty log goes with it.
    QVERIFY2(!QFileInfo::exists(log), qPrintable(log));
}

void TestDevnet::twoDevnetsSideBySide()
{
    lab::Devnet a, b;
    a.start();
    b.start();
    QVERIFY(a.port() != b.port());
    rpc::JsonRpcClient ca(a.url()), cb(b.url());
    ca.callBlocking("anvil_mine", {"0x5"});
    QCOMPARE(rpc::EthClient(ca).blockNumber(), 5u);
    QCOMPARE(rpc::EthClient(cb).blockNumber(), 0u); // independent chains
}

void TestDevnet::explicitPortInUseIsClearError()
{
    lab::Devnet first;
    first.start();
    lab::Devnet second;
    lab::Devnet::Options opts;
    opts.port = first.port();
    opts.startTimeout = std::chrono::milliseconds(5000);
    try {
        second.start(opts);
        QFAIL("started twice on one port");
    } catch (const lab::DevnetError& e) {
        QVERIFY2(e.message().contains("in use") || e.message().contains("exited"),
                 qPrintable(e.message()));
    }
    QVERIFY(first.isRunning());
}

void TestDevnet::badAnvilOverrideIsClearError()
{
    // FORKSCOPE_ANVIL is a documented way to provide anvil: the value this run was given
    // (or its absence) comes back afterwards, even when a check fails, or every later test
    // would find no anvil wherever it is provided that way.
    const bool hadOverride = qEnvironmentVariableIsSet("FORKSCOPE_ANVIL");
    const QByteArray previous = qgetenv("FORKSCOPE_ANVIL");
    {
        const auto restore = qScopeGuard([&] {
            if (hadOverride)
                qputenv("FORKSCOPE_ANVIL", previous);
            else
                qunsetenv("FORKSCOPE_ANVIL");
        });
        qputenv("FORKSCOPE_ANVIL", "/nonexistent/anvil");
        try {
            lab::Devnet::locateAnvil();
            QFAIL("accepted a missing binary");
        } catch (const lab::DevnetError& e) {
            QVERIFY2(e.message().contains("FORKSCOPE_ANVIL") &&
                         e.message().contains("/nonexistent/anvil"),
                     qPrintable(e.message()));
        }
    }
    QCOMPARE(qgetenv("FORKSCOPE_ANVIL"), previous);
    QCOMPARE(qEnvironmentVariableIsSet("FORKSCOPE_ANVIL"), hadOverride);
    QVERIFY(!lab::Devnet::locateAnvil().isEmpty());
}

void TestDevnet::persistedStatesLeaveNothingBehind()
{
    // anvil writes states older than its in-memory window (~500 blocks) to disk and never
    // deletes them; by default that is ~/.foundry/anvil/tmp, so point HOME somewhere we can
    // watch: nothing may land there, and the devnet's own directory must go with stop().
    QTemporaryDir home;
    QVERIFY(home.isValid());
    const QByteArray oldHome = qgetenv("HOME");
    qputenv("HOME", home.path().toLocal8Bit());
    auto restoreHome = qScopeGuard([&] { qputenv("HOME", oldHome); });

    lab::Devnet devnet;
    devnet.start();
    const QString cache = devnet.stateCachePath();
    QVERIFY(!cache.isEmpty());
    QVERIFY(cache.startsWith(QDir::tempPath()));
    rpc::JsonRpcClient client(devnet.url());
    client.callBlocking("anvil_mine", {"0x2bc"}); // 700 blocks
    QCOMPARE(rpc::EthClient(client).blockNumber(), 700u);
    QTRY_VERIFY_WITH_TIMEOUT(!QDir(cache).isEmpty(), 10000); // anvil did persist states
    devnet.stop();
    QVERIFY(!QFileInfo::exists(cache));
    QVERIFY(!QFileInfo::exists(home.filePath(".foundry/anvil/tmp")) ||
            QDir(home.filePath(".foundry/anvil/tmp")).isEmpty());
}

void TestDevnet::demoTokenSpraysPaymentAmounts_data()
{
    QTest::addColumn<quint64>("offset");
    QTest::addColumn<quint64>("count");
    QTest::newRow("the first ten") << quint64(0) << quint64(10);
    QTest::newRow("a day of demo traffic later") << quint64(864000) << quint64(10);
    QTest::newRow("a single one") << quint64(12345) << quint64(1);
}

void TestDevnet::demoTokenSpraysPaymentAmounts()
{
    QFETCH(quint64, offset);
    QFETCH(quint64, count);
    lab::Devnet devnet;
    devnet.start();
    rpc::JsonRpcClient client(devnet.url());
    const chain::Address sender = lab::DemoToken::defaultSender(client);
    lab::DemoToken token = lab::DemoToken::deploy(client, sender, "Forkscope Demo", "FSD",
                                                  chain::U256("1000000000000000000000000000"));
    const chain::Hash32 tx = token.sprayAmounts(count, offset, 50);
    const QJsonArray logs = client.callBlocking("eth_getTransactionReceipt", {tx.toHex()})
                                .toObject()
                                .value("logs")
                                .toArray();
    QCOMPARE(quint64(logs.size()), count);
    for (quint64 i = 0; i < count; ++i) {
        const QByteArray data =
            chain::hex::parseData(logs[int(i)].toObject().value("data"), QStringLiteral("data"));
        const chain::U256 value = chain::u256::fromBigEndian(data, QStringLiteral("value"));
        // What the contract sent is what the lab says it sends (tests recompute balances)...
        QCOMPARE(value, lab::DemoToken::sprayAmount(offset + i));
        // ...and it reads as a payment: 0.01 to 99.99 FSD, not a few base units.
        const QString shown = chain::formatUnits(QString::fromStdString(value.str()), 18);
        QVERIFY2(value >= chain::U256("10000000000000000") &&
                     value < chain::U256("100000000000000000000"),
                 qPrintable(shown));
    }
}

QTEST_GUILESS_MAIN(TestDevnet)
#include "tst_devnet.moc"
