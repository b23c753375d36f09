// `forkscope index --metrics-port` as a user (or Prometheus, or curl) sees it: every
// JSON-RPC method with good and bad input, the JSON-RPC 2.0 envelope against the examples
// of the specification's section 7 (jsonrpc.org/specification), the HTTP transport's
// bounds from a raw TCP client, /metrics checked against the Prometheus text format rules,
// and the ready-ratio gate holding deliveries while nodes disagree.
#include "IndexerLab.h"
#include "LocalApiClient.h"
#include "WebhookRecorder.h"
#include "api/HttpServer.h"
#include "api/JsonRpcEnvelope.h"
#include "api/LocalApi.h"
#include "lab/FaultProxy.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTcpSocket>
#include <QtTest>
#include <csignal>

using namespace forkscope;
using test::apiCall;
using test::checkPrometheusText;
using test::http;
using test::HttpResult;
using test::IndexerLab;

namespace {
// What a raw client read: one HTTP response (1xx interim responses included, if asked).
struct RawReply
{
    int status = 0; // 0: no complete response before the client gave up
    QByteArray head;
    QByteArray body;
};

// Takes one complete response off the front of `buf` (we always send Content-Length, but
// for a 204).
std::optional<RawReply> takeResponse(QByteArray& buf)
{
    const qsizetype end = buf.indexOf("\r\n\r\n");
    if (end < 0)
        return std::nullopt;
    RawReply r;
    r.head = buf.left(end);
    r.status = r.head.mid(9, 3).toInt();
    static const QRegularExpression length("(?im)^content-length:\\s*(\\d+)\\s*$");
    const auto m = length.match(QString::fromLatin1(r.head));
    const qsizetype size = m.hasMatch() ? m.captured(1).toLongLong() : 0;
    if (buf.size() < end + 4 + size)
        return std::nullopt;
    r.body = buf.mid(end + 4, size);
    buf.remove(0, end + 4 + size);
    return r;
}

// The next response on `s`, waiting up to `waitMs` (the client's patience): a server that
// has not answered by then counts as no answer (status 0).
RawReply readResponse(QTcpSocket& s, QByteArray& buf, int waitMs = 15000, bool interim = false)
{
    QDeadlineTimer deadline(waitMs);
    for (;;) {
        if (auto r = takeResponse(buf); r && (interim || r->status >= 200))
            return *r;
        else if (r)
            continue;
        const bool moved = QTest::qWaitFor(
            [&] { return s.bytesAvailable() > 0 || s.state() != QAbstractSocket::ConnectedState; },
            int(deadline.remainingTime()));
        if (!moved || s.bytesAvailable() == 0)
            return {};
        buf += s.readAll();
    }
}

// Sends raw bytes on a new connection and reads the first final response.
RawReply rawExchange(quint16 port, const QByteArray& request)
{
    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, port);
    if (!s.waitForConnected(5000))
        return {};
    s.write(request);
    QByteArray buf;
    return readResponse(s, buf);
}

// A reply compared as the spec allows: a batch in any order, an error by its code (its
// message only has to say something).
QJsonValue normalized(const QJsonValue& v)
{
    if (v.isArray()) {
        QList<QByteArray> items;
        for (const QJsonValue& e : v.toArray())
            items << QJsonDocument(normalized(e).toObject()).toJson(QJsonDocument::Compact);
        std::sort(items.begin(), items.end());
        QJsonArray out;
        for (const QByteArray& i : items)
            out.append(QJsonDocument::fromJson(i).object());
        return out;
    }
    QJsonObject o = v.toObject();
    QJsonObject err = o.value("error").toObject();
    if (!err.isEmpty() && !err.value("message").toString().isEmpty()) {
        err.remove("message");
        o.insert("error", err);
    }
    return o;
}
} // namespace

class TestApi : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void metricsFollowTheFormatAndTheDatabase();
    void methods_data();
    void methods();
    void badRequests_data();
    void badRequests();
    void jsonRpc_data();
    void jsonRpc();
    void rawHttp_data();
    void rawHttp();
    void pipelinedRequestsOnOneConnection();
    void expectContinue();
    void connectionsAreBounded();
    void slowAndIdleClientsAreCut();
    void gateHoldsDeliveriesUntilTheRatioIsMet();

private:
    std::unique_ptr<IndexerLab> m_lab;
    QProcess m_index;
    QUrl m_api;
    QString m_contract;
    QString m_holder;
};

void TestApi::initTestCase()
{
    m_lab = std::make_unique<IndexerLab>();
    m_contract = m_lab->deployToken("AAA").address().toHex();
    m_holder = lab::DemoToken::sprayHolder(3).toHex();
    m_lab->sprayAll(5, 4, 10);
    const quint16 port = lab::Devnet::findFreePort();
    m_index.start(FORKSCOPE_BINARY,
                  m_lab->indexArgs("env", {"--metrics-port", QString::number(port), "--poll-ms",
                                           "100", "--check-interval-ms", "100"}));
    QVERIFY(m_index.waitForStarted());
    m_api = QUrl(QStringLiteral("http://127.0.0.1:%1/").arg(port));
    const qint64 head = qint64(m_lab->eth().blockNumber());
    QTRY_VERIFY_WITH_TIMEOUT(
        apiCall(m_api, "getCheckpoint").value("result").toObject().value("number").toInteger() ==
            head,
        30000);
}

void TestApi::cleanupTestCase()
{
    ::kill(pid_t(m_index.processId()), SIGINT);
    const auto run = test::waitForProcess(m_index, 20000);
    QCOMPARE(run.exitCode, 0);
}

void TestApi::metricsFollowTheFormatAndTheDatabase()
{
    const HttpResult r = http(QUrl(m_api.toString() + "metrics"));
    QCOMPARE(r.status, 200);
    QHash<QString, double> samples;
    const QStringList problems = checkPrometheusText(r.body, &samples);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join('\n')));
    const double head = double(m_lab->eth().blockNumber());
    const auto checkpointMetric = [&] {
        QHash<QString, double> s;
        checkPrometheusText(http(QUrl(m_api.toString() + "metrics")).body, &s);
        return s.value("forkscope_checkpoint_block");
    };
    QTRY_COMPARE_WITH_TIMEOUT(checkpointMetric(), head, 5000);
    QCOMPARE(samples.value("forkscope_outbox_pending"),
             double(m_lab->count("SELECT count(*) FROM outbox")));
    QCOMPARE(samples.value("forkscope_reorgs_total{reason=\"hash mismatch\"}"), 0.0);
    QCOMPARE(samples.value("forkscope_reorg_depth_bucket{le=\"+Inf\"}"), 0.0);
    QCOMPARE(
        samples.value("forkscope_node_state{node=\"" + m_lab->devnet().url().toString() + "\"}"),
        1.0);
    for (const char* required :
         {"forkscope_head_block", "forkscope_cursor_lag_blocks", "forkscope_outbox_delivered_total",
          "forkscope_truncation_halvings_total", "forkscope_reorg_depth_count"})
        QVERIFY2(samples.contains(required), required);
}

void TestApi::methods_data()
{
    // clang-format off
    QTest::addColumn<QString>("method");
    QTest::addColumn<QJsonArray>("params");
    QTest::addColumn<QString>("check"); // what the result must satisfy
    QTest::newRow("getLatestBlock") << "getLatestBlock" << QJsonArray{} << "latest";
    QTest::newRow("getBlockByHeight hex") << "getBlockByHeight" << QJsonArray{"0x1"} << "block1";
    QTest::newRow("getBlockByHeight number") << "getBlockByHeight" << QJsonArray{1} << "block1";
    QTest::newRow("getBlockByHeight beyond") << "getBlockByHeight" << QJsonArray{"0xffff"} << "null";
    QTest::newRow("getBlockById") << "getBlockById" << QJsonArray{"$hash1"} << "block1";
    QTest::newRow("blockIsValid canonical") << "blockIsValid" << QJsonArray{"$hash1"} << "true";
    QTest::newRow("blockIsValid unknown") << "blockIsValid"
                                          << QJsonArray{"0x" + QString(64, 'a')} << "false";
    QTest::newRow("getCheckpoint") << "getCheckpoint" << QJsonArray{} << "checkpoint";
    QTest::newRow("getBalances holder") << "getBalances" << QJsonArray{"$contract", "$holder"} << "balance";
    QTest::newRow("getBalances all") << "getBalances" << QJsonArray{"$contract"} << "list";
    // clang-format on
}

void TestApi::methods()
{
    QFETCH(QString, method);
    QFETCH(QJsonArray, params);
    QFETCH(QString, check);
    const auto block1 = m_lab->eth().blockByNumber(1);
    const QString holder = lab::DemoToken::sprayHolder(3).toHex();
    for (qsizetype i = 0; i < params.size(); ++i) {
        if (params[i] == "$hash1")
            params[i] = block1->hash.toHex();
        if (params[i] == "$contract")
            params[i] = m_contract;
        if (params[i] == "$holder")
            params[i] = holder;
    }
    const QJsonObject reply = apiCall(m_api, method, params);
    QVERIFY2(!reply.contains("error"), QJsonDocument(reply).toJson().constData());
    const QJsonValue r = reply.value("result");
    if (check == "latest") {
        QCOMPARE(r.toObject().value("hash").toString(), m_lab->eth().latestBlock()->hash.toHex());
    } else if (check == "block1") {
        QCOMPARE(r.toObject().value("number").toInt(), 1);
        QCOMPARE(r.toObject().value("hash").toString(), block1->hash.toHex());
        QCOMPARE(r.toObject().value("parentHash").toString(), block1->parentHash.toHex());
    } else if (check == "null") {
        QVERIFY(r.isNull());
    } else if (check == "true" || check == "false") {
        QCOMPARE(r.toBool(), check == "true");
    } else if (check == "checkpoint") {
        QCOMPARE(r.toObject().value("environmentId").toString(), QStringLiteral("env"));
        QCOMPARE(r.toObject().value("chainId").toInt(), 31337);
        QCOMPARE(r.toObject().value("hash").toString(), m_lab->eth().latestBlock()->hash.toHex());
    } else if (check == "balance") {
        QCOMPARE(r.toObject().value("balance").toString(),
                 QString::number(m_lab->count(
                     "SELECT balance FROM token_balances WHERE holder = '" + holder + "'")));
    } else if (check == "list") {
        QCOMPARE(r.toArray().size(),
                 qsizetype(m_lab->count("SELECT count(*) FROM token_balances")));
    }
}

void TestApi::badRequests_data()
{
    // clang-format off
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("mentions");
    const auto req = [](const char* method, const QJsonArray& params) {
        return QJsonDocument(QJsonObject{{"jsonrpc", "2.0"}, {"id", 1}, {"method", method}, {"params", params}}).toJson();
    };
    QTest::newRow("unknown method") << req("eth_sendTransaction", {}) << -32601 << "eth_sendTransaction";
    QTest::newRow("negative height") << req("getBlockByHeight", {-1}) << -32602 << "height";
    QTest::newRow("non-hex height") << req("getBlockByHeight", {"0xzz"}) << -32602 << "not a hex digit";
    QTest::newRow("missing height") << req("getBlockByHeight", {}) << -32602 << "height";
    QTest::newRow("short hash") << req("getBlockById", {"0x1234"}) << -32602 << "expected 32 bytes";
    QTest::newRow("bad holder") << req("getBalances", {"0x5fbdb2315678afecb367f032d93f642f64180aa3", "bob"}) << -32602
                                << "holder";
    QTest::newRow("unknown named param")
        << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"getCheckpoint","params":{"a":1}})") << -32602
        << "getCheckpoint has no param \"a\"";
    QTest::newRow("extra positional param") << req("getBlockByHeight", {1, 2}) << -32602
                                            << "getBlockByHeight takes 1 param (height), got 2";
    QTest::newRow("missing named param")
        << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"getBlockById","params":{}})") << -32602
        << "getBlockById needs param hash";
    QTest::newRow("parse error") << QByteArray("{not json") << -32700 << "parse error";
    QTest::newRow("not jsonrpc 2.0") << QByteArray(R"({"id":1,"method":"getCheckpoint"})") << -32600 << "2.0";
    QTest::newRow("object id") << QByteArray(R"({"jsonrpc":"2.0","id":{},"method":"getCheckpoint"})") << -32600
                               << "id must be a string, a number or null, not an object";
    QTest::newRow("params a string")
        << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"getCheckpoint","params":"bar"})") << -32600
        << "params must be an array or an object";
    QTest::newRow("oversized body") << (QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"getCheckpoint","pad":")") +
                                        QByteArray(100000, 'x') + "\"}")
                                     << -32600 << "larger than";
    // clang-format on
}

void TestApi::badRequests()
{
    QFETCH(QByteArray, body);
    QFETCH(int, code);
    QFETCH(QString, mentions);
    const HttpResult r = http(m_api, body, true);
    QVERIFY(r.status == 200 || (code == -32600 && r.status == 413));
    const QJsonObject err = QJsonDocument::fromJson(r.body).object().value("error").toObject();
    QCOMPARE(err.value("code").toInt(), code);
    QVERIFY2(err.value("message").toString().contains(mentions),
             qPrintable(err.value("message").toString()));
    // The server is still there.
    QVERIFY(!apiCall(m_api, "getCheckpoint").value("result").isNull());
}

void TestApi::jsonRpc_data()
{
    // Bodies and expected replies use placeholders: $hash1, $contract, $holder in bodies;
    // "$block1", "$latest", "$balance" (with their quotes) in replies. An empty reply means
    // nothing may come back (HTTP 204). Errors are compared by code.
    // clang-format off
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("reply");

    // Section 7 of the specification, "subtract" and friends adapted to our methods.
    QTest::newRow("spec: positional params")
        << QByteArray(R"({"jsonrpc": "2.0", "method": "getBlockByHeight", "params": [1], "id": 1})") << 200
        << QByteArray(R"({"jsonrpc": "2.0", "result": "$block1", "id": 1})");
    QTest::newRow("spec: positional params, second call")
        << QByteArray(R"({"jsonrpc": "2.0", "method": "getBlockById", "params": ["$hash1"], "id": 2})") << 200
        << QByteArray(R"({"jsonrpc": "2.0", "result": "$block1", "id": 2})");
    QTest::newRow("spec: named params")
        << QByteArray(R"({"jsonrpc": "2.0", "method": "getBalances", "params": {"contract": "$contract", "holder": "$holder"}, "id": 3})")
        << 200 << QByteArray(R"({"jsonrpc": "2.0", "result": "$balance", "id": 3})");
    QTest::newRow("spec: named params, other order")
        << QByteArray(R"({"jsonrpc": "2.0", "method": "getBalances", "params": {"holder": "$holder", "contract": "$contract"}, "id": 4})")
        << 200 << QByteArray(R"({"jsonrpc": "2.0", "result": "$balance", "id": 4})");
    QTest::newRow("spec: notification")
        << QByteArray(R"({"jsonrpc": "2.0", "method": "getBlockByHeight", "params": [1,2,3,4,5]})") << 204 << QByteArray();
    QTest::newRow("spec: notification, no params")
        << QByteArray(R"({"jsonrpc": "2.0", "method": "getCheckpoint"})") << 204 << QByteArray();
    QTest::newRow("spec: notification of a non-existent method")
        << QByteArray(R"({"jsonrpc": "2.0", "method": "foobar"})") << 204 << QByteArray();
    QTest::newRow("spec: non-existent method")
        << QByteArray(R"({"jsonrpc": "2.0", "method": "foobar", "id": "1"})") << 200
        << QByteArray(R"({"jsonrpc": "2.0", "error": {"code": -32601}, "id": "1"})");
    QTest::newRow("spec: invalid JSON")
        << QByteArray(R"({"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz])") << 200
        << QByteArray(R"({"jsonrpc": "2.0", "error": {"code": -32700}, "id": null})");
    QTest::newRow("spec: invalid Request object")
        << QByteArray(R"({"jsonrpc": "2.0", "method": 1, "params": "bar"})") << 200
        << QByteArray(R"({"jsonrpc": "2.0", "error": {"code": -32600}, "id": null})");
    QTest::newRow("spec: batch, invalid JSON")
        << QByteArray(R"([{"jsonrpc": "2.0", "method": "getBlockByHeight", "params": [1], "id": "1"}, {"jsonrpc": "2.0", "method"])")
        << 200 << QByteArray(R"({"jsonrpc": "2.0", "error": {"code": -32700}, "id": null})");
    QTest::newRow("spec: empty array") << QByteArray("[]") << 200
        << QByteArray(R"({"jsonrpc": "2.0", "error": {"code": -32600}, "id": null})");
    QTest::newRow("spec: invalid batch [1]") << QByteArray("[1]") << 200
        << QByteArray(R"([{"jsonrpc": "2.0", "error": {"code": -32600}, "id": null}])");
    QTest::newRow("spec: invalid batch [1,2,3]") << QByteArray("[1,2,3]") << 200
        << QByteArray(R"([{"jsonrpc": "2.0", "error": {"code": -32600}, "id": null},
                          {"jsonrpc": "2.0", "error": {"code": -32600}, "id": null},
                          {"jsonrpc": "2.0", "error": {"code": -32600}, "id": null}])");
    QTest::newRow("spec: mixed batch")
        << QByteArray(R"([
            {"jsonrpc": "2.0", "method": "getBlockByHeight", "params": [1], "id": "1"},
            {"jsonrpc": "2.0", "method": "getCheckpoint", "params": []},
            {"jsonrpc": "2.0", "method": "getBlockById", "params": ["$hash1"], "id": "2"},
            {"foo": "boo"},
            {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
            {"jsonrpc": "2.0", "method": "getLatestBlock", "id": "9"}])") << 200
        << QByteArray(R"([
            {"jsonrpc": "2.0", "result": "$block1", "id": "1"},
            {"jsonrpc": "2.0", "result": "$block1", "id": "2"},
            {"jsonrpc": "2.0", "error": {"code": -32600}, "id": null},
            {"jsonrpc": "2.0", "error": {"code": -32601}, "id": "5"},
            {"jsonrpc": "2.0", "result": "$latest", "id": "9"}])");
    QTest::newRow("spec: all-notification batch")
        << QByteArray(R"([{"jsonrpc": "2.0", "method": "getCheckpoint", "params": []},
                          {"jsonrpc": "2.0", "method": "getBlockByHeight", "params": [1]}])") << 204 << QByteArray();

    // The id is echoed as given when it is a string, a number or null; anything else is an
    // invalid request, answered with id null.
    const auto withId = [](const char* id) {
        return QByteArray(R"({"jsonrpc":"2.0","method":"getBlockByHeight","params":[1],"id":)") + id + "}";
    };
    const auto resultWithId = [](const char* id) {
        return QByteArray(R"({"jsonrpc":"2.0","result":"$block1","id":)") + id + "}";
    };
    const QByteArray invalidRequest = R"({"jsonrpc":"2.0","error":{"code":-32600},"id":null})";
    for (const char* id : {R"("abc")", R"("")", "0", "-3", "1.5", "9007199254740993", "null"})
        QTest::addRow("id: %s", id) << withId(id) << 200 << resultWithId(id);
    for (const char* id : {R"({"a":1})", "{}", "[1]", "[]", "true", "false"})
        QTest::addRow("id: %s", id) << withId(id) << 200 << invalidRequest;
    QTest::newRow("id: object, in a batch")
        << QByteArray(R"([{"jsonrpc":"2.0","method":"getCheckpoint","id":{"x":1}},
                          {"jsonrpc":"2.0","method":"getBlockByHeight","params":[1],"id":2}])") << 200
        << QByteArray(R"([{"jsonrpc":"2.0","error":{"code":-32600},"id":null},
                          {"jsonrpc":"2.0","result":"$block1","id":2}])");

    // Valid JSON that is not a request is an invalid request, not a parse error.
    for (const char* body : {"1", R"("getCheckpoint")", "true", "null", "{}",
                             R"({"jsonrpc":"1.0","method":"getCheckpoint","id":1})",
                             R"({"jsonrpc":2,"method":"getCheckpoint","id":1})",
                             R"({"jsonrpc":"2.0","id":1})",
                             R"({"jsonrpc":"2.0","method":"getCheckpoint","params":"bar","id":1})",
                             R"({"jsonrpc":"2.0","method":"getCheckpoint","params":null,"id":1})",
                             R"({"jsonrpc":"2.0","method":"getCheckpoint","params":7,"id":1})"})
        QTest::addRow("not a request: %s", body) << QByteArray(body) << 200 << invalidRequest;
    QTest::newRow("parse error: two values") << QByteArray("{} {}") << 200
        << QByteArray(R"({"jsonrpc":"2.0","error":{"code":-32700},"id":null})");
    QTest::newRow("parse error: empty body") << QByteArray("") << 200
        << QByteArray(R"({"jsonrpc":"2.0","error":{"code":-32700},"id":null})");

    // Extra params are refused, by position and by name.
    const auto call = [](const char* method, const char* params) {
        return QByteArray(R"({"jsonrpc":"2.0","id":1,"method":")") + method + R"(","params":)" + params + "}";
    };
    const QByteArray invalidParams = R"({"jsonrpc":"2.0","error":{"code":-32602},"id":1})";
    QTest::newRow("extra params: one to a method without params") << call("getCheckpoint", "[1]") << 200 << invalidParams;
    QTest::newRow("extra params: null to a method without params") << call("getLatestBlock", "[null]") << 200 << invalidParams;
    QTest::newRow("extra params: two heights") << call("getBlockByHeight", "[1, 2]") << 200 << invalidParams;
    QTest::newRow("extra params: a third to getBalances")
        << call("getBalances", R"(["$contract", "$holder", "0x1"])") << 200 << invalidParams;
    QTest::newRow("extra params: unknown name") << call("getBlockByHeight", R"({"height": 1, "extra": 2})") << 200 << invalidParams;
    QTest::newRow("extra params: a name to a method without params") << call("getLatestBlock", R"({"x": 1})") << 200 << invalidParams;
    QTest::newRow("named params: height") << call("getBlockByHeight", R"({"height": 1})") << 200
        << QByteArray(R"({"jsonrpc":"2.0","result":"$block1","id":1})");
    QTest::newRow("named params: none to a method without params") << call("getLatestBlock", "{}") << 200
        << QByteArray(R"({"jsonrpc":"2.0","result":"$latest","id":1})");

    // A batch is bounded (one reply per call, each bounded by its method).
    QByteArray full = "[", fullReply = "[", tooMany = "[";
    for (int i = 0; i < api::jsonrpc::kMaxBatch; ++i) {
        const QByteArray sep = i ? "," : "";
        full += sep + R"({"jsonrpc":"2.0","method":"getBlockByHeight","params":[1],"id":)" + QByteArray::number(i) + "}";
        fullReply += sep + R"({"jsonrpc":"2.0","result":"$block1","id":)" + QByteArray::number(i) + "}";
        tooMany += sep + R"({"jsonrpc":"2.0","method":"getCheckpoint","id":1})";
    }
    QTest::newRow("batch of the maximum size") << full + "]" << 200 << fullReply + "]";
    QTest::newRow("batch over the maximum size")
        << tooMany + R"(,{"jsonrpc":"2.0","method":"getCheckpoint","id":1}])" << 200 << invalidRequest;
    // clang-format on
}

void TestApi::jsonRpc()
{
    QFETCH(QByteArray, body);
    QFETCH(int, status);
    QFETCH(QByteArray, reply);
    const auto block1 = m_lab->eth().blockByNumber(1);
    const auto latest = m_lab->eth().latestBlock();
    const auto blockJson = [](const chain::BlockHeader& b) {
        return QJsonDocument(QJsonObject{{"number", qint64(b.number)},
                                         {"hash", b.hash.toHex()},
                                         {"parentHash", b.parentHash.toHex()},
                                         {"timestamp", qint64(b.timestamp)}})
            .toJson(QJsonDocument::Compact);
    };
    // getBalances by position is checked against the database by methods().
    const QJsonValue balance =
        apiCall(m_api, "getBalances", {m_contract, m_holder}).value("result");
    QVERIFY(balance.isObject());
    body.replace("$hash1", block1->hash.toHex().toLatin1())
        .replace("$contract", m_contract.toLatin1())
        .replace("$holder", m_holder.toLatin1());
    reply.replace("\"$block1\"", blockJson(*block1))
        .replace("\"$latest\"", blockJson(*latest))
        .replace("\"$balance\"", QJsonDocument(balance.toObject()).toJson(QJsonDocument::Compact));

    const HttpResult r = http(m_api, body, true);
    QCOMPARE(r.status, status);
    if (reply.isEmpty()) {
        QVERIFY2(r.body.isEmpty(), r.body.constData());
        return;
    }
    QJsonParseError pe{};
    const QJsonDocument got = QJsonDocument::fromJson(r.body, &pe);
    QVERIFY2(pe.error == QJsonParseError::NoError, r.body.constData());
    const QJsonDocument want = QJsonDocument::fromJson(reply, &pe);
    QVERIFY2(pe.error == QJsonParseError::NoError, reply.constData());
    const QJsonValue gotValue = got.isArray() ? QJsonValue(got.array()) : QJsonValue(got.object());
    const QJsonValue wantValue =
        want.isArray() ? QJsonValue(want.array()) : QJsonValue(want.object());
    QVERIFY2(normalized(gotValue) == normalized(wantValue),
             qPrintable("got " + r.body + "\nwant " + reply));
}

void TestApi::rawHttp_data()
{
    // clang-format off
    QTest::addColumn<QByteArray>("request");
    QTest::addColumn<int>("status");
    QTest::addColumn<QByteArray>("mentions"); // in the response body
    const QByteArray post = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";
    const QByteArray call = R"({"jsonrpc":"2.0","method":"getBlockByHeight","params":[1],"id":1})";
    const QByteArray cap = QByteArray::number(api::LocalApi::kMaxBody);

    // Refused from the headers: the client is answered at once, not when it gives up.
    QTest::newRow("content-length of 10^12")
        << post + "Content-Length: 1000000000000\r\n\r\n" + call << 413 << QByteArray("-32600");
    QTest::newRow("content-length one byte over the cap")
        << post + "Content-Length: " + QByteArray::number(api::LocalApi::kMaxBody + 1) + "\r\n\r\n" + call
        << 413 << "larger than " + cap;
    // Refused from a chunk-size line, the chunk itself never awaited.
    QTest::newRow("one chunk over the cap")
        << post + "Transfer-Encoding: chunked\r\n\r\n" + QByteArray::number(api::LocalApi::kMaxBody + 1, 16) + "\r\n" +
               QByteArray(1000, ' ')
        << 413 << QByteArray("-32600");
    QTest::newRow("a chunk size of 2^80")
        << post + "Transfer-Encoding: chunked\r\n\r\n100000000000000000000\r\n" << 413 << QByteArray("-32600");
    QByteArray manyChunks = post + "Transfer-Encoding: chunked\r\n\r\n";
    for (qsizetype sent = 0; sent <= api::LocalApi::kMaxBody; sent += 1024)
        manyChunks += "400\r\n" + QByteArray(1024, ' ') + "\r\n";
    QTest::newRow("chunks adding up past the cap") << manyChunks << 413 << QByteArray("-32600");
    QTest::newRow("chunked call under the cap")
        << post + "Transfer-Encoding: chunked\r\n\r\n10;ext=1\r\n" + call.left(16) + "\r\n" +
               QByteArray::number(call.size() - 16, 16) + "\r\n" + call.mid(16) + "\r\n0\r\nX-Trailer: 1\r\n\r\n"
        << 200 << QByteArray(R"("result")");

    // Bounded headers.
    QTest::newRow("headers over 16 KiB")
        << "GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + QByteArray(20000, 'a') + "\r\n\r\n" << 431
        << QByteArray("larger than");
    QByteArray manyHeaders = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
    for (int i = 0; i < 100; ++i)
        manyHeaders += "X-H" + QByteArray::number(i) + ": 1\r\n";
    QTest::newRow("100 header fields") << manyHeaders + "\r\n" << 431 << QByteArray("header fields");
    QTest::newRow("request line over 16 KiB")
        << "GET /" + QByteArray(20000, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n" << 414 << QByteArray("request line");

    // Framing that cannot be trusted.
    QTest::newRow("content-length and chunked")
        << post + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" << 400 << QByteArray("both");
    QTest::newRow("transfer coding other than chunked")
        << post + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n" << 501 << QByteArray("gzip");
    QTest::newRow("content-length not a number")
        << post + "Content-Length: 12abc\r\n\r\n" << 400 << QByteArray("12abc");
    QTest::newRow("conflicting content-lengths")
        << post + "Content-Length: 5\r\nContent-Length: 6\r\n\r\n{}   " << 400 << QByteArray("conflicting");
    QTest::newRow("obsolete line folding")
        << QByteArray("GET /metrics HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n folded\r\n\r\n") << 400 << QByteArray("folding");
    QTest::newRow("HTTP/2.0") << QByteArray("GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n") << 505 << QByteArray("2.0");
    QTest::newRow("not HTTP") << QByteArray("HELLO\r\n\r\n") << 400 << QByteArray("request line");

    // Routing.
    QTest::newRow("GET /") << QByteArray("GET / HTTP/1.1\r\nHost: x\r\n\r\n") << 405 << QByteArray("POST");
    QTest::newRow("POST /metrics")
        << QByteArray("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n") << 405 << QByteArray("GET");
    QTest::newRow("unknown path") << QByteArray("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n") << 404 << QByteArray();
    QTest::newRow("metrics with a query")
        << QByteArray("GET /metrics?x=1 HTTP/1.1\r\nHost: x\r\n\r\n") << 200 << QByteArray("forkscope_head_block");
    QTest::newRow("metrics over HTTP/1.0")
        << QByteArray("GET /metrics HTTP/1.0\r\n\r\n") << 200 << QByteArray("forkscope_head_block");
    QTest::newRow("absolute-form target")
        << QByteArray("GET http://127.0.0.1/metrics HTTP/1.1\r\nHost: x\r\n\r\n") << 200
        << QByteArray("forkscope_head_block");
    QTest::newRow("absolute-form target without a host")
        << QByteArray("GET http:/metrics HTTP/1.1\r\nHost: x\r\n\r\n") << 404 << QByteArray("no such path");
    QTest::newRow("bare LF line ends")
        << "POST / HTTP/1.1\nHost: x\nContent-Length: " + QByteArray::number(call.size()) + "\n\n" + call << 200
        << QByteArray(R"("result")");
    // clang-format on
}

void TestApi::rawHttp()
{
    QFETCH(QByteArray, request);
    QFETCH(int, status);
    QFETCH(QByteArray, mentions);
    const RawReply r = rawExchange(quint16(m_api.port()), request);
    QVERIFY2(r.status != 0, "no response before the client gave up");
    QCOMPARE(r.status, status);
    QVERIFY2(r.body.contains(mentions), r.body.constData());
    if (status >= 400 && status != 404 && status != 405)
        QVERIFY2(r.head.contains("Connection: close"), r.head.constData());
    // The server is still there.
    QVERIFY(!apiCall(m_api, "getCheckpoint").value("result").isNull());
}

void TestApi::pipelinedRequestsOnOneConnection()
{
    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, quint16(m_api.port()));
    QVERIFY(s.waitForConnected(5000));
    const QByteArray call = R"({"jsonrpc":"2.0","method":"getBlockByHeight","params":[1],"id":42})";
    const QByteArray notification = R"({"jsonrpc":"2.0","method":"getCheckpoint"})";
    const auto post = [](const QByteArray& body, const QByteArray& extra = {}) {
        return "POST / HTTP/1.1\r\nHost: x\r\n" + extra +
               "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" + body;
    };
    // Three requests in one write: each is answered, in order, on the same connection.
    s.write("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n" + post(notification) + post(call));
    QByteArray buf;
    const RawReply metrics = readResponse(s, buf);
    QCOMPARE(metrics.status, 200);
    QVERIFY(metrics.body.contains("forkscope_head_block"));
    const RawReply nothing = readResponse(s, buf);
    QCOMPARE(nothing.status, 204);
    QVERIFY(nothing.body.isEmpty());
    const RawReply answer = readResponse(s, buf);
    QCOMPARE(answer.status, 200);
    QCOMPARE(QJsonDocument::fromJson(answer.body).object().value("id").toInt(), 42);
    QCOMPARE(s.state(), QAbstractSocket::ConnectedState);
    // "Connection: close" is honoured after the response.
    s.write(post(call, "Connection: close\r\n"));
    const RawReply last = readResponse(s, buf);
    QCOMPARE(last.status, 200);
    QVERIFY(last.head.contains("Connection: close"));
    QVERIFY(QTest::qWaitFor([&] { return s.state() == QAbstractSocket::UnconnectedState; }, 10000));
}

void TestApi::expectContinue()
{
    QTcpSocket s;
    s.connectToHost(QHostAddress::LocalHost, quint16(m_api.port()));
    QVERIFY(s.waitForConnected(5000));
    const QByteArray call = R"({"jsonrpc":"2.0","method":"getBlockByHeight","params":[1],"id":1})";
    s.write("POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: " +
            QByteArray::number(call.size()) + "\r\n\r\n");
    QByteArray buf;
    const RawReply interim = readResponse(s, buf, 15000, true);
    QCOMPARE(interim.status, 100);
    s.write(call);
    const RawReply r = readResponse(s, buf);
    QCOMPARE(r.status, 200);
    QVERIFY2(r.body.contains(R"("result")"), r.body.constData());
}

void TestApi::connectionsAreBounded()
{
    const int max = api::HttpServer::Limits{}.maxConnections;
    std::vector<std::unique_ptr<QTcpSocket>> open;
    for (int i = 0; i < max; ++i) {
        open.push_back(std::make_unique<QTcpSocket>());
        open.back()->connectToHost(QHostAddress::LocalHost, quint16(m_api.port()));
        QVERIFY(open.back()->waitForConnected(5000));
    }
    // One more than the bound: answered at once, and closed.
    QTcpSocket extra;
    extra.connectToHost(QHostAddress::LocalHost, quint16(m_api.port()));
    QVERIFY(extra.waitForConnected(5000));
    QByteArray buf;
    const RawReply r = readResponse(extra, buf);
    QCOMPARE(r.status, 503);
    QVERIFY2(r.body.contains("open connections"), r.body.constData());
    open.clear();
    // The slots come back when the clients leave.
    QTRY_VERIFY_WITH_TIMEOUT(!apiCall(m_api, "getCheckpoint").value("result").isNull(), 10000);
}

void TestApi::slowAndIdleClientsAreCut()
{
    // A request that never completes gets 408, a connection that never sends is closed,
    // each after the server's request timeout (the client here waits longer than that).
    const int patience = int(api::HttpServer::Limits{}.requestTimeout.count()) + 15000;
    QTcpSocket slow;
    QTcpSocket idle;
    slow.connectToHost(QHostAddress::LocalHost, quint16(m_api.port()));
    idle.connectToHost(QHostAddress::LocalHost, quint16(m_api.port()));
    QVERIFY(slow.waitForConnected(5000));
    QVERIFY(idle.waitForConnected(5000));
    slow.write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\"");
    QByteArray buf;
    const RawReply r = readResponse(slow, buf, patience);
    QCOMPARE(r.status, 408);
    QVERIFY(QTest::qWaitFor([&] { return idle.state() == QAbstractSocket::UnconnectedState; },
                            patience));
}

void TestApi::gateHoldsDeliveriesUntilTheRatioIsMet()
{
    IndexerLab lab;
    lab.deployToken("AAA");
    lab.sprayAll(10, 2, 10);
    test::ThreeNodes nodes(lab.devnet().url());
    auto& good = nodes.good;
    auto& lagging = nodes.lagging;
    auto& dead = nodes.dead;
    test::WebhookRecorder hook;
    const quint16 port = lab::Devnet::findFreePort();
    QProcess p;
    p.start(FORKSCOPE_BINARY,
            lab.indexArgs("env",
                          {"--node", good.url().toString(), "--node", lagging.url().toString(),
                           "--node", dead.url().toString(), "--ready-ratio", "0.8",
                           "--check-interval-ms", "50", "--webhook", hook.url().toString(),
                           "--metrics-port", QString::number(port), "--poll-ms", "50"},
                          good.url()));
    QVERIFY(p.waitForStarted());
    const QUrl api(QStringLiteral("http://127.0.0.1:%1/").arg(port));
    const qint64 head = qint64(lab.eth().blockNumber());
    QTRY_VERIFY_WITH_TIMEOUT(
        apiCall(api, "getCheckpoint").value("result").toObject().value("number").toInteger() ==
            head,
        30000);
    // States as the API reports them; nothing delivered while 1 of 3 nodes is offline.
    QHash<QString, double> s;
    const auto deadIsOffline = [&] {
        s.clear();
        checkPrometheusText(http(QUrl(api.toString() + "metrics")).body, &s);
        return s.value("forkscope_node_state{node=\"" + dead.url().toString() + "\"}") == 3.0;
    };
    QTRY_VERIFY_WITH_TIMEOUT(deadIsOffline(), 10000);
    QCOMPARE(s.value("forkscope_node_state{node=\"" + good.url().toString() + "\"}"), 1.0);
    QCOMPARE(s.value("forkscope_node_state{node=\"" + lagging.url().toString() + "\"}"), 2.0);
    QCOMPARE(s.value("forkscope_ready_height"), -1.0);
    // Timeouts and inconsistent answers are counted (the dead node refuses: no timeout).
    QCOMPARE(s.value("forkscope_rpc_timeouts_total", -1.0), 0.0);
    QCOMPARE(s.value("forkscope_node_inconsistencies_total", -1.0), 0.0);
    QCOMPARE(s.value("forkscope_node_timeouts_total{node=\"" + good.url().toString() + "\"}", -1.0),
             0.0);
    QTest::qWait(500);
    QVERIFY(hook.acceptedKeys().isEmpty());

    // The node returns: the gate opens at the lagging node's height, not beyond.
    dead.setOffline(false);
    QTRY_VERIFY_WITH_TIMEOUT(!hook.acceptedKeys().isEmpty(), 10000);
    QTest::qWait(500);
    QCOMPARE(
        lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NOT NULL AND block_number > " +
                  QString::number(head - 5)),
        0);
    lagging.setLagBlocks(0);
    QTRY_COMPARE_WITH_TIMEOUT(lab.count("SELECT count(*) FROM outbox WHERE delivered_at IS NULL"),
                              0, 10000);
    ::kill(pid_t(p.processId()), SIGINT);
    QCOMPARE(test::waitForProcess(p, 20000).exitCode, 0);
}

QTEST_GUILESS_MAIN(TestApi)
#include "tst_api.moc"
