// The ABI event decoder against what the real Solidity encoder produced (AbiZoo on anvil),
// plus malformed encodings that must fail with a message instead of a crash or a guess,
// encodings that claim a huge decoded size from little data (kept raw, decoded only up to
// the bound), and ABI files whose fields have the wrong JSON type.
#include "IndexerLab.h"
#include "OneLine.h"
#include "abi/AbiDecoder.h"
#include "abi/EventDeclaration.h"
#include "abi/EventRegistry.h"
#include "chain/Keccak.h"

#include <QFile>
#include <QJsonArray>
#include <QtTest>

using namespace forkscope;
using abi::EventDecoding;

namespace {
QJsonObject artefact()
{
    QFile f(QStringLiteral(FORKSCOPE_SOURCE_DIR "/resources/contracts/AbiZoo.json"));
    f.open(QIODevice::ReadOnly);
    return QJsonDocument::fromJson(f.readAll()).object();
}

QString addr(const char* lastHex)
{
    const QString tail = QString::fromLatin1(lastHex);
    return "0x" + QString(40 - tail.size(), '0') + tail;
}

QByteArray word(quint64 v)
{
    QByteArray w(32, '\0');
    for (int i = 31; v != 0; --i, v >>= 8)
        w[i] = char(v & 0xff);
    return w;
}

// The data of Bomb(Inner[] [] v) with Inner = (uint256[] xs) whose offsets all point at the
// same region: `outer` inner arrays that are one array of `inner` offsets to one tuple,
// whose xs holds `values` zeros. It is (outer + inner + values + 5) words, and decoded in
// full it would be outer x inner x values values ("0", 4 bytes of JSON each).
QByteArray reusedOffsets(int outer, int inner, int values)
{
    QByteArray d = word(32) + word(outer); // v at 32; its elements' head starts at 64
    for (int i = 0; i < outer; ++i)
        d += word(32 * quint64(outer)); // every element: the same inner array
    d += word(inner);
    for (int i = 0; i < inner; ++i)
        d += word(32 * quint64(inner));                           // every element: the same tuple
    d += word(32) + word(values) + QByteArray(32 * values, '\0'); // the tuple: xs
    return d;
}

QByteArray innerArraysBombAbi()
{
    QFile f(QStringLiteral(FORKSCOPE_SOURCE_DIR "/tests/data/InnerArraysBomb.abi.json"));
    f.open(QIODevice::ReadOnly);
    return f.readAll();
}

// A registry holding one event, Bomb, with these inputs (a JSON array).
abi::EventRegistry bombRegistry(const QByteArray& inputs)
{
    const QByteArray json = R"([{"type":"event","name":"Bomb","inputs":)" + inputs + "}]";
    return abi::EventRegistry::fromJson(QJsonDocument::fromJson(json), "bomb");
}

chain::LogEntry logWith(const QList<chain::Hash32>& topics, const QByteArray& data)
{
    chain::LogEntry log;
    log.topics = topics;
    log.data = data;
    return log;
}

// A contract whose runtime emits LOG1 with topic0 = the first 32 bytes of the calldata and
// the rest as data, so a test can put any log on chain. Creation code: CODECOPY the 17-byte
// runtime and RETURN it. Runtime: CALLDATACOPY(0, 0, CALLDATASIZE);
// LOG1(32, CALLDATASIZE - 32, MLOAD(0)); STOP.
const char* const kRawLoggerInitCode = "601180600b6000396000f3"
                                       "366000600037600051602036036020a100";
} // namespace

class TestAbi : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void eventDeclarations_data();
    void eventDeclarations();
    void scalars();
    void dynamicAndIndexedString();
    void nestedTuplesAndArrays();
    void indexedStatics();
    void anonymousIsUnmatched();
    void malformed_data();
    void malformed();
    void badAbiFiles_data();
    void badAbiFiles();
    void badAbiFileIsExitTwoNamingTheField();
    void decodedSizeLimit_data();
    void decodedSizeLimit();
    void decodingBomb_data();
    void decodingBomb();
    void decodingBombThroughIndex();
    void renderedSizeIsExact_data();
    void renderedSizeIsExact();
    void renderedSizeOfZooLogs();
    void integersAroundSixtyFourBits_data();
    void integersAroundSixtyFourBits();
    void topicCountMismatchNamesTheTopics_data();
    void topicCountMismatchNamesTheTopics();

private:
    QJsonObject decoded(const QString& event);
    std::unique_ptr<test::IndexerLab> m_lab;
    abi::EventRegistry m_registry;
    QList<chain::LogEntry> m_logs;
};

void TestAbi::initTestCase()
{
    m_lab = std::make_unique<test::IndexerLab>();
    const QJsonObject a = artefact();
    QVERIFY(!a.isEmpty());
    m_registry = abi::EventRegistry::fromJson(QJsonDocument(a), "AbiZoo.json");
    QCOMPARE(m_registry.eventCount(), 5);
    const auto sender = lab::DemoToken::defaultSender(m_lab->rpc());
    const QString zoo =
        lab::DemoToken::deployBytecode(m_lab->rpc(), sender,
                                       chain::hex::parseData(a.value("bytecode"), "bytecode"))
            .toHex();
    lab::DemoToken::sendAndWait(
        m_lab->rpc(),
        QJsonObject{
            {"from", sender.toHex()},
            {"to", zoo},
            {"gas", "0x4c4b40"},
            {"data", chain::hex::encodeData(
                         chain::keccak256(QByteArray("emitAll()")).toByteArray().left(4))}});
    rpc::LogFilter f;
    f.fromBlock = 0;
    f.toBlock = m_lab->eth().blockNumber();
    f.addresses = {chain::Address::fromHex(zoo, "zoo")};
    m_logs = m_lab->eth().getLogs(f);
    QCOMPARE(m_logs.size(), 5);
}

QJsonObject TestAbi::decoded(const QString& event)
{
    for (const auto& log : m_logs) {
        const EventDecoding d = m_registry.decode(log);
        if (d.eventName == event) {
            if (d.status != EventDecoding::Status::Decoded)
                qWarning() << d.error;
            return QJsonDocument::fromJson(d.argsJson).object();
        }
    }
    return {};
}

void TestAbi::scalars()
{
    const QJsonObject o = decoded("Scalars");
    QCOMPARE(o.value("who").toString(), addr("1234"));
    QCOMPARE(o.value("flag").toBool(), true);
    QCOMPARE(o.value("small").toString(), QStringLiteral("255"));
    QCOMPARE(o.value("big").toString(),
             QStringLiteral(
                 "115792089237316195423570985008687907853269984665640564039457584007913129639935"));
    QCOMPARE(o.value("neg8").toString(), QStringLiteral("-128"));
    QCOMPARE(o.value("neg").toString(),
             QStringLiteral(
                 "-57896044618658097711785492504343953926634992332820282019728792003956564819968"));
    QCOMPARE(o.value("tag").toString(), QStringLiteral("0xdeadbeef"));
    QCOMPARE(o.value("word").toString(), chain::keccak256(QByteArray("forkscope")).toHex());
}

void TestAbi::dynamicAndIndexedString()
{
    const QJsonObject o = decoded("Dynamic");
    // An indexed string is only its hash in the log: that is what is reported.
    QCOMPARE(o.value("label").toString(), chain::keccak256(QByteArray("label")).toHex());
    QCOMPARE(o.value("blob").toString(), QStringLiteral("0x00ff10"));
    QCOMPARE(o.value("text").toString(), QString::fromUtf8("héllo wörld"));
    QCOMPARE(
        o.value("nums").toArray(),
        (QJsonArray{"1", "1606938044258990275541962092341162602522202993782792835301376", "0"}));
    QCOMPARE(o.value("pair").toArray(), (QJsonArray{addr("a"), addr("b")}));
}

void TestAbi::nestedTuplesAndArrays()
{
    const QJsonObject o = decoded("Nested");
    const QJsonObject item = o.value("item").toObject();
    QCOMPARE(item.value("id").toString(), QStringLiteral("7"));
    QCOMPARE(item.value("name").toString(), QStringLiteral("seven"));
    QCOMPARE(item.value("deltas").toArray(), (QJsonArray{"-1", "2147483647"}));
    const QJsonArray list = o.value("list").toArray();
    QCOMPARE(list.size(), 2);
    QCOMPARE(list[0].toObject().value("a").toString(), addr("c"));
    QCOMPARE(list[0].toObject().value("b").toString(), QStringLiteral("0x"));
    QCOMPARE(
        list[1].toObject().value("b").toString(),
        QStringLiteral("0x0102030405060708091011121314151617181920212223242526272829303132333435"));
    // One element that is an array: spelled as a QJsonValue, since clang reads
    // QJsonArray{QJsonArray{...}} as a copy of the inner array (CWG 2137), GCC as a list.
    QCOMPARE(o.value("grid").toArray(), (QJsonArray{QJsonValue(QJsonArray{true, false, true})}));
}

void TestAbi::indexedStatics()
{
    const QJsonObject o = decoded("IndexedStatic");
    QCOMPARE(o.value("a").toString(), QStringLiteral("65535"));
    QCOMPARE(o.value("b").toString(), QStringLiteral("-42"));
    QCOMPARE(o.value("c").toString(), QStringLiteral("0x0102030405060708"));
}

void TestAbi::anonymousIsUnmatched()
{
    int unmatched = 0;
    for (const auto& log : m_logs)
        unmatched += m_registry.decode(log).status == EventDecoding::Status::Unmatched ? 1 : 0;
    QCOMPARE(unmatched, 1); // Anon(99): no topic0 to match, kept raw
}

void TestAbi::malformed_data()
{
    // clang-format off
    QTest::addColumn<QString>("type");
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<QString>("mentions");
    const QByteArray offset32 = QByteArray(31, '\0') + char(32);
    QTest::newRow("empty for uint256") << "uint256" << QByteArray() << "needs bytes";
    QTest::newRow("uint8 overflow") << "uint8" << (QByteArray(30, '\0') + QByteArray("\x01\x00", 2)) << "does not fit uint8";
    QTest::newRow("int8 bad sign extension") << "int8" << (QByteArray(31, '\0') + "\x80") << "does not fit int8";
    QTest::newRow("bool of 2") << "bool" << (QByteArray(31, '\0') + "\x02") << "neither 0 nor 1";
    QTest::newRow("dirty address") << "address" << QByteArray(32, '\x01') << "upper bytes";
    QTest::newRow("string offset past end") << "string" << (QByteArray(31, '\0') + "\x40") << "points past";
    QTest::newRow("huge string length") << "string" << (offset32 + QByteArray(24, '\0') + QByteArray(8, '\x7f'))
                                        << "points past";
    QTest::newRow("array length beyond data") << "uint256[]" << (offset32 + QByteArray(31, '\0') + "\x10")
                                              << "runs past";
    QTest::newRow("invalid utf-8") << "string" << (offset32 + QByteArray(31, '\0') + QByteArray("\x02\xff\xfe", 3) + QByteArray(30, '\0'))
                                   << "UTF-8";
    // clang-format on
}

void TestAbi::malformed()
{
    QFETCH(QString, type);
    QFETCH(QByteArray, data);
    QFETCH(QString, mentions);
    const QJsonObject param{{"name", "v"}, {"type", type}};
    const QList<abi::AbiParam> params{{"v", abi::AbiType::fromJson(param, "test"), false}};
    try {
        abi::AbiDecoder::decodeParams(params, data, "Ev");
        QFAIL("decoded a malformed encoding");
    } catch (const abi::AbiError& e) {
        QVERIFY2(e.message().contains(mentions) && e.message().contains("Ev"),
                 qPrintable(e.message()));
    }
}

void TestAbi::badAbiFiles_data()
{
    // clang-format off
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("not json") << QByteArray("{nope") << "not JSON";
    QTest::newRow("not an abi") << QByteArray("{\"x\": 1}") << "not an ABI";
    QTest::newRow("unknown type") << QByteArray(R"([{"type":"event","name":"E","inputs":[{"name":"a","type":"uint7"}]}])")
                                  << "bad type \"uint7\"";
    QTest::newRow("nameless event") << QByteArray(R"([{"type":"event","inputs":[]}])") << "without a name";
    // Every field of an event entry has one JSON type; another is an error naming its path.
    QTest::newRow("components not an array")
        << QByteArray(R"([{"type":"event","name":"E","inputs":[{"name":"a","type":"uint8"},{"name":"b","type":"tuple","components":"nope"}]}])")
        << "abi[0].inputs[1].components is a string, expected an array";
    QTest::newRow("components on a non-tuple")
        << QByteArray(R"([{"type":"event","name":"E","inputs":[{"name":"a","type":"uint8","components":{}}]}])")
        << "abi[0].inputs[0].components is an object, expected an array";
    QTest::newRow("tuple without components")
        << QByteArray(R"([{"type":"event","name":"E","inputs":[{"name":"b","type":"tuple[]"}]}])")
        << "abi[0].inputs[0].components is missing, expected an array (the type is a tuple)";
    QTest::newRow("component without a type")
        << QByteArray(R"([{"type":"event","name":"E","inputs":[{"name":"b","type":"tuple","components":[{"name":"x","type":"uint8"},{"name":"y"}]}]}])")
        << "abi[0].inputs[0].components[1].type is missing, expected a string";
    QTest::newRow("component name not a string")
        << QByteArray(R"([{"type":"event","name":"E","inputs":[{"name":"b","type":"tuple","components":[{"name":false,"type":"uint8"}]}]}])")
        << "abi[0].inputs[0].components[0].name is a boolean, expected a string";
    QTest::newRow("type not a string")
        << QByteArray(R"([{"type":"event","name":"E","inputs":[{"name":"a","type":5}]}])")
        << "abi[0].inputs[0].type is a number, expected a string";
    QTest::newRow("input name not a string")
        << QByteArray(R"([{"type":"event","name":"E","inputs":[{"name":7,"type":"uint8"}]}])")
        << "abi[0].inputs[0].name is a number, expected a string";
    QTest::newRow("indexed not a boolean")
        << QByteArray(R"([{"type":"function","name":"f"},{"type":"event","name":"E","inputs":[{"name":"a","type":"uint8","indexed":"yes"}]}])")
        << "abi[1].inputs[0].indexed is a string, expected a boolean";
    QTest::newRow("input not an object")
        << QByteArray(R"([{"type":"event","name":"E","inputs":["uint8"]}])")
        << "abi[0].inputs[0] is a string, expected an object";
    QTest::newRow("inputs not an array")
        << QByteArray(R"([{"type":"event","name":"E","inputs":{}}])")
        << "abi[0].inputs is an object, expected an array";
    QTest::newRow("anonymous not a boolean")
        << QByteArray(R"([{"type":"event","name":"E","anonymous":"false","inputs":[]}])")
        << "abi[0].anonymous is a string, expected a boolean";
    QTest::newRow("event name not a string")
        << QByteArray(R"([{"type":"event","name":5,"inputs":[]}])")
        << "abi[0].name is a number, expected a string";
    QTest::newRow("entry not an object") << QByteArray("[5]") << "abi[0] is a number, expected an object";
    QTest::newRow("entry type not a string")
        << QByteArray(R"([{"type":["event"],"name":"E","inputs":[]}])")
        << "abi[0].type is an array, expected a string";
    QTest::newRow("artefact abi not an array") << QByteArray(R"({"abi":"nope"})")
                                               << "abi is a string, expected an array";
    // The file's text is quoted escaped: the error stays one line.
    QTest::newRow("type breaking the line")
        << QByteArray(R"([{"type":"event","name":"E","inputs":[{"name":"a","type":"uint\nforkscope: ok"}]}])")
        << R"(unsupported type "uint\nforkscope: ok")";
    // clang-format on
}

void TestAbi::badAbiFiles()
{
    QFETCH(QByteArray, json);
    QFETCH(QString, mentions);
    QTemporaryDir dir;
    const QString path = dir.filePath("abi.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(json);
    f.close();
    try {
        abi::EventRegistry::fromFile(path);
        QFAIL("accepted a bad ABI file");
    } catch (const abi::AbiError& e) {
        QVERIFY2(e.message().contains(path) || mentions == "not JSON", qPrintable(e.message()));
        QVERIFY2(e.message().contains(mentions), qPrintable(e.message()));
        QVERIFY2(forkscope::test::isOneLine(e.message()), qPrintable(e.message()));
    }
}

void TestAbi::badAbiFileIsExitTwoNamingTheField()
{
    const QString path = m_lab->tempPath("components-nope.abi.json");
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"([{"type":"event","name":"E","inputs":[{"name":"a","type":"uint8"},)"
            R"({"name":"b","type":"tuple","components":"nope"}]}])");
    f.close();
    const auto run = test::runForkscope(
        m_lab->indexArgs("env", {"--contract", addr("1"), "--exit-when-synced", "--abi", path}));
    VERIFY_ONE_ERROR_LINE(run, 2,
                          (QStringList{path, "abi[0].inputs[1].components is a string, "
                                             "expected an array"}));
}

void TestAbi::decodedSizeLimit_data()
{
    using Rule = abi::DecodeLimit::Rule;
    QTest::addColumn<qsizetype>("dataSize");
    QTest::addColumn<qsizetype>("bytes");
    QTest::addColumn<Rule>("rule");
    QTest::addColumn<QString>("says");
    // clang-format off
    QTest::newRow("no data: the floor") << qsizetype(0) << qsizetype(65536) << Rule::Floor << "exceeds 65536 bytes, the floor for a log of 0 bytes of data";
    QTest::newRow("64 bytes: 1024x is the floor") << qsizetype(64) << qsizetype(65536) << Rule::Floor << "the floor for a log of 64 bytes";
    QTest::newRow("65 bytes: 1024x") << qsizetype(65) << qsizetype(66560) << Rule::Ratio << "exceeds 1024x the log's 65 bytes of data (offsets reused?); kept raw";
    QTest::newRow("1023 bytes: 1024x") << qsizetype(1023) << qsizetype(1047552) << Rule::Ratio << "1024x the log's 1023 bytes";
    QTest::newRow("1 KiB: the bound per log") << qsizetype(1024) << qsizetype(1048576) << Rule::PerLog << "exceeds 1048576 bytes, the bound per log (the log has 1024 bytes of data";
    QTest::newRow("96000 bytes") << qsizetype(96000) << qsizetype(1048576) << Rule::PerLog << "the log has 96000 bytes of data; offsets reused?); kept raw";
    QTest::newRow("no overflow") << (qsizetype(1) << 61) << qsizetype(1048576) << Rule::PerLog << "the bound per log";
    // clang-format on
}

void TestAbi::decodedSizeLimit()
{
    QFETCH(qsizetype, dataSize);
    QFETCH(qsizetype, bytes);
    QFETCH(abi::DecodeLimit::Rule, rule);
    QFETCH(QString, says);
    const abi::DecodeLimit l = abi::DecodeLimit::forData(dataSize);
    QCOMPARE(l.bytes, bytes);
    QCOMPARE(l.rule, rule);
    QVERIFY2(l.exceeded().contains(says), qPrintable(l.exceeded()));
}

void TestAbi::decodingBomb_data()
{
    QTest::addColumn<QByteArray>("inputs");
    QTest::addColumn<QString>("signature");
    QTest::addColumn<QByteArray>("data");
    QTest::addColumn<QString>("mentions");
    const QByteArray inner =
        QJsonDocument(QJsonDocument::fromJson(innerArraysBombAbi())[0]["inputs"].toArray())
            .toJson(QJsonDocument::Compact);
    // The issue's log: 96 KB whose full decoding would be 10^9 values (about 4 GB of JSON).
    QTest::newRow("Inner[][] 1000x1000x1000 in 96 KB")
        << inner << "Bomb((uint256[])[][])" << reusedOffsets(1000, 1000, 1000)
        << "decoded size exceeds 1048576 bytes, the bound per log (the log has "
           "96160 bytes of data; offsets reused?); kept raw";
    // 21 KB claiming 2 million values (8 MB): still far past the bound per log.
    QTest::newRow("Inner[][] 64x64x512 in 21 KB")
        << inner << "Bomb((uint256[])[][])" << reusedOffsets(64, 64, 512)
        << "decoded size exceeds 1048576 bytes, the bound per log (the log has 20640 bytes";
    // Tuples without components are static and take no data: 2^32 of them from nothing.
    QTest::newRow("empty tuples from no data")
        << QByteArray(R"([{"name":"e","type":"tuple[65536][65536]","components":[]}])")
        << "Bomb(()[65536][65536])" << QByteArray()
        << "decoded size exceeds 65536 bytes, the floor for a log of 0 bytes of data";
    QTest::newRow("empty tuples past 1024x")
        << QByteArray(R"([{"name":"a","type":"uint256[4]"},)"
                      R"({"name":"e","type":"tuple[65536][4]","components":[]}])")
        << "Bomb(uint256[4],()[65536][4])" << QByteArray(128, '\0')
        << "decoded size exceeds 1024x the log's 128 bytes of data (offsets reused?); kept raw";
    // A length the data cannot hold is refused before anything is decoded or allocated.
    QTest::newRow("uint256[] claiming 2^32 elements")
        << QByteArray(R"([{"name":"a","type":"uint256[]"}])") << "Bomb(uint256[])"
        << (word(32) + word(quint64(1) << 32) + word(1))
        << "Bomb.a length at byte 32 (4294967296) points past the data (96 bytes)";
}

void TestAbi::decodingBomb()
{
    QFETCH(QByteArray, inputs);
    QFETCH(QString, signature);
    QFETCH(QByteArray, data);
    QFETCH(QString, mentions);
    const abi::EventRegistry registry = bombRegistry(inputs);
    const abi::AbiEvent* ev = registry.find(chain::eventTopic(signature));
    QVERIFY2(ev, qPrintable(signature));

    // Through the registry, as the fetch threads decode: kept raw, the bound named.
    const EventDecoding d = registry.decode(logWith({ev->topic0}, data));
    QCOMPARE(d.status, EventDecoding::Status::Failed);
    QVERIFY(d.argsJson.isEmpty());
    QVERIFY2(d.error.startsWith("Bomb") && d.error.contains(mentions), qPrintable(d.error));

    // It stopped at the bound: what was produced (charged before it was built) stays
    // within the limit, and the data read (re-reads counted) is a few times that, not the
    // gigabytes a full decoding would read.
    abi::DecodeStats stats;
    QVERIFY_THROWS_EXCEPTION(abi::AbiError,
                             abi::AbiDecoder::decodeParams(ev->inputs, data, "Bomb", &stats));
    QCOMPARE(stats.limit.bytes, abi::DecodeLimit::forData(data.size()).bytes);
    QVERIFY2(stats.renderedBytes <= stats.limit.bytes,
             qPrintable(QString::number(stats.renderedBytes)));
    QVERIFY2(stats.bytesRead <= 32 * stats.limit.bytes,
             qPrintable(QString::number(stats.bytesRead)));
}

void TestAbi::decodingBombThroughIndex()
{
    // The bomb on chain, emitted by a contract that logs its calldata, then indexed: the
    // log is stored raw with the bound in decode_error, and the run goes on.
    const auto sender = lab::DemoToken::defaultSender(m_lab->rpc());
    const QString logger = lab::DemoToken::deployBytecode(m_lab->rpc(), sender,
                                                          QByteArray::fromHex(kRawLoggerInitCode))
                               .toHex();
    const QByteArray data = reusedOffsets(64, 64, 512);
    lab::DemoToken::sendAndWait(
        m_lab->rpc(),
        QJsonObject{
            {"from", sender.toHex()},
            {"to", logger},
            {"gas", "0x4c4b40"},
            {"data", chain::hex::encodeData(
                         chain::eventTopic("Bomb((uint256[])[][])").toByteArray() + data)}});
    const auto run = test::runForkscope(
        m_lab->indexArgs("bomb", {"--contract", logger, "--exit-when-synced", "--abi",
                                  FORKSCOPE_SOURCE_DIR "/tests/data/InnerArraysBomb.abi.json"}));
    VERIFY_EXIT_OK(run);
    QVERIFY2(run.out.contains("0 unmatched or anonymous (kept raw), 1 failed"),
             qPrintable(run.out));
    QCOMPARE(
        m_lab->count(
            QStringLiteral(
                "SELECT count(*) FROM logs WHERE environment_id = 'bomb' AND event_name = 'Bomb' "
                "AND args_json IS NULL AND decode_error LIKE 'ABI: Bomb.v%: decoded size exceeds "
                "1048576 bytes, the bound per log (the log has 20640 bytes of data%' AND "
                "length(data) = %1 AND topic0 = '%2'")
                .arg(2 + 2 * data.size())
                .arg(chain::eventTopic("Bomb((uint256[])[][])").toHex())),
        1);
}

void TestAbi::renderedSizeIsExact_data()
{
    QTest::addColumn<QByteArray>("inputs");
    QTest::addColumn<QByteArray>("data");
    QByteArray every; // every ASCII character (each escape JSON has) and some UTF-8
    for (int c = 0; c < 0x80; ++c)
        every += char(c);
    every += QString::fromUtf8("é€😀").toUtf8();
    QTest::newRow("a string needing every escape")
        << QByteArray(R"([{"name":"s","type":"string"}])")
        << (word(32) + word(every.size()) + every + QByteArray(32 - every.size() % 32, '\0'));
    QTest::newRow("keys needing escapes")
        << QByteArray(
               R"([{"name":"t","type":"tuple","components":[{"name":"q\"u\\o\nte","type":"bool"},)"
               R"({"name":"ü€😀","type":"uint8"},{"name":"","type":"bytes"}]}])")
        << (word(32) + word(1) + word(255) + word(96) + word(3) + QByteArray("\x00\xff\x10", 3) +
            QByteArray(29, '\0'));
    // Half a surrogate pair in a name (JSON allows it): Qt writes it as a \uXXXX escape.
    QTest::newRow("keys with lone surrogates")
        << QByteArray(R"([{"name":"\ud800","type":"uint8"},{"name":"a\udc00b","type":"uint8"},)"
                      R"({"name":"\ud83d\ud83d\ude00","type":"uint8"}])")
        << (word(1) + word(2) + word(3));
    // Canonical and large (288 KB of data, 729 KB of JSON): within the bound, decoded.
    QByteArray maxima = word(32) + word(9000);
    for (int i = 0; i < 9000; ++i)
        maxima += QByteArray(32, '\xff');
    QTest::newRow("9000 uint256 maxima")
        << QByteArray(R"([{"name":"v","type":"uint256[]"}])") << maxima;
    QTest::newRow("small Inner[][]")
        << QByteArray(
               R"([{"name":"v","type":"tuple[][]","components":[{"name":"xs","type":"int8[]"}]}])")
        << reusedOffsets(1, 2, 3);
}

void TestAbi::renderedSizeIsExact()
{
    QFETCH(QByteArray, inputs);
    QFETCH(QByteArray, data);
    const QJsonArray list = QJsonDocument::fromJson(inputs).array();
    QList<abi::AbiParam> params;
    for (qsizetype i = 0; i < list.size(); ++i)
        params << abi::AbiParam::fromJson(list[i], "test");
    abi::DecodeStats stats;
    const QJsonObject o = abi::AbiDecoder::decodeParams(params, data, "Ev", &stats);
    // The count the bound applies to is the size of the JSON that is stored.
    QCOMPARE(stats.renderedBytes, QJsonDocument(o).toJson(QJsonDocument::Compact).size());
}

void TestAbi::renderedSizeOfZooLogs()
{
    int compared = 0;
    for (const auto& log : m_logs) {
        const abi::AbiEvent* ev = log.topics.isEmpty() ? nullptr : m_registry.find(log.topics[0]);
        if (!ev)
            continue;
        QList<abi::AbiParam> fromData;
        for (const auto& p : ev->inputs)
            if (!p.indexed)
                fromData << p;
        abi::DecodeStats stats;
        const QJsonObject o = abi::AbiDecoder::decodeParams(fromData, log.data, ev->name, &stats);
        QCOMPARE(stats.renderedBytes, QJsonDocument(o).toJson(QJsonDocument::Compact).size());
        QVERIFY(stats.bytesRead <= log.data.size()); // canonical: each byte read once at most
        ++compared;
    }
    QCOMPARE(compared, 4);
}

void TestAbi::integersAroundSixtyFourBits_data()
{
    // Values that fit 64 bits take a shortcut past the 256-bit arithmetic: its edges.
    QTest::addColumn<QString>("type");
    QTest::addColumn<QByteArray>("word");
    QTest::addColumn<QString>("decoded");
    const QByteArray ones(32, '\xff');
    const auto high = [](int zeros, const QByteArray& low) {
        return QByteArray(32 - low.size(), char(zeros)) + low;
    };
    // clang-format off
    QTest::newRow("uint256 2^64-1") << "uint256" << high(0, QByteArray(8, '\xff')) << "18446744073709551615";
    QTest::newRow("uint256 2^64") << "uint256" << high(0, QByteArray("\x01", 1) + QByteArray(8, '\0')) << "18446744073709551616";
    QTest::newRow("uint64 max") << "uint64" << high(0, QByteArray(8, '\xff')) << "18446744073709551615";
    QTest::newRow("uint64 2^64") << "uint64" << high(0, QByteArray("\x01", 1) + QByteArray(8, '\0')) << "does not fit uint64";
    QTest::newRow("uint56 2^56") << "uint56" << high(0, QByteArray("\x01", 1) + QByteArray(7, '\0')) << "does not fit uint56";
    QTest::newRow("int256 2^63-1") << "int256" << high(0, QByteArray("\x7f", 1) + QByteArray(7, '\xff')) << "9223372036854775807";
    QTest::newRow("int256 2^64-1") << "int256" << high(0, QByteArray(8, '\xff')) << "18446744073709551615";
    QTest::newRow("int256 -1") << "int256" << ones << "-1";
    QTest::newRow("int256 -2^63") << "int256" << (QByteArray(24, '\xff') + QByteArray("\x80", 1) + QByteArray(7, '\0')) << "-9223372036854775808";
    QTest::newRow("int256 -2^63-1") << "int256" << (QByteArray(24, '\xff') + QByteArray("\x7f", 1) + QByteArray(7, '\xff')) << "-9223372036854775809";
    QTest::newRow("int64 -2^63") << "int64" << (QByteArray(24, '\xff') + QByteArray("\x80", 1) + QByteArray(7, '\0')) << "-9223372036854775808";
    QTest::newRow("int64 -2^63-1") << "int64" << (QByteArray(24, '\xff') + QByteArray("\x7f", 1) + QByteArray(7, '\xff')) << "does not fit int64";
    // clang-format on
}

void TestAbi::integersAroundSixtyFourBits()
{
    QFETCH(QString, type);
    QFETCH(QByteArray, word);
    QFETCH(QString, decoded);
    const abi::AbiType t = abi::AbiType::fromJson(QJsonObject{{"type", type}}, "test");
    try {
        QCOMPARE(abi::AbiDecoder::decodeWord(t, word, "Ev.v").toString(), decoded);
    } catch (const abi::AbiError& e) {
        QVERIFY2(e.message() == "Ev.v: value " + decoded, qPrintable(e.message()));
    }
}

void TestAbi::topicCountMismatchNamesTheTopics_data()
{
    QTest::addColumn<QByteArray>("inputs"); // of an event Bomb; empty: DemoToken's Transfer
    QTest::addColumn<QString>("signature");
    QTest::addColumn<int>("topics");
    QTest::addColumn<QString>("error");
    const QString transfer = QStringLiteral(
        "event Transfer(address indexed from, address indexed to, uint256 value) has 2 indexed "
        "inputs, so the log needs 3 topics (signature + 2); it has ");
    const QString transferSig = QStringLiteral("Transfer(address,address,uint256)");
    QTest::newRow("to missing") << QByteArray() << transferSig << 2
                                << transfer + "2: topic 2 (to) is missing";
    QTest::newRow("from and to missing")
        << QByteArray() << transferSig << 1 << transfer + "1: topics 1 (from), 2 (to) are missing";
    QTest::newRow("one extra") << QByteArray() << transferSig << 4
                               << transfer + "4: topic 3 is extra (does the contract index "
                                             "inputs this ABI does not?)";
    QTest::newRow("an unnamed input")
        << QByteArray(R"([{"type":"uint8","indexed":true},{"name":"v","type":"uint8"}])")
        << "Bomb(uint8,uint8)" << 1
        << "event Bomb(uint8 indexed, uint8 v) has 1 indexed input, so the log needs 2 topics "
           "(signature + 1); it has 1: topic 1 (input 0) is missing";
    QTest::newRow("none indexed")
        << QByteArray(R"([{"name":"v","type":"uint8"}])") << "Bomb(uint8)" << 3
        << "event Bomb(uint8 v) has no indexed inputs, so the log needs 1 topic (the signature); "
           "it has 3: topics 1, 2 are extra (does the contract index inputs this ABI does not?)";
}

void TestAbi::topicCountMismatchNamesTheTopics()
{
    QFETCH(QByteArray, inputs);
    QFETCH(QString, signature);
    QFETCH(int, topics);
    QFETCH(QString, error);
    const abi::EventRegistry registry =
        inputs.isEmpty() ? abi::EventRegistry::fromFile(QStringLiteral(
                               FORKSCOPE_SOURCE_DIR "/resources/contracts/DemoToken.json"))
                         : bombRegistry(inputs);
    QList<chain::Hash32> t{chain::eventTopic(signature)};
    while (t.size() < topics)
        t << chain::Hash32::fromBytes(word(t.size()), "topic");
    const EventDecoding d = registry.decode(logWith(t, word(5)));
    QCOMPARE(d.status, EventDecoding::Status::Failed);
    QCOMPARE(d.error, error);
}

void TestAbi::eventDeclarations_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("signature"); // empty: refused
    QTest::addColumn<QString>("mention");   // what the refusal names, or the declaration
    QTest::newRow("uniswap v2")
        << "PairCreated(address indexed token0, address indexed token1, address pair, uint256)"
        << "PairCreated(address,address,address,uint256)"
        << "PairCreated(address indexed token0, address indexed token1, address pair, uint256)";
    QTest::newRow("arrays, spacing") << " Made ( uint8[2]  values ,address[] indexed kids ) "
                                     << "Made(uint8[2],address[])"
                                     << "Made(uint8[2] values, address[] indexed kids)";
    QTest::newRow("no inputs") << "Ping()"
                               << "Ping()"
                               << "Ping()";
    QTest::newRow("unclosed") << "Made(address child"
                              << ""
                              << "not an event signature";
    QTest::newRow("unknown type") << "Made(adress child)"
                                  << ""
                                  << "adress";
    QTest::newRow("tuple") << "Made((uint256,address) info)"
                           << ""
                           << "tuple";
    QTest::newRow("two names") << "Made(address child parent)"
                               << ""
                               << "type [indexed] [name]";
    QTest::newRow("four indexed")
        << "Made(address indexed a, address indexed b, address indexed c, address indexed d)"
        << ""
        << "at most 3";
}

void TestAbi::eventDeclarations()
{
    QFETCH(QString, text);
    QFETCH(QString, signature);
    QFETCH(QString, mention);
    try {
        const abi::AbiEvent ev = abi::parseEventDeclaration(text, "--factory-event");
        QVERIFY2(!signature.isEmpty(), qPrintable(ev.signature));
        QCOMPARE(ev.signature, signature);
        QCOMPARE(ev.topic0, chain::eventTopic(signature));
        QCOMPARE(ev.declaration(), mention);
    } catch (const abi::AbiError& e) {
        QVERIFY2(signature.isEmpty(), qPrintable(e.message()));
        QVERIFY2(e.message().startsWith("--factory-event") && e.message().contains(mention),
                 qPrintable(e.message()));
    }
}

QTEST_GUILESS_MAIN(TestAbi)
#include "tst_abi.moc"
