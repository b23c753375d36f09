// Strict parsing of the chain value types from JSON-RPC hex, and Keccak-256 vectors.
#include "OneLine.h"
#include "chain/Address.h"
#include "chain/BlockHeader.h"
#include "chain/BloomBitsCache.h"
#include "chain/ChainParseError.h"
#include "chain/Hash32.h"
#include "chain/Hex.h"
#include "chain/Keccak.h"
#include "chain/LogEntry.h"
#include "chain/LogsBloom.h"
#include "chain/U256.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace forkscope::chain;

namespace {
QJsonValue json(const char* text)
{
    // Wrap so scalars parse too.
    const auto doc = QJsonDocument::fromJson(QByteArray("[") + text + "]");
    return doc.array().at(0);
}

const char* kHash = "0x88df016429689c079f3b2f6ad39fa052532c56795b733da78a91ebe6a713944b";

QJsonObject goodBlock()
{
    return QJsonObject{
        {"number", "0x1b4"},
        {"hash", kHash},
        {"parentHash", "0x0000000000000000000000000000000000000000000000000000000000000000"},
        {"timestamp", "0x5f5e100"},
        {"logsBloom", "0x" + QString(512, '0')},
        {"receiptsRoot", "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421"},
    };
}

QJsonObject goodLog()
{
    return QJsonObject{
        {"address", "0x5FbDB2315678afecb367f032d93F642f64180aa3"},
        {"topics",
         QJsonArray{"0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"}},
        {"data", "0x00ff"},
        {"blockNumber", "0x2"},
        {"blockHash", kHash},
        {"transactionHash", kHash},
        {"transactionIndex", "0x0"},
        {"logIndex", "0x1"},
        {"removed", false},
    };
}
} // namespace

class TestChainTypes : public QObject
{
    Q_OBJECT
private slots:
    void quantity_data();
    void quantity();
    void badQuantity_data();
    void badQuantity();
    void decimal_data();
    void decimal();
    void fixedBytes_data();
    void fixedBytes();
    void isEncodingOf_data();
    void isEncodingOf();
    void u256_data();
    void u256();
    void badU256_data();
    void badU256();
    void u256Arithmetic();
    void blockHeader();
    void badBlockHeader_data();
    void badBlockHeader();
    void logEntry();
    void badLogEntry_data();
    void badLogEntry();
    void keccak_data();
    void keccak();
    void hugeValueIsShortenedInMessage();
    void bloomBitsCache();
};

void TestChainTypes::quantity_data()
{
    // clang-format off
    QTest::addColumn<QString>("input");
    QTest::addColumn<quint64>("expected");
    QTest::newRow("zero") << "0x0" << quint64(0);
    QTest::newRow("one") << "0x1" << quint64(1);
    QTest::newRow("upper-case digits") << "0xABC" << quint64(0xabc);
    QTest::newRow("upper-case prefix") << "0X10" << quint64(16);
    QTest::newRow("max 63 bits") << "0x7fffffffffffffff" << quint64(0x7fffffffffffffffULL);
    QTest::newRow("leading zeros") << "0x000010" << quint64(16);
    // clang-format on
}

void TestChainTypes::quantity()
{
    QFETCH(QString, input);
    QFETCH(quint64, expected);
    QCOMPARE(hex::parseQuantityU63(QJsonValue(input), "blockNumber"), expected);
}

void TestChainTypes::badQuantity_data()
{
    // clang-format off
    QTest::addColumn<QString>("jsonText");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("null") << "null" << "null";
    QTest::newRow("missing 0x") << "\"10\"" << "0x-prefixed";
    QTest::newRow("empty digits") << "\"0x\"" << "hex digits after 0x";
    QTest::newRow("non-hex") << "\"0x12g\"" << "'g' is not a hex digit";
    QTest::newRow("negative") << "\"-0x1\"" << "negative";
    QTest::newRow("fraction") << "\"0x1.8\"" << "fractional";
    QTest::newRow("json number") << "16" << "JSON number 16";
    QTest::newRow("negative json number") << "-1" << "JSON number -1";
    QTest::newRow("fractional json number") << "1.5" << "JSON number 1.5";
    QTest::newRow("overflow 64 bits") << "\"0x8000000000000000\"" << "63 bits";
    QTest::newRow("overflow huge") << "\"0x1000000000000000000000000000000000\"" << "63 bits";
    QTest::newRow("bool") << "true" << "true";
    QTest::newRow("object") << "{}" << "JSON object";
    QTest::newRow("whitespace") << "\" 0x1\"" << "0x-prefixed";
    // A node's text is quoted escaped: it cannot forge the next log line nor drive a terminal.
    QTest::newRow("a line break") << "\"0x1\\nforkscope: synced\"" << "'\\n' is not a hex digit, got \"0x1\\nforkscope: synced\"";
    QTest::newRow("a terminal escape") << "\"0x\\u001b[2J\"" << "got \"0x\\u001b[2J\"";
    QTest::newRow("a megabyte") << QString("\"0x" + QString(1000000, 'z') + "\"") << "(1000004 chars)";
    // clang-format on
}

void TestChainTypes::badQuantity()
{
    QFETCH(QString, jsonText);
    QFETCH(QString, mentions);
    try {
        hex::parseQuantityU63(json(jsonText.toUtf8().constData()), "block.number");
        QFAIL("accepted a bad quantity");
    } catch (const ChainParseError& e) {
        QCOMPARE(e.field(), QStringLiteral("block.number"));
        QVERIFY2(e.message().contains("\"block.number\""), qPrintable(e.message()));
        QVERIFY2(e.message().contains(mentions), qPrintable(e.message()));
        QVERIFY2(forkscope::test::isOneLine(e.message()), qPrintable(e.message()));
    }
}

void TestChainTypes::decimal_data()
{
    // clang-format off
    QTest::addColumn<QString>("input");
    QTest::addColumn<bool>("ok");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("zero") << "0" << true << "";
    QTest::newRow("plain") << "12345" << true << "";
    QTest::newRow("negative") << "-5" << false << "negative";
    QTest::newRow("fraction") << "1.5" << false << "fractional";
    QTest::newRow("exponent") << "1e3" << false << "fractional";
    QTest::newRow("letters") << "12a" << false << "'a' is not a decimal digit";
    QTest::newRow("empty") << "" << false << "whole number";
    QTest::newRow("overflow") << "9223372036854775808" << false << "63 bits";
    // clang-format on
}

void TestChainTypes::decimal()
{
    QFETCH(QString, input);
    QFETCH(bool, ok);
    QFETCH(QString, mentions);
    try {
        const auto v = hex::parseDecimalU63(input, "--from-block");
        QVERIFY(ok);
        QCOMPARE(QString::number(v), input);
    } catch (const ChainParseError& e) {
        QVERIFY2(!ok, qPrintable(e.message()));
        QVERIFY(e.message().contains("--from-block"));
        QVERIFY2(e.message().contains(mentions), qPrintable(e.message()));
    }
}

void TestChainTypes::fixedBytes_data()
{
    // clang-format off
    QTest::addColumn<QString>("input");
    QTest::addColumn<int>("size");
    QTest::addColumn<QString>("error"); // empty = accepted
    QTest::newRow("hash ok") << QString(kHash) << 32 << "";
    QTest::newRow("hash upper-case normalised")
        << QString(kHash).toUpper().replace("0X", "0x") << 32 << "";
    QTest::newRow("hash short") << "0x1234" << 32 << "expected 32 bytes";
    QTest::newRow("hash long") << QString(kHash) + "00" << 32 << "expected 32 bytes";
    QTest::newRow("hash odd digits") << QString(kHash) + "0" << 32 << "odd number";
    QTest::newRow("hash no prefix") << QString(kHash).mid(2) << 32 << "0x-prefixed";
    QTest::newRow("hash non-hex") << QString(kHash).replace(10, 1, "z") << 32 << "'z'";
    QTest::newRow("address ok") << "0x5FbDB2315678afecb367f032d93F642f64180aa3" << 20 << "";
    QTest::newRow("address 32 bytes") << QString(kHash) << 20 << "expected 20 bytes";
    QTest::newRow("address 19 bytes") << "0x5fbdb2315678afecb367f032d93f642f64180a" << 20
                                      << "expected 20 bytes";
    // clang-format on
}

void TestChainTypes::fixedBytes()
{
    QFETCH(QString, input);
    QFETCH(int, size);
    QFETCH(QString, error);
    try {
        const QString out = size == 32 ? Hash32::fromHex(input, "hash").toHex()
                                       : Address::fromHex(input, "hash").toHex();
        QVERIFY2(error.isEmpty(), "accepted a bad value");
        QCOMPARE(out, input.toLower()); // canonical: lowercase 0x-hex
    } catch (const ChainParseError& e) {
        QVERIFY2(!error.isEmpty(), qPrintable(e.message()));
        QCOMPARE(e.field(), QStringLiteral("hash"));
        QVERIFY2(e.message().contains(error), qPrintable(e.message()));
    }
}

void TestChainTypes::isEncodingOf_data()
{
    // Only encodeData's own text matches: the contract's read surface is lowercase 0x hex.
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("matches");
    const QByteArray b = QByteArray::fromHex("00ff10ab");
    QTest::newRow("its encoding") << b << "0x00ff10ab" << true;
    QTest::newRow("empty bytes, bare prefix") << QByteArray() << "0x" << true;
    QTest::newRow("empty bytes, empty text") << QByteArray() << "" << false;
    QTest::newRow("upper-case digits") << b << "0x00FF10AB" << false;
    QTest::newRow("upper-case prefix") << b << "0X00ff10ab" << false;
    QTest::newRow("no prefix") << b << "00ff10ab" << false;
    QTest::newRow("one digit differs") << b << "0x00ff10ac" << false;
    QTest::newRow("high nibble differs") << b << "0x10ff10ab" << false;
    QTest::newRow("one byte short") << b << "0x00ff10" << false;
    QTest::newRow("one byte long") << b << "0x00ff10ab00" << false;
    QTest::newRow("odd length") << b << "0x00ff10ab0" << false;
}

void TestChainTypes::isEncodingOf()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, text);
    QFETCH(bool, matches);
    QCOMPARE(hex::isEncodingOf(text, bytes), matches);
    QCOMPARE(hex::isEncodingOf(text, bytes), text == hex::encodeData(bytes));
    if (bytes.size() == 4 && text.startsWith(QLatin1String("0x"))) {
        // The fixed-size form says the same of the same digits behind 28 zero bytes.
        const QByteArray padded = QByteArray(28, '\0') + bytes;
        const QString paddedText = QStringLiteral("0x") + QString(56, u'0') + text.mid(2);
        QCOMPARE(Hash32::fromBytes(padded, "h").isHexOf(paddedText), matches);
    }
}

void TestChainTypes::u256_data()
{
    // clang-format off
    QTest::addColumn<QString>("quantity");
    QTest::addColumn<QString>("decimal");
    QTest::newRow("zero") << "0x0" << "0";
    QTest::newRow("one ether") << "0xde0b6b3a7640000" << "1000000000000000000";
    QTest::newRow("max") << "0x" + QString(64, 'f')
                         << "115792089237316195423570985008687907853269984665640564039457584007913129639935";
    QTest::newRow("19 digits (one chunk)") << "0x8ac7230489e7ffff" << "9999999999999999999";
    QTest::newRow("10^19 (two chunks)") << "0x8ac7230489e80000" << "10000000000000000000";
    QTest::newRow("20 digits") << "0xab54a98ceb1f0ad2" << "12345678901234567890";
    QTest::newRow("39 digits") << "0x4b3b4ca85a86c47a098a224000000007" << "100000000000000000000000000000000000007";
    QTest::newRow("2^255") << "0x8000000000000000000000000000000000000000000000000000000000000000" << "57896044618658097711785492504343953926634992332820282019728792003956564819968";
    QTest::newRow("leading zeros beyond 64 digits") << "0x" + QString(10, '0') + QString(64, 'f')
                         << "115792089237316195423570985008687907853269984665640564039457584007913129639935";
    // clang-format on
}

void TestChainTypes::u256()
{
    QFETCH(QString, quantity);
    QFETCH(QString, decimal);
    const U256 v = u256::fromQuantity(QJsonValue(quantity), "value");
    QCOMPARE(u256::toDecimal(v), decimal);
    QCOMPARE(u256::fromDecimal(decimal, "balance"), v);
    const QByteArray word = u256::toBigEndian32(v);
    QCOMPARE(u256::fromBigEndian(word, "word"), v);
    // A shorter big-endian string is the same number (zero: no bytes at all).
    QByteArray significant = word;
    while (!significant.isEmpty() && significant.front() == '\0')
        significant.remove(0, 1);
    QCOMPARE(u256::fromBigEndian(significant, "word"), v);
}

void TestChainTypes::badU256_data()
{
    // clang-format off
    QTest::addColumn<QString>("input");
    QTest::addColumn<bool>("isQuantity");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("quantity 257 bits") << "0x1" + QString(64, '0') << true << "256 bits";
    QTest::newRow("quantity negative") << "-0x5" << true << "negative";
    QTest::newRow("quantity no prefix") << "ff" << true << "0x-prefixed";
    QTest::newRow("decimal 2^256")
        << "115792089237316195423570985008687907853269984665640564039457584007913129639936" << false
        << "256 bits";
    QTest::newRow("decimal negative") << "-1" << false << "'-'";
    QTest::newRow("decimal 78 nines") << QString(78, '9') << false << "256 bits";
    QTest::newRow("decimal 79 digits") << "1" + QString(78, '0') << false << "256 bits";
    QTest::newRow("decimal empty") << "" << false << "base-10";
    QTest::newRow("decimal non-ASCII digit") << QString::fromUtf8("1\u0663") << false << QString::fromUtf8("'\u0663'");
    QTest::newRow("decimal leading zero") << "007" << false << "leading zeros";
    QTest::newRow("decimal fraction") << "1.0" << false << "'.'";
    // clang-format on
}

void TestChainTypes::badU256()
{
    QFETCH(QString, input);
    QFETCH(bool, isQuantity);
    QFETCH(QString, mentions);
    try {
        if (isQuantity)
            u256::fromQuantity(QJsonValue(input), "transfer.value");
        else
            u256::fromDecimal(input, "transfer.value");
        QFAIL("accepted a bad U256");
    } catch (const ChainParseError& e) {
        QCOMPARE(e.field(), QStringLiteral("transfer.value"));
        QVERIFY2(e.message().contains(mentions), qPrintable(e.message()));
    }
}

void TestChainTypes::u256Arithmetic()
{
    const U256 max = u256::fromQuantity(QJsonValue("0x" + QString(64, 'f')), "max");
    // Checked arithmetic: wrapping would invent a balance.
    QVERIFY_THROWS_EXCEPTION(std::overflow_error, [&] {
        U256 x = max;
        x += 1;
    }());
    QVERIFY_THROWS_EXCEPTION(std::range_error, [&] {
        U256 x = 0;
        x -= 1;
    }());
    QVERIFY_THROWS_EXCEPTION(ChainParseError, u256::fromBigEndian(QByteArray(33, '\1'), "word"));
}

void TestChainTypes::blockHeader()
{
    const BlockHeader h = BlockHeader::fromJson(goodBlock(), "block");
    QCOMPARE(h.number, 0x1b4u);
    QCOMPARE(h.hash.toHex(), QString(kHash));
    QVERIFY(h.parentHash.isZero());
    QCOMPARE(h.timestamp, 100000000u);
    QVERIFY(h.logsBloom.isZero());
    QCOMPARE(h.receiptsRoot.toHex(),
             QStringLiteral("0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421"));
}

void TestChainTypes::badBlockHeader_data()
{
    // clang-format off
    QTest::addColumn<QString>("field");
    QTest::addColumn<QJsonValue>("value");
    QTest::newRow("hash null") << "hash" << QJsonValue(QJsonValue::Null);
    QTest::newRow("hash short") << "hash" << QJsonValue("0xabcd");
    QTest::newRow("parentHash missing") << "parentHash" << QJsonValue(QJsonValue::Undefined);
    QTest::newRow("number negative") << "number" << QJsonValue("-0x1");
    QTest::newRow("number json") << "number" << QJsonValue(12);
    QTest::newRow("timestamp overflow") << "timestamp" << QJsonValue("0xffffffffffffffffff");
    QTest::newRow("logsBloom missing") << "logsBloom" << QJsonValue(QJsonValue::Undefined);
    QTest::newRow("logsBloom short") << "logsBloom" << QJsonValue("0x" + QString(510, '0'));
    QTest::newRow("receiptsRoot missing") << "receiptsRoot" << QJsonValue(QJsonValue::Undefined);
    // clang-format on
}

void TestChainTypes::badBlockHeader()
{
    QFETCH(QString, field);
    QFETCH(QJsonValue, value);
    QJsonObject o = goodBlock();
    if (value.isUndefined())
        o.remove(field);
    else
        o.insert(field, value);
    try {
        BlockHeader::fromJson(o, "block 0x1b4");
        QFAIL("accepted a bad header");
    } catch (const ChainParseError& e) {
        QCOMPARE(e.field(), "block 0x1b4." + field);
    }
    QVERIFY_THROWS_EXCEPTION(ChainParseError, BlockHeader::fromJson(QJsonValue::Null, "block"));
}

void TestChainTypes::logEntry()
{
    const LogEntry e = LogEntry::fromJson(goodLog(), "log");
    QCOMPARE(e.address.toHex(), QStringLiteral("0x5fbdb2315678afecb367f032d93f642f64180aa3"));
    QCOMPARE(e.topics.size(), 1);
    QCOMPARE(e.topics[0], eventTopic("Transfer(address,address,uint256)"));
    QCOMPARE(e.data, QByteArray("\x00\xff", 2));
    QCOMPARE(e.blockNumber, 2u);
    QCOMPARE(e.logIndex, 1u);
    QVERIFY(!e.removed);
}

void TestChainTypes::badLogEntry_data()
{
    // clang-format off
    QTest::addColumn<QString>("field");
    QTest::addColumn<QJsonValue>("value");
    QTest::addColumn<QString>("namedField");
    QTest::newRow("pending log: null block number")
        << "blockNumber" << QJsonValue(QJsonValue::Null) << "log.blockNumber";
    QTest::newRow("five topics") << "topics"
                                 << QJsonValue(QJsonArray{kHash, kHash, kHash, kHash, kHash})
                                 << "log.topics";
    QTest::newRow("short topic") << "topics" << QJsonValue(QJsonArray{kHash, "0x12"})
                                 << "log.topics[1]";
    QTest::newRow("odd data") << "data" << QJsonValue("0x123") << "log.data";
    QTest::newRow("address 32 bytes") << "address" << QJsonValue(kHash) << "log.address";
    QTest::newRow("removed string") << "removed" << QJsonValue("no") << "log.removed";
    // clang-format on
}

void TestChainTypes::badLogEntry()
{
    QFETCH(QString, field);
    QFETCH(QJsonValue, value);
    QFETCH(QString, namedField);
    QJsonObject o = goodLog();
    o.insert(field, value);
    try {
        LogEntry::fromJson(o, "log");
        QFAIL("accepted a bad log");
    } catch (const ChainParseError& e) {
        QCOMPARE(e.field(), namedField);
    }
}

void TestChainTypes::keccak_data()
{
    // clang-format off
    QTest::addColumn<QByteArray>("input");
    QTest::addColumn<QString>("digest");
    QTest::newRow("empty string")
        << QByteArray() << "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470";
    QTest::newRow("ERC-20 Transfer topic")
        << QByteArray("Transfer(address,address,uint256)")
        << "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
    QTest::newRow("ERC-20 Approval topic")
        << QByteArray("Approval(address,address,uint256)")
        << "0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925";
    // clang-format on
}

void TestChainTypes::keccak()
{
    QFETCH(QByteArray, input);
    QFETCH(QString, digest);
    QCOMPARE(keccak256(input).toHex(), digest);
}

void TestChainTypes::hugeValueIsShortenedInMessage()
{
    const QString huge = "0x" + QString(100000, 'a');
    try {
        Hash32::fromHex(huge, "hash");
        QFAIL("accepted");
    } catch (const ChainParseError& e) {
        QVERIFY(e.message().size() < 400);
        QVERIFY2(e.message().contains(" chars)"), qPrintable(e.message()));
    }
}

void TestChainTypes::bloomBitsCache()
{
    // A block of 40 Transfers of two tokens from one sender to 40 holders, its bloom, and 40
    // logs that differ only in a holder the block never names.
    const auto topic = [](const QByteArray& seed) { return keccak256(seed); };
    const auto address = [](const QByteArray& seed) {
        return Address::fromBytes(keccak256(seed).toByteArray().right(20),
                                  QStringLiteral("address"));
    };
    QList<LogEntry> block, strangers;
    for (int i = 0; i < 40; ++i) {
        LogEntry l;
        l.address = address("token" + QByteArray::number(i % 2));
        l.topics = {topic("Transfer"), topic("sender"), topic("holder" + QByteArray::number(i))};
        block << l;
        l.topics[2] = topic("stranger" + QByteArray::number(i));
        strangers << l;
    }
    const LogsBloom bloom = bloom::of(block);
    const auto hashedAnew = [&](const LogEntry& l) {
        bool in = bloom::mayContain(bloom, l.address.toByteArray());
        for (const auto& t : l.topics)
            in = in && bloom::mayContain(bloom, t.toByteArray());
        return in;
    };
    const auto sameBits = [](const bloom::Bits& a, const bloom::Bits& b) {
        return a.byte == b.byte && a.mask == b.mask;
    };
    // Room for 16 of the 84 distinct items: forgotten and filled again several times a pass.
    BloomBitsCache cache(16);
    for (int pass = 0; pass < 2; ++pass) {
        int rejected = 0;
        for (int i = 0; i < block.size(); ++i) {
            QVERIFY(cache.mayContain(bloom, block[i]));
            QCOMPARE(cache.mayContain(bloom, strangers[i]), hashedAnew(strangers[i]));
            rejected += hashedAnew(strangers[i]) ? 0 : 1;
            QVERIFY(cache.size() <= 16);
        }
        QVERIFY2(rejected >= 35, qPrintable(QString::number(rejected))); // few false positives
        for (const auto& l : block) {
            QVERIFY(sameBits(cache.bitsOf(l.address), bloom::bitsOf(l.address.toByteArray())));
            for (const auto& t : l.topics)
                QVERIFY(sameBits(cache.bitsOf(t), bloom::bitsOf(t.toByteArray())));
        }
    }
}

QTEST_GUILESS_MAIN(TestChainTypes)
#include "tst_chaintypes.moc"
