// `forkscope index --metrics-port` as a user (or Prometheus, or curl) sees it: every
// JSON-RPC method with good and bad input, the JSON-RPC 2.0 envelope against the examples
// of the specification's section 7 (jsonrpc.org/specification), the HTTP transport's
// bounds from a raw TCP client, /metrics checked against the Prometheus text format rules,
// and the ready-ratio gate holding deliveries while nodes disagree.
#include "IndexerLab.h"
#include "LocalApiClient.h"
#include "RawHttpClient.h"
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
using test::rawExchange;
using test::RawReply;
using test::readResponse;
using test::takeResponse;

namespace {
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

// What is wrong with one concurrent client's response, or nothing: a JSON-RPC answer
// (200) or a JSON-RPC "server busy" error (503 with Retry-After), each call with its id.
// `batch`: the number of calls in a batch, 0 for a lone call (of getBlockByHeight(1)).
QString concurrentReplyProblem(const RawReply& r, int batch,
                               const std::function<QString(int)>& idOf, const QString& block1Hash)
{
    if (r.status != 200 && r.status != 503)
        return QStringLiteral("status %1").arg(r.status);
    if (!r.head.contains("Content-Type: application/json"))
        return QStringLiteral("not JSON");
    if (r.status == 503 && !r.head.contains("Retry-After: 1\r\n"))
        return QStringLiteral("503 without Retry-After");
    QJsonParseError pe{};
    const QJsonDocument doc = QJsonDocument::fromJson(r.body, &pe);
    if (pe.error != QJsonParseError::NoError)
        return QStringLiteral("unparseable body");
    if (batch ? !doc.isArray() || doc.array().size() != batch : !doc.isObject())
        return QStringLiteral("not one response per call");
    const QJsonArray responses = batch ? doc.array() : QJsonArray{doc.object()};
    for (int call = 0; call < responses.size(); ++call) {
        const QJsonObject o = responses[call].toObject();
        if (o.value("jsonrpc") != "2.0" || o.value("id") != idOf(call))
            return QStringLiteral("call %1 without its id").arg(call);
        if (r.status == 200 && o.value("result")["hash"] != block1Hash)
            return QStringLiteral("call %1 without its result").arg(call);
        if (r.status == 503 && o.value("error")["code"] != -32005)
            return QStringLiteral("call %1 not refused as busy").arg(call);
    }
    return {};
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
    void connectionsOverTheLimit_data();
    void connectionsOverTheLimit();
    void concurrentClients_data();
    void concurrentClients();
    void waitingConnectionsAreQueued();
    void repliesWaitingAreBoundedOverAllConnections();
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
    for (const char* reason : {"hash mismatch", "parent mismatch", "absence", "repair"}) {
        const QString sample = QStringLiteral("forkscope_reorgs_total{reason=\"%1\"}").arg(reason);
        QVERIFY2(samples.contains(sample), qPrintable(sample));
        QCOMPARE(samples.value(sample), 0.0);
    }
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
        << QByteArray(R"({"jsonrpc":"2.0","id":1,"method":"getCheckpoint","params":"bar"})") << -32602
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
    const QJsonObject reply = QJsonDocument::fromJson(r.body).object();
    const QJsonObject err = reply.value("error").toObject();
    QCOMPARE(err.value("code").toInt(), code);
    QVERIFY2(err.value("message").toString().contains(mentions),
             qPrintable(err.value("message").toString()));
    // The request's id whenever it can be read: every body here that parses and is not
    // too large to read has a valid id of 1.
    const QJsonObject request = QJsonDocument::fromJson(body).object();
    const QJsonValue id = request.value("id");
    const bool readable = r.status == 200 && (id.isDouble() || id.isString() || id.isNull());
    QVERIFY2(reply.contains("id"), r.body.constData());
    QCOMPARE(reply.value("id"), readable ? id : QJsonValue(QJsonValue::Null));
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
    const auto withId = [](const char* id) -> QByteArray {
        return QByteArray(R"({"jsonrpc":"2.0","method":"getBlockByHeight","params":[1],"id":)") + id + "}";
    };
    const auto resultWithId = [](const char* id) -> QByteArray {
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

    // Valid JSON that is not a request is an invalid request, not a parse error; with id
    // null when the id cannot be read, with the request's id when it can.
    for (const char* body : {"1", R"("getCheckpoint")", "true", "null", "{}",
                             R"({"jsonrpc":"1.0","method":"getCheckpoint"})",
                             R"({"method":"getCheckpoint"})"})
        QTest::addRow("not a request: %s", body) << QByteArray(body) << 200 << invalidRequest;
    const QByteArray invalidRequest1 = R"({"jsonrpc":"2.0","error":{"code":-32600},"id":1})";
    for (const char* body : {R"({"jsonrpc":"1.0","method":"getCheckpoint","id":1})",
                             R"({"jsonrpc":2,"method":"getCheckpoint","id":1})",
                             R"({"method":"getCheckpoint","id":1})",
                             R"({"jsonrpc":"2.0","id":1})",
                             R"({"jsonrpc":"2.0","method":7,"id":1})",
                             R"({"jsonrpc":"2.0","method":null,"id":1})"})
        QTest::addRow("not a request, id readable: %s", body) << QByteArray(body) << 200 << invalidRequest1;
    QTest::newRow("not a request, string id")
        << QByteArray(R"({"jsonrpc":"2.0","method":["getCheckpoint"],"id":"req-9"})") << 200
        << QByteArray(R"({"jsonrpc":"2.0","error":{"code":-32600},"id":"req-9"})");
    // Params that are neither an array nor an object are the method's wrong params.
    for (const char* params : {R"("bar")", R"("")", "7", "null", "true"}) {
        QTest::addRow("params %s", params)
            << QByteArray(R"({"jsonrpc":"2.0","method":"getCheckpoint","params":)") + params + R"(,"id":1})"
            << 200 << QByteArray(R"({"jsonrpc":"2.0","error":{"code":-32602},"id":1})");
        QTest::addRow("params %s, string id", params)
            << QByteArray(R"({"jsonrpc":"2.0","method":"getBlockByHeight","params":)") + params + R"(,"id":"abc"})"
            << 200 << QByteArray(R"({"jsonrpc":"2.0","error":{"code":-32602},"id":"abc"})");
    }
    QTest::newRow("params a string, id null")
        << QByteArray(R"({"jsonrpc":"2.0","method":"getCheckpoint","params":"bar","id":null})") << 200
        << QByteArray(R"({"jsonrpc":"2.0","error":{"code":-32602},"id":null})");
    QTest::newRow("params a string, as a notification")
        << QByteArray(R"({"jsonrpc":"2.0","method":"getCheckpoint","params":"bar"})") << 204 << QByteArray();
    QTest::newRow("errors with ids, in a batch")
        << QByteArray(R"([{"jsonrpc":"2.0","method":"getCheckpoint","params":"bar","id":5},
                          {"jsonrpc":"1.0","method":"getCheckpoint","id":"six"},
                          {"jsonrpc":"2.0","id":7},
                          {"jsonrpc":"2.0","method":"getBlockByHeight","params":[1],"id":8}])") << 200
        << QByteArray(R"([{"jsonrpc":"2.0","error":{"code":-32602},"id":5},
                          {"jsonrpc":"2.0","error":{"code":-32600},"id":"six"},
                          {"jsonrpc":"2.0","error":{"code":-32600},"id":7},
                          {"jsonrpc":"2.0","result":"$block1","id":8}])");
    QTest::newRow("parse error: two values") << QByteArray("{} {}") << 200
        << QByteArray(R"({"jsonrpc":"2.0","error":{"code":-32700},"id":null})");
    QTest::newRow("parse error: empty body") << QByteArray("") << 200
        << QByteArray(R"({"jsonrpc":"2.0","error":{"code":-32700},"id":null})");

    // Extra params are refused, by position and by name.
    const auto call = [](const char* method, const char* params) -> QByteArray {
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
    // On the JSON-RPC path every answer is JSON-RPC, refusals included (with id null: the
    // body was not read); elsewhere (/metrics, unknown paths, no path read) plain text.
    const bool jsonRpcPath = request.startsWith("POST / ") || request.startsWith("GET / ");
    if (jsonRpcPath && status >= 400) {
        QVERIFY2(r.head.contains("Content-Type: application/json"), r.head.constData());
        const QJsonObject reply = QJsonDocument::fromJson(r.body).object();
        QCOMPARE(reply.value("jsonrpc").toString(), QStringLiteral("2.0"));
        QCOMPARE(reply.value("error").toObject().value("code").toInt(), -32600);
        QVERIFY(reply.contains("id") && reply.value("id").isNull());
    } else if (status >= 400) {
        QVERIFY2(r.head.contains("Content-Type: text/plain"), r.head.constData());
    }
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
    const auto post = [](const QByteArray& body, const QByteArray& extra = {}) -> QByteArray {
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

void TestApi::connectionsOverTheLimit_data()
{
    // clang-format off
    QTest::addColumn<QByteArray>("request");
    QTest::addColumn<QByteArray>("contentType"); // empty: no body at all
    QTest::addColumn<QByteArray>("reply");       // JSON-RPC compared as jsonRpc() does; else contained
    const auto post = [](const QByteArray& body) -> QByteArray {
        return "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: " + QByteArray::number(body.size()) +
               "\r\n\r\n" + body;
    };
    const QByteArray busy = R"({"jsonrpc":"2.0","error":{"code":-32005},"id":)";
    QTest::newRow("call, number id")
        << post(R"({"jsonrpc":"2.0","method":"getCheckpoint","id":41})") << QByteArray("application/json")
        << busy + "41}";
    QTest::newRow("call, string id")
        << post(R"({"jsonrpc":"2.0","method":"getBlockByHeight","params":[1],"id":"over-1"})")
        << QByteArray("application/json") << busy + R"("over-1"})";
    QTest::newRow("call, params a string")
        << post(R"({"jsonrpc":"2.0","method":"getCheckpoint","params":"bar","id":"p"})")
        << QByteArray("application/json") << QByteArray(R"({"jsonrpc":"2.0","error":{"code":-32602},"id":"p"})");
    QTest::newRow("batch: each call with its id")
        << post(R"([{"jsonrpc":"2.0","method":"getCheckpoint","id":1},
                   {"jsonrpc":"2.0","method":"getLatestBlock"},
                   {"jsonrpc":"2.0","method":"getLatestBlock","id":"two"}])")
        << QByteArray("application/json") << "[" + busy + "1}," + busy + R"("two"}])";
    QTest::newRow("notification: nothing to answer") << post(R"({"jsonrpc":"2.0","method":"getCheckpoint"})")
        << QByteArray() << QByteArray();
    QTest::newRow("not JSON") << post("{nope") << QByteArray("application/json")
        << QByteArray(R"({"jsonrpc":"2.0","error":{"code":-32700},"id":null})");
    QTest::newRow("GET /") << QByteArray("GET / HTTP/1.1\r\nHost: x\r\n\r\n") << QByteArray("application/json")
        << busy + "null}";
    // Prometheus text stays text.
    QTest::newRow("metrics") << QByteArray("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        << QByteArray("text/plain") << QByteArray("server busy");
    // clang-format on
}

void TestApi::connectionsOverTheLimit()
{
    QFETCH(QByteArray, request);
    QFETCH(QByteArray, contentType);
    QFETCH(QByteArray, reply);
    // Every served slot taken by a client of this test that was answered and stays: a
    // connection still closing from before cannot leave a slot for the one over the limit.
    const int max = api::HttpServer::Limits{}.maxConnections;
    std::vector<std::unique_ptr<QTcpSocket>> open;
    const QByteArray call = R"({"jsonrpc":"2.0","method":"getCheckpoint","id":1})";
    for (int attempts = 0; int(open.size()) < max; ++attempts) {
        QVERIFY2(attempts < 2 * max, "the served slots never came free");
        auto s = std::make_unique<QTcpSocket>();
        s->connectToHost(QHostAddress::LocalHost, quint16(m_api.port()));
        QVERIFY(s->waitForConnected(5000));
        s->write("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                 QByteArray::number(call.size()) + "\r\n\r\n" + call);
        QByteArray buf;
        const int status = readResponse(*s, buf).status;
        QVERIFY(status == 200 || status == 503);
        if (status == 200)
            open.push_back(std::move(s));
    }
    // One more than the bound: its request is read, then refused for load.
    const RawReply r = rawExchange(quint16(m_api.port()), request);
    QCOMPARE(r.status, 503);
    QVERIFY2(r.head.contains("Retry-After: 1\r\n"), r.head.constData());
    QVERIFY2(r.head.contains("Connection: close"), r.head.constData());
    if (contentType.isEmpty()) {
        QVERIFY2(r.body.isEmpty(), r.body.constData());
    } else {
        QVERIFY2(r.head.contains("Content-Type: " + contentType), r.head.constData());
        if (contentType == "application/json") {
            QJsonParseError pe{};
            const QJsonDocument got = QJsonDocument::fromJson(r.body, &pe);
            QVERIFY2(pe.error == QJsonParseError::NoError, r.body.constData());
            const QJsonDocument want = QJsonDocument::fromJson(reply);
            const auto value = [](const QJsonDocument& d) {
                return d.isArray() ? QJsonValue(d.array()) : QJsonValue(d.object());
            };
            QVERIFY2(normalized(value(got)) == normalized(value(want)),
                     qPrintable("got " + r.body + "\nwant " + reply));
            // The message says what to do.
            if (!got.isArray() && got.object().value("error")["code"] == -32005)
                QVERIFY2(got.object().value("error")["message"].toString().contains("retry"),
                         r.body.constData());
        } else {
            QVERIFY2(r.body.contains(reply), r.body.constData());
        }
    }
    open.clear();
    // The slots come back when the clients leave.
    QTRY_VERIFY_WITH_TIMEOUT(!apiCall(m_api, "getCheckpoint").value("result").isNull(), 10000);
}

void TestApi::concurrentClients_data()
{
    // clang-format off
    QTest::addColumn<int>("clients");
    QTest::addColumn<QByteArray>("kind");     // "call", "batch"
    QTest::addColumn<bool>("keepAlive");      // whether a served client holds its connection
    QTest::newRow("200 calls, connections held") << 200 << QByteArray("call") << true;
    QTest::newRow("200 calls, Connection: close") << 200 << QByteArray("call") << false;
    QTest::newRow("200 batches, connections held") << 200 << QByteArray("batch") << true;
    // clang-format on
}

void TestApi::concurrentClients()
{
    // Every client connects before any sends, then all send at once: each gets a JSON-RPC
    // answer, or a JSON-RPC "server busy" error with 503 and Retry-After, with its ids.
    QFETCH(int, clients);
    QFETCH(QByteArray, kind);
    QFETCH(bool, keepAlive);
    QVERIFY(!apiCall(m_api, "getCheckpoint").value("result").isNull());
    struct Client
    {
        std::unique_ptr<QTcpSocket> socket = std::make_unique<QTcpSocket>();
        QByteArray buf;
        std::optional<RawReply> reply;
    };
    std::vector<Client> all(clients);
    int connected = 0;
    for (Client& c : all) {
        connect(c.socket.get(), &QTcpSocket::connected, this, [&] { ++connected; });
        c.socket->connectToHost(QHostAddress::LocalHost, quint16(m_api.port()));
    }
    QVERIFY(QTest::qWaitFor([&] { return connected == clients; }, 60000));
    const auto idOf = [](int i, int call) { return QStringLiteral("c%1-%2").arg(i).arg(call); };
    for (int i = 0; i < clients; ++i) {
        const auto callJson = [&](int call) {
            return QJsonObject{{"jsonrpc", "2.0"},
                               {"id", idOf(i, call)},
                               {"method", "getBlockByHeight"},
                               {"params", QJsonArray{1}}};
        };
        const QByteArray body =
            kind == "batch"
                ? QJsonDocument(QJsonArray{callJson(0), callJson(1)}).toJson(QJsonDocument::Compact)
                : QJsonDocument(callJson(0)).toJson(QJsonDocument::Compact);
        all[i].socket->write("POST / HTTP/1.1\r\nHost: x\r\n" +
                             QByteArray(keepAlive ? "" : "Connection: close\r\n") +
                             "Content-Length: " + QByteArray::number(body.size()) + "\r\n\r\n" +
                             body);
    }
    const auto allAnswered = [&] {
        bool done = true;
        for (Client& c : all) {
            if (c.reply)
                continue;
            c.buf += c.socket->readAll();
            c.reply = takeResponse(c.buf);
            // A refused client goes, as the server's "Connection: close" asks.
            if (c.reply && c.reply->status == 503)
                c.socket->abort();
            done = done && c.reply.has_value();
        }
        return done;
    };
    QVERIFY2(QTest::qWaitFor(allAnswered, 120000), "a client got no complete response");

    const QString block1Hash = m_lab->eth().blockByNumber(1)->hash.toHex();
    int served = 0;
    int busy = 0;
    for (int i = 0; i < clients; ++i) {
        const RawReply& r = *all[i].reply;
        const QString problem = concurrentReplyProblem(
            r, kind == "batch" ? 2 : 0, [&](int call) { return idOf(i, call); }, block1Hash);
        QVERIFY2(problem.isEmpty(), qPrintable(QStringLiteral("client %1: %2\n%3\n%4")
                                                   .arg(i)
                                                   .arg(problem, QString::fromUtf8(r.head),
                                                        QString::fromUtf8(r.body))));
        ++(r.status == 200 ? served : busy);
    }
    qInfo("%d clients answered, %d refused for load", served, busy);
    QVERIFY(served > 0);
    // While the served clients hold their connections, at most the limit are served.
    if (keepAlive)
        QVERIFY2(busy >= clients - api::HttpServer::Limits{}.maxConnections,
                 qPrintable(QString::number(busy)));
    all.clear();
    QTRY_VERIFY_WITH_TIMEOUT(!apiCall(m_api, "getCheckpoint").value("result").isNull(), 10000);
}

void TestApi::waitingConnectionsAreQueued()
{
    // The server's tiers on a small scale, on a real socket: 2 served, 1 refused for load,
    // and the next one waits in the queue until a served client leaves, then is served.
    api::HttpServer::Limits limits;
    limits.maxConnections = 2;
    limits.maxRefusing = 1;
    limits.linger = std::chrono::minutes(2); // the refused client keeps its slot meanwhile
    api::HttpServer server(limits, [](const api::HttpRequest& r) {
        return api::HttpResponse{200, "text/plain", "served " + r.target, {}};
    });
    const quint16 port = server.listen(QHostAddress::LocalHost, 0);
    QVERIFY(port != 0);
    const auto connectTo = [&] {
        auto s = std::make_unique<QTcpSocket>();
        s->connectToHost(QHostAddress::LocalHost, port);
        return s;
    };
    const auto get = [](QTcpSocket& s, const QByteArray& target) {
        s.write("GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n");
    };
    auto a = connectTo();
    auto b = connectTo();
    QVERIFY(a->waitForConnected(5000) && b->waitForConnected(5000));
    QByteArray bufA, bufC, bufD;
    get(*a, "/a");
    QCOMPARE(readResponse(*a, bufA).body, QByteArray("served /a"));
    auto c = connectTo();
    QVERIFY(c->waitForConnected(5000));
    get(*c, "/c");
    const RawReply refused = readResponse(*c, bufC);
    QCOMPARE(refused.status, 503);
    QVERIFY2(refused.head.contains("Retry-After: 1\r\n"), refused.head.constData());
    QVERIFY2(refused.body.contains("server busy"), refused.body.constData());
    // Both tiers full: d is connected (by the kernel) and waits; its request is not lost.
    auto d = connectTo();
    QVERIFY(d->waitForConnected(5000));
    get(*d, "/d");
    a.reset(); // a served client leaves: d takes its slot
    const RawReply queued = readResponse(*d, bufD, 30000);
    QCOMPARE(queued.status, 200);
    QCOMPARE(queued.body, QByteArray("served /d"));
}

void TestApi::repliesWaitingAreBoundedOverAllConnections()
{
    // A client that asks for a large reply and does not read it holds it in the server; past
    // maxPendingWriteTotal over all connections, no further request is handled until the
    // clients read: the handler never runs with more than that waiting.
    api::HttpServer::Limits limits;
    limits.maxPendingWriteTotal = 1024 * 1024;
    const qsizetype big = 24 * 1024 * 1024; // well past what the kernel's buffers take
    api::HttpServer* serverPtr = nullptr;
    QList<qsizetype> waitingAtCall;
    api::HttpServer server(limits, [&](const api::HttpRequest& r) {
        waitingAtCall << serverPtr->pendingWrite();
        return api::HttpResponse{200,
                                 "application/octet-stream",
                                 r.target == "/big" ? QByteArray(big, 'x') : "small",
                                 {}};
    });
    serverPtr = &server;
    const quint16 port = server.listen(QHostAddress::LocalHost, 0);
    QVERIFY(port != 0);
    QTcpSocket slow;
    slow.setReadBufferSize(64 * 1024); // reads no more than it is asked to
    QTcpSocket other;
    slow.connectToHost(QHostAddress::LocalHost, port);
    other.connectToHost(QHostAddress::LocalHost, port);
    QVERIFY(slow.waitForConnected(5000) && other.waitForConnected(5000));
    slow.write("GET /big HTTP/1.1\r\nHost: x\r\n\r\n");
    QVERIFY(QTest::qWaitFor([&] { return waitingAtCall.size() == 1; }, 10000));
    other.write("GET /small HTTP/1.1\r\nHost: x\r\n\r\n");
    slow.setReadBufferSize(0); // now it reads all that comes
    // The slow client reads its reply at last; the other is answered, not before the
    // waiting bytes came under the bound.
    qsizetype received = 0;
    QByteArray bufOther;
    RawReply small;
    QVERIFY(QTest::qWaitFor(
        [&] {
            received += slow.readAll().size();
            if (small.status == 0) {
                bufOther += other.readAll();
                if (auto r = takeResponse(bufOther))
                    small = *r;
            }
            return received > big && small.status != 0;
        },
        120000));
    QCOMPARE(small.status, 200);
    QCOMPARE(small.body, QByteArray("small"));
    QCOMPARE(waitingAtCall.size(), 2);
    QVERIFY2(waitingAtCall[1] <= limits.maxPendingWriteTotal,
             qPrintable(QString::number(waitingAtCall[1])));
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
    // A JSON-RPC error, as any answer on that path (its id was never read).
    const QJsonObject reply = QJsonDocument::fromJson(r.body).object();
    QCOMPARE(reply.value("error").toObject().value("code").toInt(), -32600);
    QVERIFY(reply.contains("id") && reply.value("id").isNull());
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
