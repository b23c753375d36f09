// The JSON-RPC client against a real anvil, and against a local server for the faults a
// real node will not produce on demand (silence, junk, HTTP errors).
#include "RawHttpServer.h"

#include "chain/Keccak.h"
#include "lab/Devnet.h"
#include "rpc/EthClient.h"
#include "rpc/JsonRpcClient.h"
#include <QScopeGuard>

#include <QJsonObject>
#include <QSignalSpy>
#include <QtTest>

using namespace forkscope;
using rpc::RpcError;

class TestJsonRpcClient : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void chainId();
    void blockNumberFollowsMining();
    void headerLinksToParent();
    void asyncCallEmitsFinished();
    void batch();
    void unknownMethodIsRemoteError();
    void logsOfNothing();
    void missingBlockIsNull();
    void timeout();
    void faults_data();
    void faults();
    void batchWithMissingEntry();
    void connectionRefused();
    void malformedBlockNamesField();
    void malformedLogNamesTheNode();
    void replyOverTheCapIsCutOff_data();
    void replyOverTheCapIsCutOff();
    void largeReplyIsReadWhole_data();
    void largeReplyIsReadWhole();

private:
    lab::Devnet m_devnet;
    std::unique_ptr<rpc::JsonRpcClient> m_client;
};

void TestJsonRpcClient::initTestCase()
{
    m_devnet.start();
    m_client = std::make_unique<rpc::JsonRpcClient>(m_devnet.url());
}

void TestJsonRpcClient::cleanupTestCase()
{
    m_client.reset();
    m_devnet.stop();
}

void TestJsonRpcClient::chainId()
{
    rpc::EthClient eth(*m_client);
    QCOMPARE(eth.chainId(), 31337u);
}

void TestJsonRpcClient::blockNumberFollowsMining()
{
    rpc::EthClient eth(*m_client);
    const auto before = eth.blockNumber();
    m_client->callBlocking("anvil_mine", {"0x3"});
    QCOMPARE(eth.blockNumber(), before + 3);
}

void TestJsonRpcClient::headerLinksToParent()
{
    rpc::EthClient eth(*m_client);
    m_client->callBlocking("anvil_mine", {"0x2"});
    const auto head = eth.blockNumber();
    QVERIFY(head >= 2);
    const auto child = eth.blockByNumber(head);
    const auto parent = eth.blockByNumber(head - 1);
    QVERIFY(child && parent);
    QCOMPARE(child->number, head);
    QCOMPARE(child->parentHash, parent->hash);
    QVERIFY(child->hash != parent->hash);
    // The same block by hash.
    const auto byHash = eth.blockByHash(child->hash);
    QVERIFY(byHash);
    QCOMPARE(*byHash, *child);
}

void TestJsonRpcClient::asyncCallEmitsFinished()
{
    rpc::RpcCall* call = m_client->call("eth_chainId");
    QSignalSpy spy(call, &rpc::RpcCall::finished);
    QVERIFY(spy.wait(5000));
    QVERIFY(call->response().ok());
    QCOMPARE(call->response().result.toString(), QStringLiteral("0x7a69"));
    delete call;
}

void TestJsonRpcClient::batch()
{
    rpc::EthClient eth(*m_client);
    m_client->callBlocking("anvil_mine", {"0x4"});
    const auto head = eth.blockNumber();
    const auto headers = eth.blocksByNumber(head - 3, head);
    QCOMPARE(headers.size(), 4);
    for (int i = 0; i < 4; ++i) {
        QVERIFY(headers[i]);
        QCOMPARE(headers[i]->number, head - 3 + i);
        if (i > 0)
            QCOMPARE(headers[i]->parentHash, headers[i - 1]->hash);
    }
    // Mixed batch: one good, one failing entry; each gets its own outcome.
    const auto replies = m_client->batchBlocking(
        {{"eth_chainId", {}}, {"no_such_method", {}}, {"eth_blockNumber", {}}});
    QCOMPARE(replies.size(), 3);
    QVERIFY(replies[0].ok());
    QVERIFY(!replies[1].ok());
    QCOMPARE(replies[1].error->kind, RpcError::Kind::Remote);
    QVERIFY(replies[2].ok());
}

void TestJsonRpcClient::unknownMethodIsRemoteError()
{
    try {
        m_client->callBlocking("eth_noSuchMethod");
        QFAIL("no error");
    } catch (const rpc::RpcException& e) {
        QCOMPARE(e.error().kind, RpcError::Kind::Remote);
        QCOMPARE(e.error().code, -32601);
        QVERIFY(!e.error().message.isEmpty());
        QVERIFY(!e.error().isUnavailability());
        QVERIFY2(QString(e.what()).contains("eth_noSuchMethod"), e.what());
    }
}

void TestJsonRpcClient::logsOfNothing()
{
    rpc::EthClient eth(*m_client);
    rpc::LogFilter f;
    f.fromBlock = 0;
    f.toBlock = eth.blockNumber();
    f.topics = {{chain::eventTopic("Transfer(address,address,uint256)")}};
    QCOMPARE(eth.getLogs(f).size(), 0);
}

void TestJsonRpcClient::missingBlockIsNull()
{
    rpc::EthClient eth(*m_client);
    QVERIFY(!eth.blockByNumber(eth.blockNumber() + 1000).has_value());
}

namespace {
QStringList g_warnings;
void recordWarnings(QtMsgType type, const QMessageLogContext&, const QString& message)
{
    if (type != QtDebugMsg && type != QtInfoMsg)
        g_warnings << message;
}
} // namespace

void TestJsonRpcClient::timeout()
{
    // A timed-out reply is aborted: reading it printed "QIODevice::read
    // (QNetworkReplyHttpImpl): device not open" on stderr for every timeout.
    g_warnings.clear();
    const auto previous = qInstallMessageHandler(recordWarnings);
    const auto restore = qScopeGuard([previous] { qInstallMessageHandler(previous); });
    test::RawHttpServer silent;
    silent.setMode(test::RawHttpServer::Mode::Silent);
    rpc::JsonRpcClient client(silent.url());
    client.setTimeout(std::chrono::milliseconds(300));
    QElapsedTimer t;
    t.start();
    try {
        client.callBlocking("eth_chainId");
        QFAIL("no timeout");
    } catch (const rpc::RpcException& e) {
        QCOMPARE(e.error().kind, RpcError::Kind::Timeout);
        QVERIFY(e.error().isUnavailability());
        QVERIFY2(e.error().message.contains("300 ms"), qPrintable(e.error().message));
    }
    QCOMPARE(silent.requestCount(), 1);
    QVERIFY2(g_warnings.isEmpty(), qPrintable(g_warnings.join('\n')));
}

void TestJsonRpcClient::faults_data()
{
    // clang-format off
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("junk body") << 200 << QByteArray("<html>gateway</html>")
                               << int(RpcError::Kind::Malformed) << "not JSON";
    QTest::newRow("empty body") << 200 << QByteArray() << int(RpcError::Kind::Malformed)
                                << "not JSON";
    QTest::newRow("truncated JSON") << 200 << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"res")
                                    << int(RpcError::Kind::Malformed) << "not JSON";
    QTest::newRow("neither result nor error")
        << 200 << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1}") << int(RpcError::Kind::Malformed)
        << "neither";
    QTest::newRow("array for single call") << 200 << QByteArray("[1,2]")
                                           << int(RpcError::Kind::Malformed) << "unexpected JSON";
    QTest::newRow("wrong id") << 200 << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":999,\"result\":\"0x1\"}")
                              << int(RpcError::Kind::Malformed) << "does not match";
    QTest::newRow("error not an object")
        << 200 << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":\"boom\"}")
        << int(RpcError::Kind::Malformed) << "error";
    QTest::newRow("HTTP 503 text") << 503 << QByteArray("upstream unavailable")
                                   << int(RpcError::Kind::Http) << "upstream unavailable";
    QTest::newRow("HTTP 429 with JSON-RPC error")
        << 429 << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32005,\"message\":\"rate limited\"}}")
        << int(RpcError::Kind::Remote) << "rate limited";
    // clang-format on
}

void TestJsonRpcClient::faults()
{
    QFETCH(int, status);
    QFETCH(QByteArray, body);
    QFETCH(int, kind);
    QFETCH(QString, mentions);
    test::RawHttpServer server;
    server.respondWith(status, body);
    rpc::JsonRpcClient client(server.url());
    try {
        client.callBlocking("eth_chainId");
        QFAIL("accepted a faulty reply");
    } catch (const rpc::RpcException& e) {
        QCOMPARE(int(e.error().kind), kind);
        QVERIFY2(e.error().toString().contains(mentions), qPrintable(e.error().toString()));
        QVERIFY2(e.error().toString().contains(server.url().toString(QUrl::StripTrailingSlash)),
                 qPrintable(e.error().toString()));
    }
    // The request we sent is well-formed JSON-RPC 2.0.
    const auto sent = QJsonDocument::fromJson(server.lastRequestBody()).object();
    QCOMPARE(sent.value("jsonrpc").toString(), QStringLiteral("2.0"));
    QCOMPARE(sent.value("method").toString(), QStringLiteral("eth_chainId"));
}

void TestJsonRpcClient::batchWithMissingEntry()
{
    test::RawHttpServer server;
    rpc::JsonRpcClient client(server.url());
    // Ids start at 1 for a fresh client: answer only the first of two.
    server.respondWith(200, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"0x7a69\"}]");
    const auto replies = client.batchBlocking({{"eth_chainId", {}}, {"eth_blockNumber", {}}});
    QCOMPARE(replies.size(), 2);
    QVERIFY(replies[0].ok());
    QVERIFY(!replies[1].ok());
    QCOMPARE(replies[1].error->kind, RpcError::Kind::Malformed);
    QVERIFY(replies[1].error->message.contains("no entry for request id 2"));
}

void TestJsonRpcClient::connectionRefused()
{
    const quint16 port = lab::Devnet::findFreePort(); // nothing listens there now
    rpc::JsonRpcClient client(QUrl(QStringLiteral("http://127.0.0.1:%1").arg(port)));
    try {
        client.callBlocking("eth_chainId");
        QFAIL("no error");
    } catch (const rpc::RpcException& e) {
        QCOMPARE(e.error().kind, RpcError::Kind::Transport);
        QVERIFY(e.error().isUnavailability());
    }
}

void TestJsonRpcClient::malformedBlockNamesField()
{
    test::RawHttpServer server;
    server.respondWith(200, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"number\":\"0x1\",\"hash\":"
                            "\"0x1234\",\"parentHash\":\"0x00\",\"timestamp\":\"0x1\"}}");
    rpc::JsonRpcClient client(server.url());
    rpc::EthClient eth(client);
    try {
        eth.blockByNumber(1);
        QFAIL("accepted a short hash");
    } catch (const rpc::RpcException& e) {
        QCOMPARE(e.error().kind, RpcError::Kind::Malformed);
        QVERIFY2(e.error().message.contains("eth_getBlockByNumber(0x1).hash"),
                 qPrintable(e.error().message));
        QVERIFY2(e.error().message.contains("expected 32 bytes"), qPrintable(e.error().message));
    }
}

void TestJsonRpcClient::malformedLogNamesTheNode()
{
    // backfill_ranges.last_error read "malformed reply from  (" : the URL was missing
    // whenever the reply itself was fine JSON-RPC but its content did not parse.
    test::RawHttpServer server;
    server.respondWith(200, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":[{\"address\":\"0x12\"}]}");
    rpc::JsonRpcClient client(server.url());
    rpc::EthClient eth(client);
    try {
        eth.getLogs({1, 2, {}, {}, {}});
        QFAIL("accepted a malformed log");
    } catch (const rpc::RpcException& e) {
        QCOMPARE(e.error().kind, RpcError::Kind::Malformed);
        QVERIFY2(e.error().toString().contains(
                     "from " + server.url().toString(QUrl::RemoveUserInfo) + " (eth_getLogs"),
                 qPrintable(e.error().toString()));
    }
}

void TestJsonRpcClient::replyOverTheCapIsCutOff_data()
{
    QTest::addColumn<QByteArray>("raw");
    const QByteArray big(3 * 1024 * 1024, ' ');
    QTest::newRow("Content-Length 10^12, never sent")
        << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                      "Content-Length: 1000000000000\r\n\r\n{\"jsonrpc\":\"2.0\",");
    QTest::newRow("3 MiB, announced")
        << QByteArray("HTTP/1.1 200 OK\r\nContent-Length: " + QByteArray::number(big.size() + 2) +
                      "\r\n\r\n{" + big + "}");
    QTest::newRow("3 MiB chunked, no length, never ends")
        << QByteArray("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" +
                      QByteArray::number(big.size(), 16) + "\r\n" + big + "\r\n");
}

void TestJsonRpcClient::replyOverTheCapIsCutOff()
{
    // A reply is read whole into memory, so its size is capped: beyond it the call fails at
    // once with TooLarge (a generous deadline shows it did not wait for one).
    QFETCH(QByteArray, raw);
    test::RawHttpServer server;
    server.respondRaw(raw);
    rpc::JsonRpcClient client(server.url());
    client.setTimeout(std::chrono::milliseconds(60000));
    client.setMaxReplyBytes(1024 * 1024);
    try {
        client.callBlocking("eth_getLogs");
        QFAIL("read a reply over the cap");
    } catch (const rpc::RpcException& e) {
        QCOMPARE(e.error().kind, RpcError::Kind::TooLarge);
        QVERIFY2(e.error().toString().contains("exceeds the 1 MiB reply cap"),
                 qPrintable(e.error().toString()));
    }
}

void TestJsonRpcClient::largeReplyIsReadWhole_data()
{
    // The body is drained as it arrives, in many reads, into a buffer that grows (or is
    // reserved from Content-Length) and parsed in place: every byte must arrive once, in order.
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<QByteArray>("expected");
    QByteArray text;
    for (int i = 0; text.size() < 3 * 1024 * 1024; ++i)
        text += QByteArray::number(i) + ',';
    const QByteArray body = R"({"jsonrpc":"2.0","id":1,"result":")" + text + R"("})";
    QTest::newRow("3 MiB, announced")
        << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                      QByteArray::number(body.size()) + "\r\n\r\n" + body)
        << text;
    QTest::newRow("3 MiB chunked, no length")
        << QByteArray("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                      "Transfer-Encoding: chunked\r\n\r\n" +
                      QByteArray::number(body.size(), 16) + "\r\n" + body + "\r\n0\r\n\r\n")
        << text;
}

void TestJsonRpcClient::largeReplyIsReadWhole()
{
    QFETCH(QByteArray, raw);
    QFETCH(QByteArray, expected);
    test::RawHttpServer server;
    server.respondRaw(raw);
    rpc::JsonRpcClient client(server.url());
    client.setTimeout(std::chrono::milliseconds(60000));
    client.setMaxReplyBytes(16 * 1024 * 1024);
    const QJsonValue result = client.callBlocking("eth_getLogs");
    QCOMPARE(result.toString().size(), expected.size());
    QCOMPARE(result.toString().toLatin1(), expected);
}

QTEST_GUILESS_MAIN(TestJsonRpcClient)
#include "tst_jsonrpcclient.moc"
