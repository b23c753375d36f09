// The managed anvil: found, started on a free loopback port, answering, and stopped.
#include "lab/Devnet.h"
#include "rpc/EthClient.h"

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
    devnet.stop();
    QVERIFY(!devnet.isRunning());
    QTRY_VERIFY(!processAlive(pid));
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
    qputenv("FORKSCOPE_ANVIL", "/nonexistent/anvil");
    try {
        lab::Devnet::locateAnvil();
        QFAIL("accepted a missing binary");
    } catch (const lab::DevnetError& e) {
        QVERIFY2(e.message().contains("FORKSCOPE_ANVIL") &&
                     e.message().contains("/nonexistent/anvil"),
                 qPrintable(e.message()));
    }
    qunsetenv("FORKSCOPE_ANVIL");
    QVERIFY(!lab::Devnet::locateAnvil().isEmpty());
}

QTEST_GUILESS_MAIN(TestDevnet)
#include "tst_devnet.moc"
