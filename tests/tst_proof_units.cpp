// The receipts proof's building blocks, without a node: RLP and trie roots against the
// consensus test vectors (tests/data/proof), receipt encodings against go-ethereum's, block
// hashes recomputed from headers, log-list differences, and EthClient's odd replies.
#include "OneLine.h"
#include "RawHttpServer.h"
#include "chain/ChainParseError.h"
#include "chain/Hex.h"
#include "chain/Keccak.h"
#include "chain/LogsBloom.h"
#include "proof/HeaderHash.h"
#include "proof/LogDiff.h"
#include "proof/OrderedTrie.h"
#include "proof/Receipt.h"
#include "proof/ReceiptsProof.h"
#include "proof/Rlp.h"
#include "rpc/EthClient.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>
#include <algorithm>
#include <random>

using namespace forkscope;
using chain::Hash32;
using Failure = proof::ReceiptsVerdict::Failure;

namespace {
QByteArray unhex(const QString& s)
{
    return chain::hex::parseData(s.startsWith(QLatin1String("0x")) ? s : QStringLiteral("0x") + s,
                                 QStringLiteral("test vector"));
}

QString hexOf(const QByteArray& b)
{
    return chain::hex::encodeData(b);
}

// The input notation of ethereum/tests RLPTests: a string is its UTF-8 bytes ("0x.." its hex
// bytes), "#digits" a big integer, a number an integer, an array a list.
QByteArray encodeTestInput(const QJsonValue& v)
{
    if (v.isArray()) {
        QList<QByteArray> items;
        for (const QJsonValue& item : v.toArray())
            items << encodeTestInput(item);
        return proof::rlp::encodeList(items);
    }
    if (v.isDouble())
        return proof::rlp::encodeUint(std::uint64_t(v.toDouble()));
    const QString s = v.toString();
    if (s.startsWith(QLatin1Char('#')))
        return proof::rlp::encodeUint(chain::u256::fromDecimal(s.mid(1), QStringLiteral("int")));
    if (s.startsWith(QLatin1String("0x")))
        return proof::rlp::encodeBytes(unhex(s));
    return proof::rlp::encodeBytes(s.toUtf8());
}

QByteArray keyOrValue(const QJsonValue& v)
{
    if (v.isNull())
        return {}; // a deletion: empty means absent
    const QString s = v.toString();
    return s.startsWith(QLatin1String("0x")) ? unhex(s) : s.toUtf8();
}

// go-ethereum core/types/receipt_test.go: status failed, cumulativeGasUsed 1, two logs.
const char* kGethReceiptBody =
    "f901c58001b90100000000000000100000000000000000000000000000000000000000000000000000000000"
    "0000000000000000000000000000000000000000000000000000000000000050000000000000000000000000"
    "0000000000014000000000000000000000000000000000000000000000000000000000000000000000000000"
    "0100000800000000000000000000040000000000000000000000000000400000000000000000000000000008"
    "0000000000000000000000000000000000000000000000000000040000000000000000000000000000000000"
    "0000000000000000000000000010000000000000000000000000000000000000000000000000000000000000"
    "f8bef85d940000000000000000000000000000000000000011f842a000000000000000000000000000000000"
    "0000000000000000000000000000deada0000000000000000000000000000000000000000000000000000000"
    "000000beef830100fff85d940000000000000000000000000000000000000111f842a0000000000000000000"
    "000000000000000000000000000000000000000000deada00000000000000000000000000000000000000000"
    "00000000000000000000beef830100ff";

const QString kZeroHash = QStringLiteral("0x") + QString(64, QLatin1Char('0'));
const QString kBlockHash =
    QStringLiteral("0x3df2934a0e4e2883e75c4c5935cbed062f755dee2b21fca82abdf083e713ed8f");
const QString kTxHash =
    QStringLiteral("0x6057435d856a02eb7e82c1d8bb2a898e7c1f8bb3d6943bf0d6f1e9405f73ef62");

QJsonObject receiptLog(const QString& address, const QJsonArray& topics, const QString& data,
                       int logIndex)
{
    return QJsonObject{{"address", address},
                       {"topics", topics},
                       {"data", data},
                       {"blockHash", kBlockHash},
                       {"blockNumber", "0x4"},
                       {"transactionHash", kTxHash},
                       {"transactionIndex", "0x0"},
                       {"logIndex", chain::hex::encodeQuantity(logIndex)},
                       {"removed", false}};
}

// The receipt of go-ethereum's vectors as eth_getBlockReceipts would return it.
QJsonObject gethReceipt(const QString& type)
{
    const QString dead = QStringLiteral("0x") + QString(60, QLatin1Char('0')) + "dead";
    const QString beef = QStringLiteral("0x") + QString(60, QLatin1Char('0')) + "beef";
    const QJsonArray logs{
        receiptLog("0x0000000000000000000000000000000000000011", {dead, beef}, "0x0100ff", 0),
        receiptLog("0x0000000000000000000000000000000000000111", {dead, beef}, "0x0100ff", 1)};
    QList<chain::LogEntry> entries;
    for (const QJsonValue& l : logs)
        entries << chain::LogEntry::fromJson(l, "log");
    return QJsonObject{{"type", type},
                       {"status", "0x0"},
                       {"cumulativeGasUsed", "0x1"},
                       {"logsBloom", chain::bloom::of(entries).toHex()},
                       {"logs", logs},
                       {"transactionHash", kTxHash},
                       {"transactionIndex", "0x0"},
                       {"blockHash", kBlockHash},
                       {"blockNumber", "0x4"},
                       {"gasUsed", "0x1"}};
}

QJsonObject withField(QJsonObject o, const QString& key, const QJsonValue& v)
{
    if (v.isUndefined())
        o.remove(key);
    else
        o.insert(key, v);
    return o;
}

// A vector file of tests/data/proof (see its "_about").
QJsonObject vectors(const char* name)
{
    QFile f(QStringLiteral(FORKSCOPE_TEST_DATA "/proof/") + QLatin1String(name));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(f.fileName()));
    return QJsonDocument::fromJson(f.readAll()).object();
}

// anvil 1.7.1's genesis header (Prague's fields), as the node sent it.
QJsonObject anvilGenesis()
{
    return vectors("headers.json")["headers"].toArray().at(1)["block"].toObject();
}

chain::LogEntry entry(std::uint64_t logIndex, const QString& data = "0x01", int txIndex = 0)
{
    chain::LogEntry e;
    e.address = chain::Address::fromHex("0x5fbdb2315678afecb367f032d93f642f64180aa3", "address");
    e.topics = {chain::eventTopic("Transfer(address,address,uint256)")};
    e.data = unhex(data);
    e.blockNumber = 7;
    e.blockHash = Hash32::fromHex(kBlockHash, "blockHash");
    e.transactionHash = Hash32::fromHex(kTxHash, "transactionHash");
    e.transactionIndex = std::uint64_t(txIndex);
    e.logIndex = logIndex;
    return e;
}

} // namespace

class TestProofUnits : public QObject
{
    Q_OBJECT
private slots:
    // RLP
    void rlpVectors_data();
    void rlpVectors();
    void rlpIntegers_data();
    void rlpIntegers();
    void rlpLengthPrefixes_data();
    void rlpLengthPrefixes();

    // Trie
    void trieVectors_data();
    void trieVectors();
    void orderedTrieIsTheTrieOfRlpIndices();

    // Receipts
    void receiptEncoding_data();
    void receiptEncoding();
    void receiptRejects_data();
    void receiptRejects();
    void verdictWithoutNode();

    // Log lists
    void diffLogs_data();
    void diffLogs();
    void selectLogs();

    // Header hash
    void headerHash_data();
    void headerHash();
    void headerHashProblems();
    void problemsAreOneLine_data();
    void problemsAreOneLine();

    // EthClient
    void ethClientRejectsOddReplies_data();
    void ethClientRejectsOddReplies();
};

// ---- RLP ---------------------------------------------------------------------------------

void TestProofUnits::rlpVectors_data()
{
    QTest::addColumn<QJsonValue>("input");
    QTest::addColumn<QString>("expected");
    for (const QJsonValue& v : vectors("rlp.json")["vectors"].toArray())
        QTest::newRow(qPrintable(v["name"].toString())) << v["in"] << v["out"].toString();
}

void TestProofUnits::rlpVectors()
{
    QFETCH(QJsonValue, input);
    QFETCH(QString, expected);
    QCOMPARE(hexOf(encodeTestInput(input)), expected);
}

void TestProofUnits::rlpIntegers_data()
{
    QTest::addColumn<QString>("bigEndian");
    QTest::addColumn<QString>("expected");
    QTest::newRow("no bytes is zero") << "0x"
                                      << "0x80";
    QTest::newRow("leading zeros dropped") << "0x0000000400"
                                           << "0x820400";
    QTest::newRow("all zeros is zero") << "0x000000"
                                       << "0x80";
    QTest::newRow("one byte below 0x80 is itself") << "0x00007f"
                                                   << "0x7f";
    // rlptest.json "bigint": 2^256, one byte wider than any U256.
    QTest::newRow("bigint 2^256") << QStringLiteral("0x01") + QString(64, QLatin1Char('0'))
                                  << QStringLiteral("0xa101") + QString(64, QLatin1Char('0'));
}

void TestProofUnits::rlpIntegers()
{
    QFETCH(QString, bigEndian);
    QFETCH(QString, expected);
    QCOMPARE(hexOf(proof::rlp::encodeUintBigEndian(unhex(bigEndian))), expected);
    // The same number through each integer entry point, where it fits.
    const QByteArray raw = unhex(bigEndian);
    if (raw.size() <= 32) {
        const chain::U256 n = chain::u256::fromBigEndian(raw, "n");
        QCOMPARE(hexOf(proof::rlp::encodeUint(n)), expected);
        if (n <= chain::U256(std::numeric_limits<std::uint64_t>::max()))
            QCOMPARE(hexOf(proof::rlp::encodeUint(std::uint64_t(n))), expected);
    }
    QCOMPARE(hexOf(proof::rlp::encodeUint(std::numeric_limits<std::uint64_t>::max())),
             QStringLiteral("0x88ffffffffffffffff"));
}

void TestProofUnits::rlpLengthPrefixes_data()
{
    QTest::addColumn<int>("length");
    QTest::addColumn<QString>("stringPrefix");
    QTest::addColumn<QString>("listPrefix");
    // Up to 55 bytes the length is in the first byte; beyond, the length of the length is.
    QTest::newRow("0") << 0 << "0x80"
                       << "0xc0";
    QTest::newRow("2") << 2 << "0x82"
                       << "0xc2";
    QTest::newRow("55") << 55 << "0xb7"
                        << "0xf7";
    QTest::newRow("56") << 56 << "0xb838"
                        << "0xf838";
    QTest::newRow("255") << 255 << "0xb8ff"
                         << "0xf8ff";
    QTest::newRow("256") << 256 << "0xb90100"
                         << "0xf90100";
    QTest::newRow("1024") << 1024 << "0xb90400"
                          << "0xf90400";
    QTest::newRow("70000") << 70000 << "0xba011170"
                           << "0xfa011170";
}

void TestProofUnits::rlpLengthPrefixes()
{
    QFETCH(int, length);
    QFETCH(QString, stringPrefix);
    QFETCH(QString, listPrefix);
    // 0x41 bytes: never the single-byte form, and a list payload of valid 1-byte items.
    const QByteArray payload(length, 'A');
    const QByteArray s = proof::rlp::encodeBytes(payload);
    QCOMPARE(hexOf(s.left(s.size() - length)), stringPrefix);
    QCOMPARE(s.right(length), payload);
    const QByteArray l = proof::rlp::encodeListPayload(payload);
    QCOMPARE(hexOf(l.left(l.size() - length)), listPrefix);
    QList<QByteArray> items(length, QByteArray("A"));
    QCOMPARE(proof::rlp::encodeList(items), l);
}

// ---- Trie --------------------------------------------------------------------------------

void TestProofUnits::trieVectors_data()
{
    QTest::addColumn<QJsonArray>("entries"); // [[key, value|null], ...] applied in order
    QTest::addColumn<bool>("secure");        // keys hashed first (the state trie's form)
    QTest::addColumn<QString>("root");
    for (const QJsonValue& v : vectors("trie.json")["vectors"].toArray())
        QTest::newRow(qPrintable(v["name"].toString()))
            << v["in"].toArray() << v["secure"].toBool() << v["root"].toString();
}

void TestProofUnits::trieVectors()
{
    QFETCH(QJsonArray, entries);
    QFETCH(bool, secure);
    QFETCH(QString, root);
    QList<std::pair<QByteArray, QByteArray>> in;
    for (const QJsonValue& e : entries) {
        QByteArray key = keyOrValue(e.toArray().at(0));
        if (secure)
            key = chain::keccak256(key).toByteArray();
        in.append({key, keyOrValue(e.toArray().at(1))});
    }
    QCOMPARE(proof::trie::rootOf(in).toHex(), root);
    // The root is a function of the final contents, not of the order they came in.
    std::reverse(in.begin(), in.end());
    QList<std::pair<QByteArray, QByteArray>> last;
    QSet<QByteArray> seen;
    for (const auto& kv : in) // reversed: the first seen is the last given
        if (!seen.contains(kv.first)) {
            seen.insert(kv.first);
            last.append(kv);
        }
    QCOMPARE(proof::trie::rootOf(last).toHex(), root);
}

void TestProofUnits::orderedTrieIsTheTrieOfRlpIndices()
{
    QCOMPARE(proof::trie::orderedRoot({}).toHex(),
             QStringLiteral("0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421"));
    QCOMPARE(proof::trie::emptyRoot(), proof::trie::orderedRoot({}));
    // Around the key-length steps: rlp(127) is one byte, rlp(128) two, rlp(256) three; short
    // values (embedded nodes) and long ones (hashed nodes) both.
    for (int n : {1, 2, 3, 16, 17, 127, 128, 129, 200, 256, 257, 300}) {
        QList<QByteArray> values;
        QList<std::pair<QByteArray, QByteArray>> entries;
        for (int i = 0; i < n; ++i) {
            values << (i % 3 == 0 ? QByteArray(40, char(i)) : QByteArray::number(i));
            entries.append({proof::rlp::encodeUint(std::uint64_t(i)), values.last()});
        }
        std::shuffle(entries.begin(), entries.end(), std::mt19937(unsigned(n)));
        QCOMPARE(proof::trie::orderedRoot(values), proof::trie::rootOf(entries));
        // Any change to any value changes the root.
        QList<QByteArray> changed = values;
        changed[n / 2].append('!');
        QVERIFY(proof::trie::orderedRoot(changed) != proof::trie::orderedRoot(values));
        QList<QByteArray> shorter = values;
        shorter.removeLast();
        QVERIFY(proof::trie::orderedRoot(shorter) != proof::trie::orderedRoot(values));
    }
}

// ---- Receipts ----------------------------------------------------------------------------

void TestProofUnits::receiptEncoding_data()
{
    QTest::addColumn<QJsonObject>("receipt");
    QTest::addColumn<QString>("expected");
    const QString body = QString::fromLatin1(kGethReceiptBody);
    // go-ethereum TestReceiptMarshalBinary: legacy, EIP-2930 and EIP-1559.
    QTest::newRow("legacy (geth)") << gethReceipt("0x0") << "0x" + body;
    QTest::newRow("EIP-2930 (geth)") << gethReceipt("0x1") << "0x01" + body;
    QTest::newRow("EIP-1559 (geth)") << gethReceipt("0x2") << "0x02" + body;
    // EIP-4844 and EIP-7702 receipts are the same body behind their type byte (EIP-2718).
    QTest::newRow("EIP-4844") << gethReceipt("0x3") << "0x03" + body;
    QTest::newRow("EIP-7702") << gethReceipt("0x4") << "0x04" + body;
    // go-ethereum TestTypedReceiptEncodingDecoding: a successful EIP-2930 receipt, no logs.
    QJsonObject ok = gethReceipt("0x1");
    ok["status"] = "0x1";
    ok["cumulativeGasUsed"] = "0x62d4";
    ok["logs"] = QJsonArray{};
    ok["logsBloom"] = QStringLiteral("0x") + QString(512, QLatin1Char('0'));
    QTest::newRow("EIP-2930 success, no logs (geth)")
        << ok << "0x01f90108018262d4b90100" + QString(512, QLatin1Char('0')) + "c0";
    // Before Byzantium the outcome is the post-transaction state root (32 bytes, 0xa0 ...).
    QJsonObject frontier = ok;
    frontier["type"] = "0x0";
    frontier.remove("status");
    frontier["root"] = "0x02" + QString(62, QLatin1Char('0'));
    frontier["cumulativeGasUsed"] = "0x3";
    QTest::newRow("pre-Byzantium state root")
        << frontier
        << "0xf90126a002" + QString(62, QLatin1Char('0')) + "03b90100" +
               QString(512, QLatin1Char('0')) + "c0";
    // An empty "root" next to the status, as some clients send, is no state root.
    QTest::newRow("status with empty root")
        << withField(ok, "root", "0x")
        << "0x01f90108018262d4b90100" + QString(512, QLatin1Char('0')) + "c0";
}

void TestProofUnits::receiptEncoding()
{
    QFETCH(QJsonObject, receipt);
    QFETCH(QString, expected);
    const proof::Receipt r = proof::Receipt::fromJson(receipt, "receipt");
    QCOMPARE(hexOf(r.consensusEncoding()), expected);
    QCOMPARE(chain::bloom::of(r.logs), r.logsBloom);
}

void TestProofUnits::receiptRejects_data()
{
    QTest::addColumn<QJsonValue>("receipt");
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("mentions");
    const QJsonObject good = gethReceipt("0x2");
    const auto logWith = [&](const QString& key, const QJsonValue& v) {
        QJsonObject r = good;
        QJsonArray logs = r["logs"].toArray();
        logs[1] = withField(logs[1].toObject(), key, v);
        r["logs"] = logs;
        return r;
    };
    QTest::newRow("not an object") << QJsonValue("0x01") << "r"
                                   << "expected a receipt object";
    QTest::newRow("type missing") << QJsonValue(withField(good, "type", QJsonValue::Undefined))
                                  << "r.type"
                                  << "field missing";
    QTest::newRow("type 0x7e (OP deposit)")
        << QJsonValue(withField(good, "type", "0x7e")) << "r.type"
        << "unknown receipt type";
    QTest::newRow("type as a number") << QJsonValue(withField(good, "type", 2)) << "r.type"
                                      << "JSON number";
    QTest::newRow("status 2") << QJsonValue(withField(good, "status", "0x2")) << "r.status"
                              << "0x0 (failed) or 0x1";
    QTest::newRow("status and a root")
        << QJsonValue(withField(good, "root", kBlockHash)) << "r.root"
        << "not both";
    QTest::newRow("neither status nor root")
        << QJsonValue(withField(good, "status", QJsonValue::Null)) << "r.status"
        << "before Byzantium, a state root";
    QTest::newRow("root too short")
        << QJsonValue(withField(withField(good, "status", QJsonValue::Undefined), "root", "0x02"))
        << "r.root"
        << "expected 32 bytes";
    QTest::newRow("cumulativeGasUsed missing")
        << QJsonValue(withField(good, "cumulativeGasUsed", QJsonValue::Undefined))
        << "r.cumulativeGasUsed"
        << "field missing";
    QTest::newRow("logsBloom short")
        << QJsonValue(withField(good, "logsBloom", "0x00")) << "r.logsBloom"
        << "expected 256 bytes";
    QTest::newRow("logs not an array")
        << QJsonValue(withField(good, "logs", QJsonValue::Null)) << "r.logs"
        << "expected an array of logs";
    QTest::newRow("log data odd") << QJsonValue(logWith("data", "0x012")) << "r.logs[1].data"
                                  << "odd number of hex digits";
    QTest::newRow("log topic short")
        << QJsonValue(logWith("topics", QJsonArray{"0x01"})) << "r.logs[1].topics[0]"
        << "expected 32 bytes";
    QTest::newRow("log logIndex missing")
        << QJsonValue(logWith("logIndex", QJsonValue::Undefined)) << "r.logs[1].logIndex"
        << "field missing";
    QTest::newRow("log removed") << QJsonValue(logWith("removed", true)) << "r.logs[1].removed"
                                 << "cannot be removed";
    QTest::newRow("transactionIndex missing")
        << QJsonValue(withField(good, "transactionIndex", QJsonValue::Undefined))
        << "r.transactionIndex"
        << "field missing";
    QTest::newRow("transactionHash missing")
        << QJsonValue(withField(good, "transactionHash", QJsonValue::Undefined))
        << "r.transactionHash"
        << "field missing";
    QTest::newRow("blockHash null")
        << QJsonValue(withField(good, "blockHash", QJsonValue::Null)) << "r.blockHash"
        << "null";
    QTest::newRow("blockNumber negative")
        << QJsonValue(withField(good, "blockNumber", "-0x4")) << "r.blockNumber"
        << "negative";
}

void TestProofUnits::receiptRejects()
{
    QFETCH(QJsonValue, receipt);
    QFETCH(QString, field);
    QFETCH(QString, mentions);
    try {
        proof::Receipt::fromJson(receipt, "r");
        QFAIL("accepted a bad receipt");
    } catch (const chain::ChainParseError& e) {
        QCOMPARE(e.field(), field);
        QVERIFY2(e.message().contains(mentions), qPrintable(e.message()));
    }
}

void TestProofUnits::verdictWithoutNode()
{
    chain::BlockHeader empty;
    empty.number = 9;
    empty.receiptsRoot = proof::trie::emptyRoot();
    const proof::ReceiptsVerdict none = proof::verifyReceipts(empty, QJsonArray{});
    QVERIFY2(none.ok, qPrintable(none.problem));
    QCOMPARE(none.receipts, qsizetype(0));
    QVERIFY(none.logs.isEmpty());

    const proof::ReceiptsVerdict object = proof::verifyReceipts(empty, QJsonObject{});
    QVERIFY(!object.ok);
    QCOMPARE(int(object.failure), int(Failure::Malformed));
    QVERIFY2(object.problem.startsWith("receipts of block 9 (0x"), qPrintable(object.problem));
    QVERIFY2(object.problem.contains("expected an array of receipts"), qPrintable(object.problem));

    // An L2 deposit receipt: unproven, which is not the same as a lie.
    QJsonObject deposit = gethReceipt("0x7e");
    deposit["blockNumber"] = "0x9";
    const proof::ReceiptsVerdict l2 = proof::verifyReceipts(empty, QJsonArray{deposit});
    QVERIFY(!l2.ok);
    QCOMPARE(int(l2.failure), int(Failure::Unsupported));
    QVERIFY2(l2.problem.contains("\"eth_getBlockReceipts[0].type\": unknown receipt type"),
             qPrintable(l2.problem));
    QVERIFY_THROWS_EXCEPTION(proof::UnsupportedReceiptType, proof::Receipt::fromJson(deposit, "r"));

    // A header that commits to receipts, answered with none.
    chain::BlockHeader full = empty;
    full.receiptsRoot = chain::keccak256("something");
    const proof::ReceiptsVerdict hidden = proof::verifyReceipts(full, QJsonArray{});
    QVERIFY(!hidden.ok);
    QCOMPARE(int(hidden.failure), int(Failure::ReceiptsRoot));
    QVERIFY2(hidden.problem.contains(full.receiptsRoot.toHex()), qPrintable(hidden.problem));
    QVERIFY(hidden.logs.isEmpty());
}

// ---- Log lists ---------------------------------------------------------------------------

void TestProofUnits::diffLogs_data()
{
    using Logs = QList<chain::LogEntry>;
    QTest::addColumn<Logs>("proven");
    QTest::addColumn<Logs>("claimed");
    QTest::addColumn<int>("missing");
    QTest::addColumn<int>("extra");
    QTest::addColumn<int>("altered");
    QTest::addColumn<QString>("described");

    const Logs three{entry(0), entry(1), entry(2)};
    QTest::newRow("same") << three << three << 0 << 0 << 0 << "";
    QTest::newRow("same, other order")
        << three << Logs{entry(2), entry(0), entry(1)} << 0 << 0 << 0 << "";
    QTest::newRow("both empty") << Logs{} << Logs{} << 0 << 0 << 0 << "";
    QTest::newRow("one missing")
        << three << Logs{entry(0), entry(2)} << 1 << 0 << 0
        << "1 missing (logIndex 1 of 0x5fbdb2315678afecb367f032d93f642f64180aa3 in tx 0)";
    QTest::newRow("all missing") << three << Logs{} << 3 << 0 << 0
                                 << "3 missing (logIndex 0 of "
                                    "0x5fbdb2315678afecb367f032d93f642f64180aa3 in tx 0, logIndex "
                                    "1 of 0x5fbdb2315678afecb367f032d93f642f64180aa3 in tx 0, "
                                    "logIndex 2 of 0x5fbdb2315678afecb367f032d93f642f64180aa3 in "
                                    "tx 0)";
    QTest::newRow("one extra") << three << Logs{entry(0), entry(1), entry(2), entry(3, "0x01", 1)}
                               << 0 << 1 << 0
                               << "1 extra (logIndex 3 of "
                                  "0x5fbdb2315678afecb367f032d93f642f64180aa3 in tx 1)";
    QTest::newRow("logIndex claimed twice")
        << three << Logs{entry(0), entry(1), entry(1), entry(2)} << 0 << 1 << 0
        << "1 extra (logIndex 1 of "
           "0x5fbdb2315678afecb367f032d93f642f64180aa3 in tx 0)";
    chain::LogEntry moved = entry(1);
    moved.topics.append(Hash32());
    moved.transactionIndex = 4;
    QTest::newRow("altered") << three << Logs{entry(0), moved, entry(2, "0x02")} << 0 << 0 << 2
                             << "2 altered (logIndex 1: topics, transactionIndex, logIndex 2: "
                                "data)";
    QTest::newRow("everything")
        << three << Logs{entry(1, "0x03"), entry(5)} << 2 << 1 << 1
        << "2 missing (logIndex 0 of 0x5fbdb2315678afecb367f032d93f642f64180aa3 in tx 0, logIndex "
           "2 of 0x5fbdb2315678afecb367f032d93f642f64180aa3 in tx 0); 1 extra (logIndex 5 of "
           "0x5fbdb2315678afecb367f032d93f642f64180aa3 in tx 0); 1 altered (logIndex 1: data)";
    Logs many;
    for (int i = 0; i < 10; ++i)
        many << entry(std::uint64_t(i));
    QTest::newRow("many missing: three named")
        << many << Logs{} << 10 << 0 << 0
        << "10 missing (logIndex 0 of 0x5fbdb2315678afecb367f032d93f642f64180aa3 in tx 0, "
           "logIndex 1 of 0x5fbdb2315678afecb367f032d93f642f64180aa3 in tx 0, logIndex 2 of "
           "0x5fbdb2315678afecb367f032d93f642f64180aa3 in tx 0, 7 more)";
}

void TestProofUnits::diffLogs()
{
    using Logs = QList<chain::LogEntry>;
    QFETCH(Logs, proven);
    QFETCH(Logs, claimed);
    QFETCH(int, missing);
    QFETCH(int, extra);
    QFETCH(int, altered);
    QFETCH(QString, described);
    const proof::LogDiff d = proof::diffLogs(proven, claimed);
    QCOMPARE(d.missing.size(), qsizetype(missing));
    QCOMPARE(d.extra.size(), qsizetype(extra));
    QCOMPARE(d.altered.size(), qsizetype(altered));
    QCOMPARE(d.isEmpty(), missing + extra + altered == 0);
    QCOMPARE(d.describe(), described);
}

void TestProofUnits::selectLogs()
{
    const Hash32 transfer = chain::eventTopic("Transfer(address,address,uint256)");
    const Hash32 approval = chain::eventTopic("Approval(address,address,uint256)");
    chain::LogEntry a = entry(0);
    chain::LogEntry b = entry(1);
    b.address = chain::Address::fromHex("0x00000000000000000000000000000000000000bb", "b");
    chain::LogEntry c = entry(2);
    c.topics = {approval, Hash32()};
    chain::LogEntry anonymous = entry(3);
    anonymous.topics.clear();
    const QList<chain::LogEntry> all{a, b, c, anonymous};
    const auto indices = [](const QList<chain::LogEntry>& logs) {
        QList<std::uint64_t> out;
        for (const auto& l : logs)
            out << l.logIndex;
        return out;
    };
    using I = QList<std::uint64_t>;
    QCOMPARE(indices(proof::selectLogs(all, {}, {})), (I{0, 1, 2, 3}));
    QCOMPARE(indices(proof::selectLogs(all, {a.address}, {})), (I{0, 2, 3}));
    QCOMPARE(indices(proof::selectLogs(all, {a.address, b.address}, {{transfer}})), (I{0, 1}));
    QCOMPARE(indices(proof::selectLogs(all, {}, {{transfer, approval}})), (I{0, 1, 2}));
    QCOMPARE(indices(proof::selectLogs(all, {}, {{}, {Hash32()}})), (I{2}));
    // A wildcard position still needs the log to have a topic there (go-ethereum's rule).
    QCOMPARE(indices(proof::selectLogs(all, {}, {{}})), (I{0, 1, 2}));
}

// ---- Header hash -------------------------------------------------------------------------

void TestProofUnits::headerHash_data()
{
    QTest::addColumn<QJsonObject>("block");
    for (const QJsonValue& v : vectors("headers.json")["headers"].toArray())
        QTest::newRow(qPrintable(v["name"].toString())) << v["block"].toObject();
    QTest::newRow("unknown extra keys, same hash")
        << withField(anvilGenesis(), "blockTimestamp", "0x1");
}

void TestProofUnits::headerHash()
{
    QFETCH(QJsonObject, block);
    const proof::HeaderHashCheck c = proof::verifyHeaderHash(block, "block");
    QVERIFY2(c.ok, qPrintable(c.problem));
    QCOMPARE(c.computed.toHex(), block["hash"].toString());
    QCOMPARE(c.header.hash, c.computed);
    QCOMPARE(proof::computeHeaderHash(block, "block"), c.computed);
}

void TestProofUnits::headerHashProblems()
{
    // Any field changed: the fields no longer hash to the hash.
    for (const char* key : {"parentHash", "receiptsRoot", "logsBloom", "gasUsed", "extraData",
                            "baseFeePerGas", "requestsHash"}) {
        QJsonObject b = anvilGenesis();
        const QString v = b[key].toString();
        b[key] = v == "0x" ? QString("0x01") : v.chopped(1) + (v.endsWith('0') ? '1' : '0');
        const proof::HeaderHashCheck c = proof::verifyHeaderHash(b, "block 0x0");
        QVERIFY2(!c.ok, key);
        QVERIFY2(c.problem.startsWith("block 0x0: its fields hash to 0x"), qPrintable(c.problem));
        QVERIFY2(c.problem.contains("not to its hash " + b["hash"].toString()),
                 qPrintable(c.problem));
    }
    // A field a newer fork added, which Forkscope does not hash, is named.
    {
        QJsonObject b = withField(anvilGenesis(), "blockAccessListHash", kZeroHash);
        b["hash"] = kBlockHash;
        const proof::HeaderHashCheck c = proof::verifyHeaderHash(b, "block");
        QVERIFY(!c.ok);
        QVERIFY2(c.problem.contains("fields Forkscope does not know: blockAccessListHash"),
                 qPrintable(c.problem));
    }
    // An optional field dropped from the middle of the fork sequence.
    {
        const QJsonObject b = withField(anvilGenesis(), "withdrawalsRoot", QJsonValue::Undefined);
        const proof::HeaderHashCheck c = proof::verifyHeaderHash(b, "block");
        QVERIFY(!c.ok);
        QVERIFY2(c.problem.contains("\"block.blobGasUsed\"") &&
                     c.problem.contains("withdrawalsRoot, added by an earlier fork, is missing"),
                 qPrintable(c.problem));
        QVERIFY_THROWS_EXCEPTION(chain::ChainParseError, proof::computeHeaderHash(b, "block"));
    }
    // The last ones dropped: a valid older header, whose hash is then another.
    {
        QJsonObject b = anvilGenesis();
        b.remove("requestsHash");
        const proof::HeaderHashCheck c = proof::verifyHeaderHash(b, "block");
        QVERIFY(!c.ok);
        QVERIFY(c.computed != Hash32());
    }
    // Base fields are required and strict.
    for (const char* key : {"mixHash", "nonce", "miner", "difficulty", "sha3Uncles"}) {
        const proof::HeaderHashCheck c =
            proof::verifyHeaderHash(withField(anvilGenesis(), key, QJsonValue::Undefined), "b");
        QVERIFY(!c.ok);
        QVERIFY2(c.problem.contains(QStringLiteral("\"b.%1\"").arg(key)), qPrintable(c.problem));
    }
    const proof::HeaderHashCheck shortNonce =
        proof::verifyHeaderHash(withField(anvilGenesis(), "nonce", "0x00"), "b");
    QVERIFY2(shortNonce.problem.contains("\"b.nonce\"") &&
                 shortNonce.problem.contains("expected 8 bytes"),
             qPrintable(shortNonce.problem));
    QVERIFY(!proof::verifyHeaderHash(QJsonValue::Null, "b").ok);
}

// ---- EthClient ---------------------------------------------------------------------------

void TestProofUnits::problemsAreOneLine_data()
{
    // What a node sends is quoted escaped and bounded: a problem line cannot be broken into a
    // forged second line, nor run to megabytes.
    QTest::addColumn<QJsonValue>("block");    // for verifyHeaderHash, unless undefined
    QTest::addColumn<QJsonValue>("receipts"); // for verifyReceipts otherwise
    QTest::addColumn<QString>("mentions");
    const QJsonValue none(QJsonValue::Undefined);
    QTest::newRow("receipts: a string breaking the line")
        << none << QJsonValue("a\nforkscope: verified") << "got \"a\\nforkscope: verified\"";
    QJsonObject breaking = withField(anvilGenesis(), "x\nforkscope: verified", 1);
    breaking["hash"] = kBlockHash;
    QTest::newRow("header: an unknown field breaking the line")
        << QJsonValue(breaking) << none << "does not know: x\\nforkscope: verified";
    QJsonObject many = anvilGenesis();
    for (int i = 0; i < 1000; ++i)
        many[QStringLiteral("unknown%1").arg(i, 4, 10, QLatin1Char('0'))] = i;
    many["hash"] = kBlockHash;
    QTest::newRow("header: a thousand unknown fields")
        << QJsonValue(many) << none << "unknown0004, and 995 more";
}

void TestProofUnits::problemsAreOneLine()
{
    QFETCH(QJsonValue, block);
    QFETCH(QJsonValue, receipts);
    QFETCH(QString, mentions);
    QString problem;
    if (!block.isUndefined()) {
        const proof::HeaderHashCheck c = proof::verifyHeaderHash(block, "block");
        QVERIFY(!c.ok);
        problem = c.problem;
    } else {
        chain::BlockHeader header;
        header.number = 9;
        const proof::ReceiptsVerdict v = proof::verifyReceipts(header, receipts);
        QVERIFY(!v.ok);
        problem = v.problem;
    }
    QVERIFY2(problem.contains(mentions), qPrintable(problem.left(300)));
    QVERIFY2(test::isOneLine(problem), qPrintable(problem.left(300)));
}

void TestProofUnits::ethClientRejectsOddReplies_data()
{
    QTest::addColumn<QByteArray>("result");
    QTest::addColumn<bool>("receipts"); // else the header
    QTest::addColumn<int>("kind");
    QTest::addColumn<QString>("mentions");
    using K = rpc::RpcError::Kind;
    QTest::newRow("receipts: a string") << QByteArray("\"0x01\"") << true << int(K::Malformed)
                                        << "expected an array of receipts or null";
    QTest::newRow("receipts: an object")
        << QByteArray("{}") << true << int(K::Malformed) << "eth_getBlockReceipts(0x";
    QTest::newRow("header: an array")
        << QByteArray("[]") << false << int(K::Malformed) << "expected a block object or null";
}

void TestProofUnits::ethClientRejectsOddReplies()
{
    QFETCH(QByteArray, result);
    QFETCH(bool, receipts);
    QFETCH(int, kind);
    QFETCH(QString, mentions);
    test::RawHttpServer server;
    server.respondWith(200, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":" + result + "}");
    rpc::JsonRpcClient client(server.url());
    rpc::EthClient eth(client);
    const Hash32 hash = Hash32::fromHex(kBlockHash, "hash");
    try {
        if (receipts)
            eth.blockReceipts(hash);
        else
            eth.blockJsonByHash(hash);
        QFAIL("accepted an odd reply");
    } catch (const rpc::RpcException& e) {
        QCOMPARE(int(e.error().kind), kind);
        QVERIFY2(e.error().toString().contains(mentions), qPrintable(e.error().toString()));
    }
    QVERIFY(server.lastRequestBody().contains(kBlockHash.toLatin1()));
}

QTEST_GUILESS_MAIN(TestProofUnits)
#include "tst_proof_units.moc"
