// The JSON-RPC hot path: reply bodies parsed by simdjson straight into the chain
// types. Malformed replies (truncated JSON, wrong types, hex of the wrong length, numbers
// beyond 63 or 256 bits) each give one line naming the field, as the Qt JSON path did.
#include "OneLine.h"
#include "chain/BlockHeader.h"
#include "chain/LogEntry.h"
#include "chain/ParsedJson.h"
#include "proof/ReceiptsProof.h"
#include "rpc/EthClient.h"
#include "rpc/ReplyBody.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace forkscope;
using rpc::RpcError;

namespace {
const QByteArray kHash = "0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b";
const QByteArray kTopic = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const QByteArray kEndpoint = "http://node.test:8545";

using Fields = QList<std::pair<QByteArray, QByteArray>>; // name, raw JSON text

QByteArray object(const Fields& fields)
{
    QByteArray out = "{";
    for (const auto& [name, raw] : fields) {
        if (out.size() > 1)
            out += ',';
        out += '"' + name + "\":" + raw;
    }
    return out + '}';
}

// `fields` with `name` set to `raw` (added if missing), or removed when `raw` is empty.
Fields with(Fields fields, const QByteArray& name, const QByteArray& raw)
{
    for (qsizetype i = 0; i < fields.size(); ++i)
        if (fields[i].first == name) {
            if (raw.isEmpty())
                fields.removeAt(i);
            else
                fields[i].second = raw;
            return fields;
        }
    if (!raw.isEmpty())
        fields.append({name, raw});
    return fields;
}

QByteArray q(const QByteArray& s)
{
    return '"' + s + '"';
}

Fields goodLog(int logIndex = 0)
{
    return {{"address", q("0x5FbDB2315678afecb367f032d93F642f64180aa3")},
            {"topics", '[' + q(kTopic) + ',' + q("0x" + QByteArray(64, '1')) + ']'},
            {"data", q("0x00ff")},
            {"blockNumber", q("0x2")},
            {"blockHash", q(kHash)},
            {"transactionHash", q(kHash)},
            {"transactionIndex", q("0x0")},
            {"logIndex", q("0x" + QByteArray::number(logIndex, 16))},
            {"removed", "false"}};
}

Fields goodHeader(int number)
{
    return {{"number", q("0x" + QByteArray::number(number, 16))},
            {"hash", q(kHash)},
            {"parentHash", q("0x" + QByteArray(64, '0'))},
            {"timestamp", q("0x5f5e100")},
            {"logsBloom", q("0x" + QByteArray(512, '0'))},
            {"receiptsRoot", q(kHash)},
            {"miner", q("0x" + QByteArray(40, '0'))}};
}

QByteArray reply(qint64 id, const QByteArray& result)
{
    return "{\"jsonrpc\":\"2.0\",\"id\":" + QByteArray::number(id) + ",\"result\":" + result + '}';
}

rpc::ReplyRequests single(const QString& method)
{
    return {{rpc::RpcRequest{method, {}, true}}, {1}, false, QString::fromLatin1(kEndpoint)};
}

// The error of a parse that must fail, as the user reads it.
QString failure(const std::function<void()>& parse)
{
    try {
        parse();
    } catch (const rpc::RpcException& e) {
        return e.error().toString();
    }
    return QStringLiteral("(accepted)");
}
} // namespace

class TestFastJson : public QObject
{
    Q_OBJECT
private slots:
    void goodLogsMatchTheQtReader();
    void aPaddedBodyIsReadInPlace_data();
    void aPaddedBodyIsReadInPlace();
    void recycledBuffersNeverMixReplies();
    void malformedLogs_data();
    void malformedLogs();
    void malformedEnvelope_data();
    void malformedEnvelope();
    void headerBatch();
    void malformedHeaders_data();
    void malformedHeaders();
    void typedCallsBuildNoQtResult();
    void malformedReceipts_data();
    void malformedReceipts();
};

void TestFastJson::goodLogsMatchTheQtReader()
{
    const QByteArray result = '[' + object(goodLog(0)) + ',' + object(goodLog(1)) + ']';
    const auto out = rpc::parseReplyBody(reply(1, result), 200, single("eth_getLogs"));
    QCOMPARE(out.size(), 1);
    QVERIFY(out[0].ok());
    const QList<chain::LogEntry> logs = rpc::EthClient::parseLogs(out[0]);
    QCOMPARE(logs.size(), 2);
    const QJsonArray qt = QJsonDocument::fromJson(result).array();
    QCOMPARE(logs[0], chain::LogEntry::fromJson(qt[0], "log"));
    QCOMPARE(logs[1], chain::LogEntry::fromJson(qt[1], "log"));
    QCOMPARE(logs[1].logIndex, 1u);
    QCOMPARE(logs[0].topics.size(), 2);
    QCOMPARE(logs[0].data, QByteArray("\x00\xff", 2));
    QCOMPARE(logs[0].address.toHex(), QStringLiteral("0x5fbdb2315678afecb367f032d93f642f64180aa3"));
}

void TestFastJson::aPaddedBodyIsReadInPlace_data()
{
    // JsonRpcClient leaves ParsedJson::kPaddingBytes allocated past a body's end so simdjson
    // reads it without a copy. Whatever those bytes hold is not part of the reply.
    QTest::addColumn<int>("cut");
    QTest::addColumn<bool>("ok");
    QTest::newRow("whole body, junk after it") << 0 << true;
    QTest::newRow("truncated; the missing bytes lie after its end") << 2 << false;
}

void TestFastJson::aPaddedBodyIsReadInPlace()
{
    QFETCH(int, cut);
    QFETCH(bool, ok);
    const QByteArray result = '[' + object(goodLog(0)) + ']';
    const QByteArray whole = reply(1, result);
    QByteArray body = whole + "]}]}" + QByteArray(chain::ParsedJson::kPaddingBytes, '}');
    body.truncate(whole.size() - cut); // keeps the capacity, and the bytes in it
    QVERIFY(body.capacity() - body.size() >= chain::ParsedJson::kPaddingBytes);
    const auto out = rpc::parseReplyBody(body, 200, single("eth_getLogs"));
    QCOMPARE(out.size(), 1);
    QCOMPARE(out[0].ok(), ok);
    if (ok)
        QCOMPARE(rpc::EthClient::parseLogs(out[0]).size(), 1);
    else
        QCOMPARE(out[0].error->kind, RpcError::Kind::Malformed);
}

void TestFastJson::recycledBuffersNeverMixReplies()
{
    // Parsed texts' buffers are recycled (chain/JsonDom.cpp): a text parsed into recycled
    // buffers, or parsed while others are alive, must read as itself and leave them intact.
    const auto text = [](const char* tag, int n) {
        QJsonArray a;
        for (int i = 0; i < n; ++i)
            a.append(QStringLiteral("%1-%2").arg(QLatin1String(tag)).arg(i));
        return QJsonDocument(a).toJson(QJsonDocument::Compact);
    };
    const auto expect = [](const QByteArray& t) { return QJsonDocument::fromJson(t).array(); };

    // Six large texts alive at once (more than the pool keeps), between small ones that do
    // not use it.
    QList<QByteArray> texts;
    QList<chain::ParsedJson> alive;
    for (int k = 0; k < 12; ++k) {
        texts.append(text(QByteArray::number(k).constData(), k % 2 ? 40000 : 7));
        alive.append(chain::ParsedJson::parse(texts.last()));
    }
    for (int k = 0; k < 12; ++k) {
        QVERIFY(alive[k].isValid());
        QCOMPARE(alive[k].toQt().toArray(), expect(texts[k]));
    }
    alive.clear(); // their buffers go back to the pool

    // Texts parsed into recycled buffers: shorter ones leave nothing of a longer one behind,
    // longer ones grow them, and a text that fails to parse returns them too.
    QString error;
    QVERIFY(!chain::ParsedJson::parse(text("bad", 50000).chopped(3), &error).isValid());
    QVERIFY(!error.isEmpty());
    for (const int n : {3, 60000, 1, 0, 20000}) {
        const QByteArray t = text("again", n);
        const chain::ParsedJson p = chain::ParsedJson::parse(t);
        const chain::ParsedJson q = chain::ParsedJson::parse(text("other", n + 1));
        QVERIFY(p.isValid() && q.isValid());
        QCOMPARE(p.toQt().toArray(), expect(t));
        QCOMPARE(q.toQt().toArray().size(), n + 1);
    }
}

void TestFastJson::malformedLogs_data()
{
    QTest::addColumn<QByteArray>("field"); // of the log at index 3
    QTest::addColumn<QByteArray>("raw");   // its JSON text; empty = missing
    QTest::addColumn<QString>("names");    // the field the error names
    QTest::addColumn<QString>("mentions"); // and what it says
    const QString at = QStringLiteral("eth_getLogs[3].");
    // clang-format off
    // Wrong types.
    QTest::newRow("blockNumber a JSON number") << QByteArray("blockNumber") << QByteArray("2") << at + "blockNumber" << "JSON number 2";
    QTest::newRow("blockNumber null (pending)") << QByteArray("blockNumber") << QByteArray("null") << at + "blockNumber" << "got null";
    QTest::newRow("blockHash missing") << QByteArray("blockHash") << QByteArray() << at + "blockHash" << "nothing (field missing)";
    QTest::newRow("topics an object") << QByteArray("topics") << QByteArray("{}") << at + "topics" << "expected an array of 32-byte hashes";
    QTest::newRow("topic a number") << QByteArray("topics") << QByteArray("[" + q(kTopic) + ",7]") << at + "topics[1]" << "JSON number 7";
    QTest::newRow("removed a string") << QByteArray("removed") << QByteArray("\"no\"") << at + "removed" << "expected true or false";
    QTest::newRow("data an array") << QByteArray("data") << QByteArray("[]") << at + "data" << "a JSON array";
    QTest::newRow("five topics") << QByteArray("topics") << QByteArray("[" + q(kTopic) + "," + q(kTopic) + "," + q(kTopic) + "," + q(kTopic) + "," + q(kTopic) + "]") << at + "topics" << "at most 4 topics";
    // Hex of the wrong length, odd length, bad digits, prefixes.
    QTest::newRow("topic 31 bytes") << QByteArray("topics") << QByteArray("[" + q(kTopic) + "," + q(kTopic.left(64)) + "]") << at + "topics[1]" << "expected 32 bytes (0x + 64 hex digits), found 62";
    QTest::newRow("topic 33 bytes") << QByteArray("topics") << QByteArray("[" + q(kTopic + "00") + "]") << at + "topics[0]" << "expected 32 bytes";
    QTest::newRow("address 32 bytes") << QByteArray("address") << q(kHash) << at + "address" << "expected 20 bytes";
    QTest::newRow("transactionHash odd length") << QByteArray("transactionHash") << q(kHash + "0") << at + "transactionHash" << "odd number of hex digits (65)";
    QTest::newRow("data odd length") << QByteArray("data") << q("0x123") << at + "data" << "odd number of hex digits (3)";
    QTest::newRow("data non-hex") << QByteArray("data") << q("0x12zz") << at + "data" << "'z' is not a hex digit";
    QTest::newRow("data non-ASCII") << QByteArray("data") << q("0x12\xc3\xa9\x30") << at + "data" << QString::fromUtf8("'\xc3\xa9' is not a hex digit");
    QTest::newRow("data missing 0x") << QByteArray("data") << q("00ff") << at + "data" << "expected 0x-prefixed hex bytes";
    QTest::newRow("blockHash missing 0x") << QByteArray("blockHash") << q(kHash.mid(2)) << at + "blockHash" << "0x-prefixed";
    QTest::newRow("logIndex missing 0x") << QByteArray("logIndex") << q("10") << at + "logIndex" << "expected a 0x-prefixed hex number";
    QTest::newRow("logIndex empty digits") << QByteArray("logIndex") << q("0x") << at + "logIndex" << "hex digits after 0x";
    QTest::newRow("logIndex negative") << QByteArray("logIndex") << q("-0x1") << at + "logIndex" << "negative";
    QTest::newRow("logIndex fraction") << QByteArray("logIndex") << q("0x1.8") << at + "logIndex" << "fractional";
    // Numbers too large: quantities beyond 63 bits (SQLite INTEGER) and beyond 2^256, and
    // JSON number literals beyond 64 bits and 2^256 (simdjson refuses those; Qt reads them
    // as doubles, and the field is named as before).
    QTest::newRow("quantity 2^63") << QByteArray("logIndex") << q("0x8000000000000000") << at + "logIndex" << "does not fit in 63 bits";
    QTest::newRow("quantity above 2^256") << QByteArray("blockNumber") << q("0x1" + QByteArray(64, '0')) << at + "blockNumber" << "does not fit in 63 bits";
    QTest::newRow("JSON number above 2^64") << QByteArray("transactionIndex") << QByteArray("36893488147419103232") << at + "transactionIndex" << "the JSON number 3.6893488147419103e+19";
    QTest::newRow("JSON number above 2^256") << QByteArray("blockNumber") << QByteArray("1" + QByteArray(80, '0')) << at + "blockNumber" << "the JSON number 1e+80";
    // Accepted as today: upper-case digits and prefix.
    QTest::newRow("upper-case 0X and digits") << QByteArray("data") << q("0X00FF") << QString() << QString();
    QTest::newRow("quantity upper-case") << QByteArray("blockNumber") << q("0X2") << QString() << QString();
    // clang-format on
}

void TestFastJson::malformedLogs()
{
    QFETCH(QByteArray, field);
    QFETCH(QByteArray, raw);
    QFETCH(QString, names);
    QFETCH(QString, mentions);
    QByteArray result = "[";
    for (int i = 0; i < 5; ++i) {
        if (i > 0)
            result += ',';
        result += object(i == 3 ? with(goodLog(i), field, raw) : goodLog(i));
    }
    result += ']';
    const auto out = rpc::parseReplyBody(reply(1, result), 200, single("eth_getLogs"));
    QVERIFY2(out[0].ok(), qPrintable(out[0].error ? out[0].error->toString() : QString()));
    if (names.isEmpty()) {
        const QList<chain::LogEntry> logs = rpc::EthClient::parseLogs(out[0]);
        QCOMPARE(logs.size(), 5);
        QCOMPARE(logs[3], logs[3]);
        return;
    }
    const QString message = failure([&] { rpc::EthClient::parseLogs(out[0]); });
    QVERIFY2(message.contains(QStringLiteral("field \"%1\": ").arg(names)), qPrintable(message));
    QVERIFY2(message.contains(mentions), qPrintable(message));
    QVERIFY2(message.contains(QString::fromLatin1(kEndpoint)), qPrintable(message));
    QVERIFY2(!message.contains(QLatin1Char('\n')), qPrintable(message));

    // The Qt JSON entry point (cold callers) reads through the same code: same words, when
    // Qt can hold the value (it reads JSON numbers as doubles).
    const QJsonDocument qt = QJsonDocument::fromJson(result);
    QVERIFY(qt.isArray());
    try {
        chain::LogEntry::fromJson(qt.array().at(3), QStringLiteral("eth_getLogs[3]"));
        QFAIL("the Qt JSON entry point accepted it");
    } catch (const chain::ChainParseError& e) {
        QVERIFY2(message.contains(e.message()), qPrintable(e.message() + " / " + message));
    }
}

void TestFastJson::malformedEnvelope_data()
{
    QTest::addColumn<QByteArray>("body");
    QTest::addColumn<int>("status");
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("mentions");
    const QByteArray good = reply(1, '[' + object(goodLog()) + ']');
    // clang-format off
    QTest::newRow("truncated in a log") << good.left(good.size() / 2) << 200 << int(RpcError::Kind::Malformed) << "body is not JSON";
    QTest::newRow("truncated at the end") << good.chopped(1) << 200 << int(RpcError::Kind::Malformed) << "body is not JSON";
    QTest::newRow("truncated, HTTP 502") << good.left(40) << 502 << int(RpcError::Kind::Http) << "\"{";
    QTest::newRow("empty") << QByteArray() << 200 << int(RpcError::Kind::Malformed) << "not JSON";
    QTest::newRow("trailing junk") << good + "x" << 200 << int(RpcError::Kind::Malformed) << "not JSON";
    QTest::newRow("wrong id") << reply(2, "[]") << 200 << int(RpcError::Kind::Malformed) << "reply id [2] does not match request id 1";
    QTest::newRow("string id") << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":\"1\",\"result\":[]}") << 200 << int(RpcError::Kind::Malformed) << "reply id [\"1\"] does not match";
    QTest::newRow("neither") << QByteArray("{\"jsonrpc\":\"2.0\",\"id\":1}") << 200 << int(RpcError::Kind::Malformed) << "neither";
    QTest::newRow("error not an object") << QByteArray("{\"id\":1,\"error\":[1]}") << 200 << int(RpcError::Kind::Malformed) << "{code, message}";
    QTest::newRow("remote error") << QByteArray("{\"id\":1,\"error\":{\"code\":-32005,\"message\":\"limit exceeded\",\"data\":{\"max\":10000}}}") << 200 << int(RpcError::Kind::Remote) << "limit exceeded";
    QTest::newRow("a scalar") << QByteArray("17") << 200 << int(RpcError::Kind::Malformed) << "";
    // What the node says is shown escaped and bounded: it cannot forge the next log line,
    // drive a terminal or print megabytes.
    QTest::newRow("remote error breaking the line") << QByteArray("{\"id\":1,\"error\":{\"code\":-32005,\"message\":\"limit exceeded\\nforkscope: synced\",\"data\":{\"max\":10000}}}") << 200 << int(RpcError::Kind::Remote) << "limit exceeded\\nforkscope: synced";
    QTest::newRow("remote error of a megabyte") << "{\"id\":1,\"error\":{\"code\":-32005,\"message\":\"" + QByteArray(1000000, 'x') + "\",\"data\":{\"max\":10000}}}" << 200 << int(RpcError::Kind::Remote) << "(1000000 chars)";
    QTest::newRow("an id of 100 kB") << "{\"jsonrpc\":\"2.0\",\"id\":\"" + QByteArray(100000, 'a') + "\",\"result\":[]}" << 200 << int(RpcError::Kind::Malformed) << "does not match request id 1";
    QTest::newRow("an error page with a terminal escape") << QByteArray("\x1b[2Jbad gateway") << 502 << int(RpcError::Kind::Http) << "\\u001b[2Jbad gateway";
    // clang-format on
}

void TestFastJson::malformedEnvelope()
{
    QFETCH(QByteArray, body);
    QFETCH(int, status);
    QFETCH(int, kind);
    QFETCH(QString, mentions);
    const auto out = rpc::parseReplyBody(body, status, single("eth_getLogs"));
    QCOMPARE(out.size(), 1);
    QVERIFY(!out[0].ok());
    QCOMPARE(int(out[0].error->kind), kind);
    QVERIFY(!out[0].json.isValid());
    const QString message = out[0].error->toString();
    QVERIFY2(message.contains(mentions), qPrintable(message));
    QVERIFY2(message.contains(QString::fromLatin1(kEndpoint)), qPrintable(message));
    QVERIFY2(test::isOneLine(message), qPrintable(message.left(300)));
    if (out[0].error->kind == RpcError::Kind::Remote) {
        QCOMPARE(out[0].error->code, -32005);
        QCOMPARE(out[0].error->data.toObject().value("max").toInteger(), 10000);
    }
}

void TestFastJson::headerBatch()
{
    // A batch reply in any order is matched by id; the entries the batch lacks, or that
    // carry another id, are errors of their own.
    rpc::ReplyRequests to;
    to.batch = true;
    to.endpoint = QString::fromLatin1(kEndpoint);
    for (int i = 0; i < 4; ++i) {
        to.requests.append({QStringLiteral("eth_getBlockByNumber"), {}, true});
        to.ids.append(10 + i);
    }
    const QByteArray body = '[' + reply(12, object(goodHeader(2))) + ',' +
                            reply(10, object(goodHeader(0))) + ',' + reply(11, "null") + ',' +
                            reply(99, object(goodHeader(3))) + ']';
    const auto out = rpc::parseReplyBody(body, 200, to);
    QCOMPARE(out.size(), 4);
    QVERIFY(out[0].ok() && out[1].ok() && out[2].ok());
    QCOMPARE(rpc::EthClient::parseBlock(out[0], "b0")->number, 0u);
    QVERIFY(!rpc::EthClient::parseBlock(out[1], "b1").has_value());
    QCOMPARE(rpc::EthClient::parseBlock(out[2], "b2")->number, 2u);
    QVERIFY(!out[3].ok());
    QVERIFY2(out[3].error->message.contains("no entry for request id 13"),
             qPrintable(out[3].error->message));
    // The same header through the Qt JSON entry point.
    const QJsonObject qt = QJsonDocument::fromJson(object(goodHeader(2))).object();
    QCOMPARE(*rpc::EthClient::parseBlock(out[2], "b2"), chain::BlockHeader::fromJson(qt, "b2"));

    // A batch answered with one object (not an error) is refused as a whole.
    const auto whole = rpc::parseReplyBody(reply(10, "null"), 200, to);
    for (const auto& r : whole)
        QVERIFY(r.error && r.error->message.contains("unexpected JSON shape"));
}

void TestFastJson::malformedHeaders_data()
{
    QTest::addColumn<QByteArray>("field");
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<QString>("mentions");
    // clang-format off
    QTest::newRow("hash short") << QByteArray("hash") << q("0x1234") << "expected 32 bytes";
    QTest::newRow("hash a number") << QByteArray("hash") << QByteArray("1234") << "JSON number 1234";
    QTest::newRow("parentHash missing") << QByteArray("parentHash") << QByteArray() << "field missing";
    QTest::newRow("logsBloom 255 bytes") << QByteArray("logsBloom") << q("0x" + QByteArray(510, '0')) << "expected 256 bytes";
    QTest::newRow("logsBloom odd") << QByteArray("logsBloom") << q("0x" + QByteArray(511, '0')) << "odd number";
    QTest::newRow("number above 2^256") << QByteArray("number") << q("0x" + QByteArray(65, 'f')) << "63 bits";
    QTest::newRow("timestamp a bool") << QByteArray("timestamp") << QByteArray("true") << "got true";
    QTest::newRow("receiptsRoot null") << QByteArray("receiptsRoot") << QByteArray("null") << "got null";
    // clang-format on
}

void TestFastJson::malformedHeaders()
{
    QFETCH(QByteArray, field);
    QFETCH(QByteArray, raw);
    QFETCH(QString, mentions);
    const auto out = rpc::parseReplyBody(reply(1, object(with(goodHeader(5), field, raw))), 200,
                                         single("eth_getBlockByNumber"));
    QVERIFY(out[0].ok());
    const QString message = failure(
        [&] { rpc::EthClient::parseBlock(out[0], QStringLiteral("eth_getBlockByNumber(0x5)")); });
    QVERIFY2(message.contains("field \"eth_getBlockByNumber(0x5)." + field + "\": "),
             qPrintable(message));
    QVERIFY2(message.contains(mentions), qPrintable(message));
    QVERIFY2(!message.contains(QLatin1Char('\n')), qPrintable(message));
}

void TestFastJson::typedCallsBuildNoQtResult()
{
    rpc::ReplyRequests to = single("eth_getLogs");
    const QByteArray body = reply(1, "[]");
    const auto typed = rpc::parseReplyBody(body, 200, to);
    QVERIFY(typed[0].ok() && typed[0].json.isValid());
    QVERIFY(typed[0].result.isUndefined());
    to.requests[0].typed = false;
    const auto cold = rpc::parseReplyBody(body, 200, to);
    QVERIFY(cold[0].result.isArray());
    QCOMPARE(cold[0].json.toQt(), cold[0].result);
}

void TestFastJson::malformedReceipts_data()
{
    QTest::addColumn<QByteArray>("field");
    QTest::addColumn<QByteArray>("raw");
    QTest::addColumn<QString>("names");
    QTest::addColumn<QString>("mentions");
    const QString at = QStringLiteral("eth_getBlockReceipts[1].");
    // clang-format off
    QTest::newRow("type missing") << QByteArray("type") << QByteArray() << at + "type" << "field missing";
    QTest::newRow("type unknown") << QByteArray("type") << q("0x7e") << at + "type" << "unknown receipt type";
    QTest::newRow("status 2") << QByteArray("status") << q("0x2") << at + "status" << "expected 0x0 (failed) or 0x1";
    QTest::newRow("root and status") << QByteArray("root") << q(kHash) << at + "root" << "not both";
    QTest::newRow("gas above 2^256") << QByteArray("cumulativeGasUsed") << q("0x1" + QByteArray(64, '0')) << at + "cumulativeGasUsed" << "63 bits";
    QTest::newRow("logs an object") << QByteArray("logs") << QByteArray("{}") << at + "logs" << "expected an array of logs";
    QTest::newRow("log data odd") << QByteArray("logs") << QByteArray("[" + object(with(goodLog(), "data", q("0x1"))) + "]") << at + "logs[0].data" << "odd number";
    QTest::newRow("log removed") << QByteArray("logs") << QByteArray("[" + object(with(goodLog(), "removed", "true")) + "]") << at + "logs[0].removed" << "cannot be removed";
    // clang-format on
}

void TestFastJson::malformedReceipts()
{
    QFETCH(QByteArray, field);
    QFETCH(QByteArray, raw);
    QFETCH(QString, names);
    QFETCH(QString, mentions);
    const Fields good{{"type", q("0x2")},
                      {"status", q("0x1")},
                      {"cumulativeGasUsed", q("0x5208")},
                      {"logsBloom", q("0x" + QByteArray(512, '0'))},
                      {"logs", "[]"},
                      {"transactionHash", q(kHash)},
                      {"transactionIndex", q("0x0")},
                      {"blockHash", q(kHash)},
                      {"blockNumber", q("0x2")}};
    const QByteArray text = '[' + object(good) + ',' + object(with(good, field, raw)) + ']';
    QString error;
    const chain::ParsedJson parsed = chain::ParsedJson::parse(text, &error);
    QVERIFY2(parsed.isValid(), qPrintable(error));
    chain::BlockHeader header;
    header.number = 2;
    const proof::ReceiptsVerdict v = proof::verifyReceipts(header, parsed);
    QVERIFY(!v.ok);
    QVERIFY2(v.problem.contains(QStringLiteral("field \"%1\": ").arg(names)),
             qPrintable(v.problem));
    QVERIFY2(v.problem.contains(mentions), qPrintable(v.problem));
    QVERIFY2(!v.problem.contains(QLatin1Char('\n')), qPrintable(v.problem));
    // The Qt JSON entry point gives the same verdict.
    const proof::ReceiptsVerdict qt =
        proof::verifyReceipts(header, QJsonDocument::fromJson(text).array());
    QCOMPARE(qt.problem, v.problem);
    QCOMPARE(qt.failure, v.failure);
}

QTEST_GUILESS_MAIN(TestFastJson)
#include "tst_fastjson.moc"
