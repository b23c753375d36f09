// The ABI event decoder against what the real Solidity encoder produced (AbiZoo on anvil),
// plus malformed encodings that must fail with a message instead of a crash or a guess,
// and ABI files whose fields have the wrong JSON type.
#include "IndexerLab.h"
#include "abi/AbiDecoder.h"
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
} // namespace

class TestAbi : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
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
    QCOMPARE(o.value("grid").toArray(), (QJsonArray{QJsonArray{true, false, true}}));
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

QTEST_GUILESS_MAIN(TestAbi)
#include "tst_abi.moc"
