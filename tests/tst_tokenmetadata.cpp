// Token amounts as people read them: an ERC-20's decimals() and symbol(), decoded strictly
// from what a node answers, and amounts scaled by them for display (raw units stay the
// stored, copied and exported value).
#include "chain/TokenAmount.h"
#include "lab/DemoToken.h"
#include "lab/Devnet.h"
#include "rpc/EthClient.h"
#include "rpc/TokenMetadataReader.h"

#include <QtTest>

using namespace forkscope;
using chain::TokenInfo;
using rpc::TokenMetadataReader;

namespace {
QByteArray word(quint64 v)
{
    QByteArray w(32, '\0');
    for (int i = 0; i < 8; ++i)
        w[31 - i] = char((v >> (8 * i)) & 0xff);
    return w;
}
// An ABI-encoded `string` return value.
QByteArray abiString(const QByteArray& text)
{
    QByteArray body = text;
    body.append(QByteArray((32 - text.size() % 32) % 32, '\0'));
    return word(32) + word(quint64(text.size())) + body;
}
} // namespace

class TestTokenMetadata : public QObject
{
    Q_OBJECT
private slots:
    void formatUnits_data();
    void formatUnits();
    void decimals_data();
    void decimals();
    void symbol_data();
    void symbol();
    void readsTheDemoTokenFromANode();
};

void TestTokenMetadata::formatUnits_data()
{
    QTest::addColumn<QString>("raw");
    QTest::addColumn<int>("decimals");
    QTest::addColumn<QString>("shown");
    // clang-format off
    QTest::newRow("18 decimals") << "1234500000000000000000" << 18 << "1,234.5";
    QTest::newRow("one wei") << "1" << 18 << "0.000000000000000001";
    QTest::newRow("zero") << "0" << 18 << "0";
    QTest::newRow("no decimals") << "1234567" << 0 << "1,234,567";
    QTest::newRow("whole units") << "5000000" << 6 << "5";
    QTest::newRow("negative") << "-2500" << 3 << "-2.5";
    QTest::newRow("leading zeros") << "000100" << 2 << "1";
    QTest::newRow("u256 max")
        << "115792089237316195423570985008687907853269984665640564039457584007913129639935" << 18
        << "115,792,089,237,316,195,423,570,985,008,687,907,853,269,984,665,640,564,039,457.584007913129639935";
    QTest::newRow("77 decimals") << "5" << 77 << "0." + QString(76, '0') + "5";
    QTest::newRow("not a number stays") << "0xabc" << 18 << "0xabc";
    QTest::newRow("empty stays") << "" << 18 << "";
    QTest::newRow("bad decimals stays") << "100" << 78 << "100";
    // clang-format on
}

void TestTokenMetadata::formatUnits()
{
    QFETCH(QString, raw);
    QFETCH(int, decimals);
    QFETCH(QString, shown);
    QCOMPARE(chain::formatUnits(raw, decimals), shown);
}

void TestTokenMetadata::decimals_data()
{
    QTest::addColumn<QByteArray>("reply");
    QTest::addColumn<int>("expected"); // -1: rejected
    QTest::newRow("18") << word(18) << 18;
    QTest::newRow("0") << word(0) << 0;
    QTest::newRow("77") << word(77) << 77;
    QTest::newRow("78: more digits than a u256") << word(78) << -1;
    QTest::newRow("huge") << QByteArray(32, '\xff') << -1;
    QTest::newRow("empty (no code)") << QByteArray() << -1;
    QTest::newRow("short") << QByteArray(31, '\0') << -1;
    QTest::newRow("two words") << word(18) + word(0) << -1;
}

void TestTokenMetadata::decimals()
{
    QFETCH(QByteArray, reply);
    QFETCH(int, expected);
    const std::optional<int> got = TokenMetadataReader::decodeDecimals(reply);
    QCOMPARE(got.value_or(-1), expected);
}

void TestTokenMetadata::symbol_data()
{
    QTest::addColumn<QByteArray>("reply");
    QTest::addColumn<QString>("expected"); // null: rejected
    QByteArray mkr("MKR");
    mkr.append(QByteArray(29, '\0'));
    QByteArray holed("MK");
    holed.append('\0').append('R').append(QByteArray(28, '\0'));
    QByteArray lying = abiString("DEMO");
    lying.replace(32, 32, word(1000)); // claims 1000 bytes, has 32
    QTest::newRow("abi string") << abiString("DEMO") << "DEMO";
    QTest::newRow("utf-8") << abiString("\xce\xbc"
                                        "DAI")
                           << QString::fromUtf8("\xce\xbc"
                                                "DAI");
    QTest::newRow("bytes32 (MKR)") << mkr << "MKR";
    QTest::newRow("bytes32 with a hole") << holed << QString();
    QTest::newRow("empty string") << abiString("") << QString();
    QTest::newRow("33 characters") << abiString(QByteArray(33, 'A')) << QString();
    QTest::newRow("control character") << abiString("DE\nMO") << QString();
    QTest::newRow("invalid utf-8") << abiString("\xff\xfe") << QString();
    QTest::newRow("length past the end") << lying << QString();
    QTest::newRow("odd offset") << word(33) + word(4) + QByteArray(32, 'A') << QString();
    QTest::newRow("empty reply") << QByteArray() << QString();
}

void TestTokenMetadata::symbol()
{
    QFETCH(QByteArray, reply);
    QFETCH(QString, expected);
    const std::optional<QString> got = TokenMetadataReader::decodeSymbol(reply);
    if (expected.isNull())
        QVERIFY2(!got, qPrintable(got.value_or(QString())));
    else
        QCOMPARE(got.value_or(QString()), expected);
}

void TestTokenMetadata::readsTheDemoTokenFromANode()
{
    lab::Devnet devnet;
    devnet.start();
    rpc::JsonRpcClient client(devnet.url());
    rpc::EthClient eth(client);
    const chain::Address sender = lab::DemoToken::defaultSender(client);
    const lab::DemoToken token = lab::DemoToken::deploy(client, sender, "Test Token", "TTK",
                                                        chain::U256("1000000000000000000000"));
    QString why;
    const auto info = TokenMetadataReader::read(eth, token.address(), &why);
    QVERIFY2(info, qPrintable(why));
    QCOMPARE(*info, (TokenInfo{18, "TTK"}));
    QVERIFY(why.isEmpty());
    QCOMPARE(chain::formatTokenAmount("1500000000000000000", *info), QStringLiteral("1.5 TTK"));
    // An account without code answers "0x": no metadata, and the reason names the call.
    why.clear();
    QVERIFY(!TokenMetadataReader::read(eth, sender, &why));
    QVERIFY2(why.contains(sender.toHex()) && why.contains("decimals()") &&
                 why.contains("raw units"),
             qPrintable(why));
    // A node that is gone is not "no metadata": it throws, and the caller asks later.
    devnet.stop();
    client.setTimeout(std::chrono::milliseconds(1000));
    QVERIFY_THROWS_EXCEPTION(rpc::RpcException, TokenMetadataReader::read(eth, token.address()));
}

QTEST_GUILESS_MAIN(TestTokenMetadata)
#include "tst_tokenmetadata.moc"
