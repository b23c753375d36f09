// The receipts proof against a real anvil: receiptsRoot and block hash recomputed for empty
// blocks and for every transaction type anvil sends (legacy, EIP-2930, EIP-1559, EIP-7702),
// several to a block and past 128 receipts; tampered receipts caught and named; and what
// proving one block costs. The pure parts are in tst_proof_units.
#include "IndexerLab.h"
#include "chain/Hex.h"
#include "chain/Keccak.h"
#include "chain/LogsBloom.h"
#include "lab/DemoToken.h"
#include "proof/HeaderHash.h"
#include "proof/LogDiff.h"
#include "proof/OrderedTrie.h"
#include "proof/Receipt.h"
#include "proof/ReceiptsProof.h"
#include "rpc/EthClient.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>
#include <memory>

using namespace forkscope;
using chain::Hash32;
using Failure = proof::ReceiptsVerdict::Failure;

namespace {
const QString kZeroHash = QStringLiteral("0x") + QString(64, QLatin1Char('0'));

// How a test lies about a block's receipts.
enum class Tamper {
    DropLastLog,
    DropLastLogFixBloom,
    DropMiddleLog,
    DropMiddleLogRenumber,
    DuplicateLastLog,
    LogOfAnotherTx,
    ChangeData,
    ChangeTopic,
    DropLastReceipt,
    SwapReceipts,
    OtherBlock,
    FlipStatus,
    ChangeGas,
    ChangeType,
    NotAnArray,
    BadField,
};
} // namespace

Q_DECLARE_METATYPE(Tamper)
Q_DECLARE_METATYPE(Failure)

class TestProof : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void anvilBlocks_data();
    void anvilBlocks();
    void unknownBlock();
    void tamperedReceipts_data();
    void tamperedReceipts();
    void providerDiffAgainstProof();
    void costOfOneBlock();

private:
    Hash32 minedIn(const QString& txHash);
    QJsonObject send(QJsonObject tx);

    std::unique_ptr<test::IndexerLab> m_lab;
    lab::DemoToken* m_token = nullptr;
    QStringList m_accounts;
    QMap<QString, Hash32> m_blocks;
};

// ---- Against anvil -----------------------------------------------------------------------

Hash32 TestProof::minedIn(const QString& txHash)
{
    const QJsonObject receipt =
        m_lab->rpc().callBlocking("eth_getTransactionReceipt", {txHash}).toObject();
    return Hash32::fromJson(receipt["blockHash"], "blockHash");
}

QJsonObject TestProof::send(QJsonObject tx)
{
    if (!tx.contains("gas"))
        tx["gas"] = "0x186a0"; // 100k: explicit, so a reverting call is mined, not refused
    return QJsonObject{{"hash", m_lab->rpc().callBlocking("eth_sendTransaction", {tx}).toString()}};
}

void TestProof::initTestCase()
{
    m_lab = std::make_unique<test::IndexerLab>();
    auto& rpc = m_lab->rpc();
    m_token = &m_lab->deployToken("PRF");
    for (const QJsonValue& a : rpc.callBlocking("eth_accounts").toArray())
        m_accounts << a.toString();
    const QString sender = m_token->sender().toHex();
    const QString token = m_token->address().toHex();
    const auto transfer = [&](int i) {
        return chain::hex::encodeData(
            lab::DemoToken::transferCalldata(lab::DemoToken::sprayHolder(quint64(i)), 1000 + i));
    };
    const QJsonObject call{{"from", sender}, {"to", token}};
    const auto with = [](QJsonObject o, const QJsonObject& more) {
        for (auto it = more.begin(); it != more.end(); ++it)
            o.insert(it.key(), it.value());
        return o;
    };
    // A 7702 authorisation whose signature recovers to no one: EIP-7702 skips an invalid
    // tuple and still executes the transaction, so anvil's unlocked account can send a type-4
    // transaction without a signing key for the authority.
    const QJsonArray authorizations{QJsonObject{{"chainId", "0x7a69"},
                                                {"address", m_accounts[1]},
                                                {"nonce", "0x0"},
                                                {"yParity", "0x0"},
                                                {"r", "0x" + QString(64, '1')},
                                                {"s", "0x" + QString(64, '2')}}};
    const QJsonObject legacy{{"type", "0x0"}, {"gasPrice", "0x77359400"}};
    const QJsonObject accessList{
        {"type", "0x1"},
        {"gasPrice", "0x77359400"},
        {"accessList",
         QJsonArray{QJsonObject{{"address", token}, {"storageKeys", QJsonArray{kZeroHash}}}}}};
    const QJsonObject dynamicFee{{"type", "0x2"}};
    const QJsonObject setCode{{"type", "0x4"}, {"authorizationList", authorizations}};

    const auto latest = [&] {
        return Hash32::fromJson(
            rpc.callBlocking("eth_getBlockByNumber", {"latest", false}).toObject()["hash"], "hash");
    };
    m_blocks["genesis"] = Hash32::fromJson(
        rpc.callBlocking("eth_getBlockByNumber", {"0x0", false}).toObject()["hash"], "hash");
    rpc.callBlocking("evm_mine");
    m_blocks["empty"] = latest();

    // One transaction a block (automine), each emitting a Transfer.
    const auto mineOne = [&](const QJsonObject& tx) {
        return minedIn(lab::DemoToken::sendAndWait(rpc, with(tx, {{"gas", "0x186a0"}})).toHex());
    };
    m_blocks["legacy"] = mineOne(with(with(call, legacy), {{"data", transfer(0)}}));
    m_blocks["eip2930"] = mineOne(with(with(call, accessList), {{"data", transfer(1)}}));
    m_blocks["eip1559"] = mineOne(with(with(call, dynamicFee), {{"data", transfer(2)}}));
    m_blocks["eip7702"] = mineOne(with(with(call, setCode), {{"data", transfer(3)}}));

    // Several in one block: every type, a reverted one (status 0) and a plain payment.
    const auto nonceOf = [&](const QString& account) {
        return chain::hex::parseQuantityU63(
            rpc.callBlocking("eth_getTransactionCount", {account, "pending"}), "nonce");
    };
    const auto oneBlock = [&](const QList<QJsonObject>& txs) {
        rpc.callBlocking("evm_setAutomine", {false});
        QStringList hashes;
        for (const QJsonObject& tx : txs)
            hashes << send(tx)["hash"].toString();
        rpc.callBlocking("evm_mine");
        rpc.callBlocking("evm_setAutomine", {true});
        const Hash32 block = minedIn(hashes.first());
        for (const QString& h : hashes)
            if (minedIn(h) != block)
                qFatal("transaction %s was mined in another block", qPrintable(h));
        return block;
    };
    {
        std::uint64_t n = nonceOf(sender);
        const auto nonce = [&] { return chain::hex::encodeQuantity(n++); };
        m_blocks["mixed"] = oneBlock({
            with(with(call, legacy), {{"data", transfer(4)}, {"nonce", nonce()}}),
            with(with(call, accessList), {{"data", transfer(5)}, {"nonce", nonce()}}),
            with(with(call, dynamicFee), {{"data", transfer(6)}, {"nonce", nonce()}}),
            with(with(call, setCode), {{"data", transfer(7)}, {"nonce", nonce()}}),
            // accounts[1] holds no tokens: the transfer reverts.
            QJsonObject{{"from", m_accounts[1]}, {"to", token}, {"data", transfer(8)}},
            QJsonObject{{"from", m_accounts[2]}, {"to", m_accounts[3]}, {"value", "0x1"}},
        });
    }
    {
        std::uint64_t n = nonceOf(sender);
        QList<QJsonObject> txs;
        for (int i = 0; i < 50; ++i)
            txs << with(call,
                        {{"data", transfer(100 + i)}, {"nonce", chain::hex::encodeQuantity(n++)}});
        m_blocks["transfers50"] = oneBlock(txs);
    }
    {
        // 130 receipts: trie keys rlp(0..127) are one byte, rlp(128..) two.
        std::uint64_t n = nonceOf(m_accounts[4]);
        QList<QJsonObject> txs;
        for (int i = 0; i < 130; ++i)
            txs << QJsonObject{{"from", m_accounts[4]},
                               {"to", m_accounts[5]},
                               {"value", "0x1"},
                               {"gas", "0x5208"},
                               {"nonce", chain::hex::encodeQuantity(n++)}};
        m_blocks["payments130"] = oneBlock(txs);
    }
}

void TestProof::cleanupTestCase()
{
    m_lab.reset();
}

void TestProof::anvilBlocks_data()
{
    QTest::addColumn<QString>("block");
    QTest::addColumn<int>("receipts");
    QTest::addColumn<int>("logs");
    QTest::addColumn<QStringList>("types");
    QTest::newRow("genesis") << "genesis" << 0 << 0 << QStringList{};
    QTest::newRow("empty") << "empty" << 0 << 0 << QStringList{};
    QTest::newRow("legacy") << "legacy" << 1 << 1 << QStringList{"0x0"};
    QTest::newRow("EIP-2930 (access list)") << "eip2930" << 1 << 1 << QStringList{"0x1"};
    QTest::newRow("EIP-1559") << "eip1559" << 1 << 1 << QStringList{"0x2"};
    QTest::newRow("EIP-7702") << "eip7702" << 1 << 1 << QStringList{"0x4"};
    QTest::newRow("mixed, one reverted")
        << "mixed" << 6 << 4 << QStringList{"0x0", "0x1", "0x2", "0x4"};
    QTest::newRow("50 Transfers") << "transfers50" << 50 << 50 << QStringList{"0x2"};
    QTest::newRow("130 payments") << "payments130" << 130 << 0 << QStringList{"0x2"};
}

void TestProof::anvilBlocks()
{
    QFETCH(QString, block);
    QFETCH(int, receipts);
    QFETCH(int, logs);
    QFETCH(QStringList, types);
    auto& eth = m_lab->eth();
    const Hash32 hash = m_blocks.value(block);

    const std::optional<QJsonObject> header = eth.blockJsonByHash(hash);
    QVERIFY(header);
    const proof::HeaderHashCheck h = proof::verifyHeaderHash(*header, block);
    QVERIFY2(h.ok, qPrintable(h.problem));
    QCOMPARE(h.header.hash, hash);
    QVERIFY(std::optional<chain::BlockHeader>(h.header) == eth.blockByHash(hash));

    const std::optional<QJsonArray> reply = eth.blockReceipts(hash);
    QVERIFY(reply);
    const proof::ReceiptsVerdict v = proof::verifyReceipts(h.header, *reply);
    QVERIFY2(v.ok, qPrintable(v.problem));
    QCOMPARE(int(v.failure), int(Failure::None));
    QVERIFY(v.problem.isEmpty());
    QCOMPARE(v.receipts, qsizetype(receipts));
    QCOMPARE(v.logs.size(), qsizetype(logs));
    if (receipts == 0)
        QCOMPARE(h.header.receiptsRoot, proof::trie::emptyRoot());

    QStringList seen;
    bool failed = false;
    for (const QJsonValue& r : *reply) {
        seen << r["type"].toString();
        failed |= r["status"].toString() == "0x0";
    }
    seen.removeDuplicates();
    seen.sort();
    QCOMPARE(seen, types);
    QCOMPARE(failed, block == "mixed");

    // The proven logs are what eth_getLogs gives for the block, logIndex for logIndex.
    rpc::LogFilter all;
    all.blockHash = hash;
    const QList<chain::LogEntry> got = eth.getLogs(all);
    const proof::LogDiff d = proof::diffLogs(v.logs, got);
    QVERIFY2(d.isEmpty(), qPrintable(d.describe()));
    QCOMPARE(proof::selectLogs(v.logs, {m_token->address()}, {}).size(), qsizetype(logs));
}

void TestProof::unknownBlock()
{
    const Hash32 nowhere = chain::keccak256("no such block");
    QVERIFY(!m_lab->eth().blockReceipts(nowhere));
    QVERIFY(!m_lab->eth().blockJsonByHash(nowhere));
}

void TestProof::tamperedReceipts_data()
{
    QTest::addColumn<QString>("block");
    QTest::addColumn<Tamper>("tamper");
    QTest::addColumn<Failure>("failure");
    QTest::addColumn<QString>("mentions");
    const QString t50 = "transfers50";
    QTest::newRow("last log dropped")
        << t50 << Tamper::DropLastLog << Failure::ReceiptBloom << "receipt 49 (transaction 0x";
    QTest::newRow("last log dropped, receipt bloom recomputed")
        << t50 << Tamper::DropLastLogFixBloom << Failure::BlockBloom
        << "do not make the header's logsBloom";
    QTest::newRow("middle log dropped, receipt bloom recomputed")
        << t50 << Tamper::DropMiddleLog << Failure::Misnumbered
        << "receipt 11 log 0 says logIndex 11, its place in the block is 10";
    QTest::newRow("middle log dropped, renumbered, bloom recomputed")
        << t50 << Tamper::DropMiddleLogRenumber << Failure::BlockBloom << "(49 logs)";
    QTest::newRow("log added (a copy: same bloom)")
        << t50 << Tamper::DuplicateLastLog << Failure::ReceiptsRoot
        << "the trie of its 50 receipts (51 logs) has root";
    QTest::newRow("log of another transaction")
        << t50 << Tamper::LogOfAnotherTx << Failure::Misnumbered
        << "receipt 5 log 0 names transaction 0x";
    QTest::newRow("log data changed")
        << t50 << Tamper::ChangeData << Failure::ReceiptsRoot << "the header's receiptsRoot is";
    QTest::newRow("log topic changed")
        << t50 << Tamper::ChangeTopic << Failure::ReceiptBloom << "receipt 7";
    QTest::newRow("receipt dropped")
        << t50 << Tamper::DropLastReceipt << Failure::BlockBloom << "its 49 receipts";
    QTest::newRow("receipts swapped") << t50 << Tamper::SwapReceipts << Failure::Misnumbered
                                      << "receipt 0 says transactionIndex 1";
    QTest::newRow("receipt of another block")
        << t50 << Tamper::OtherBlock << Failure::WrongBlock << "receipt 3 belongs to block";
    QTest::newRow("status flipped")
        << "mixed" << Tamper::FlipStatus << Failure::ReceiptsRoot << "receiptsRoot";
    QTest::newRow("cumulativeGasUsed changed")
        << "mixed" << Tamper::ChangeGas << Failure::ReceiptsRoot << "receiptsRoot";
    QTest::newRow("type changed") << "mixed" << Tamper::ChangeType << Failure::ReceiptsRoot
                                  << "receiptsRoot";
    QTest::newRow("not an array") << "mixed" << Tamper::NotAnArray << Failure::Malformed
                                  << "expected an array of receipts, got a JSON object";
    QTest::newRow("bad field") << t50 << Tamper::BadField << Failure::Malformed
                               << "\"eth_getBlockReceipts[0].logs[0].data\"";
}

void TestProof::tamperedReceipts()
{
    QFETCH(QString, block);
    QFETCH(Tamper, tamper);
    QFETCH(Failure, failure);
    QFETCH(QString, mentions);
    auto& eth = m_lab->eth();
    const Hash32 hash = m_blocks.value(block);
    const chain::BlockHeader header = *eth.blockByHash(hash);
    QJsonArray receipts = *eth.blockReceipts(hash);
    QVERIFY(proof::verifyReceipts(header, receipts).ok);

    const auto edit = [&](qsizetype i, const auto& f) {
        QJsonObject r = receipts[i].toObject();
        f(r);
        receipts[i] = r;
    };
    const auto editLogs = [&](qsizetype i, const auto& f) {
        edit(i, [&](QJsonObject& r) {
            QJsonArray logs = r["logs"].toArray();
            f(logs);
            r["logs"] = logs;
        });
    };
    const auto bloomOf = [](const QJsonArray& logs) {
        QList<chain::LogEntry> entries;
        for (const QJsonValue& l : logs)
            entries << chain::LogEntry::fromJson(l, "log");
        return chain::bloom::of(entries).toHex();
    };
    const auto setLogIndex = [](QJsonValueRef ref, std::uint64_t i) {
        QJsonObject l = ref.toObject();
        l["logIndex"] = chain::hex::encodeQuantity(i);
        ref = l;
    };
    const qsizetype last = receipts.size() - 1;
    const auto field = [&](qsizetype i, const char* key) {
        return receipts.at(i).toObject().value(QLatin1String(key));
    };
    switch (tamper) {
    case Tamper::DropLastLog:
        editLogs(last, [](QJsonArray& logs) { logs.removeLast(); });
        break;
    case Tamper::DropLastLogFixBloom:
        edit(last, [&](QJsonObject& r) {
            QJsonArray logs = r["logs"].toArray();
            logs.removeLast();
            r["logs"] = logs;
            r["logsBloom"] = bloomOf(logs);
        });
        break;
    case Tamper::DropMiddleLog:
        edit(10, [&](QJsonObject& r) {
            r["logs"] = QJsonArray{};
            r["logsBloom"] = bloomOf({});
        });
        break;
    case Tamper::DropMiddleLogRenumber:
        edit(10, [&](QJsonObject& r) {
            r["logs"] = QJsonArray{};
            r["logsBloom"] = bloomOf({});
        });
        for (qsizetype i = 11; i < receipts.size(); ++i)
            editLogs(i, [&](QJsonArray& logs) { setLogIndex(logs[0], std::uint64_t(i - 1)); });
        break;
    case Tamper::DuplicateLastLog:
        editLogs(last, [&](QJsonArray& logs) {
            QJsonObject copy = logs.last().toObject();
            copy["logIndex"] = chain::hex::encodeQuantity(std::uint64_t(last + 1));
            logs.append(copy);
        });
        break;
    case Tamper::LogOfAnotherTx:
        editLogs(5, [](QJsonArray& logs) {
            QJsonObject l = logs[0].toObject();
            l["transactionIndex"] = "0x4";
            logs[0] = l;
        });
        break;
    case Tamper::ChangeData:
        editLogs(7, [](QJsonArray& logs) {
            QJsonObject l = logs[0].toObject();
            QString data = l["data"].toString();
            data[data.size() - 1] = data.endsWith('0') ? '1' : '0';
            l["data"] = data;
            logs[0] = l;
        });
        break;
    case Tamper::ChangeTopic:
        editLogs(7, [](QJsonArray& logs) {
            QJsonObject l = logs[0].toObject();
            QJsonArray topics = l["topics"].toArray();
            topics[2] = chain::keccak256("someone else").toHex();
            l["topics"] = topics;
            logs[0] = l;
        });
        break;
    case Tamper::DropLastReceipt:
        receipts.removeLast();
        break;
    case Tamper::SwapReceipts: {
        const QJsonValue first = receipts[0];
        receipts[0] = receipts[1];
        receipts[1] = first;
        break;
    }
    case Tamper::OtherBlock:
        edit(3, [&](QJsonObject& r) { r["blockHash"] = header.parentHash.toHex(); });
        break;
    case Tamper::FlipStatus:
        for (qsizetype i = 0; i < receipts.size(); ++i)
            if (field(i, "status") == QJsonValue("0x0"))
                edit(i, [](QJsonObject& r) { r["status"] = "0x1"; });
        break;
    case Tamper::ChangeGas:
        edit(last, [](QJsonObject& r) {
            r["cumulativeGasUsed"] = chain::hex::encodeQuantity(
                chain::hex::parseQuantityU63(r["cumulativeGasUsed"], "gas") + 1);
        });
        break;
    case Tamper::ChangeType:
        for (qsizetype i = 0; i < receipts.size(); ++i)
            if (field(i, "type") == QJsonValue("0x2"))
                edit(i, [](QJsonObject& r) { r["type"] = "0x1"; });
        break;
    case Tamper::NotAnArray:
        break;
    case Tamper::BadField:
        editLogs(0, [](QJsonArray& logs) {
            QJsonObject l = logs[0].toObject();
            l["data"] = "0xzz";
            logs[0] = l;
        });
        break;
    }
    const QJsonValue reply = tamper == Tamper::NotAnArray
                                 ? QJsonValue(QJsonObject{{"receipts", receipts}})
                                 : QJsonValue(receipts);

    const proof::ReceiptsVerdict v = proof::verifyReceipts(header, reply);
    QVERIFY(!v.ok);
    QCOMPARE(int(v.failure), int(failure));
    QVERIFY(v.logs.isEmpty());
    QVERIFY2(v.problem.startsWith(QStringLiteral("receipts of block %1 (%2): ")
                                      .arg(header.number)
                                      .arg(header.hash.toHex())),
             qPrintable(v.problem));
    QVERIFY2(v.problem.contains(mentions), qPrintable(v.problem));
    QVERIFY2(!v.problem.contains('\n'), qPrintable(v.problem));
}

void TestProof::providerDiffAgainstProof()
{
    // The caller's comparison: the receipts prove the block's logs; a provider's eth_getLogs
    // answer that dropped one, altered one and invented one is named log by log.
    auto& eth = m_lab->eth();
    const Hash32 hash = m_blocks.value("transfers50");
    const chain::BlockHeader header = *eth.blockByHash(hash);
    const proof::ReceiptsVerdict v = proof::verifyReceipts(header, *eth.blockReceipts(hash));
    QVERIFY2(v.ok, qPrintable(v.problem));

    rpc::LogFilter filter;
    filter.blockHash = hash;
    filter.addresses = {m_token->address()};
    QList<chain::LogEntry> answer = eth.getLogs(filter);
    QCOMPARE(answer.size(), qsizetype(50));
    answer.removeAt(17);
    answer[30].data[31] = char(answer[30].data[31] ^ 1);
    chain::LogEntry invented = answer[5];
    invented.logIndex = 77;
    answer.append(invented);

    const proof::LogDiff d =
        proof::diffLogs(proof::selectLogs(v.logs, filter.addresses, filter.topics), answer);
    QCOMPARE(d.missing.size(), qsizetype(1));
    QCOMPARE(d.missing[0].logIndex, std::uint64_t(17));
    QCOMPARE(d.extra.size(), qsizetype(1));
    QCOMPARE(d.extra[0].logIndex, std::uint64_t(77));
    QCOMPARE(d.altered.size(), qsizetype(1));
    QCOMPARE(d.altered[0].proven.logIndex, answer[30].logIndex);
    QCOMPARE(d.altered[0].fields, QStringList{"data"});
    const QString text = d.describe();
    QVERIFY2(
        text.contains("1 missing (logIndex 17 of " + m_token->address().toHex() + " in tx 17)"),
        qPrintable(text));
    QVERIFY2(text.contains("1 extra (logIndex 77"), qPrintable(text));
    QVERIFY2(
        text.contains(QStringLiteral("1 altered (logIndex %1: data)").arg(answer[30].logIndex)),
        qPrintable(text));
}

void TestProof::costOfOneBlock()
{
    // A figure for the report, not an assertion: what proving one block of 50 Transfer
    // receipts costs once its reply is in hand. Each step is timed alone; on a shared machine
    // the best of several batches is the figure least disturbed by other work.
    auto& eth = m_lab->eth();
    const Hash32 hash = m_blocks.value("transfers50");
    const chain::BlockHeader header = *eth.blockByHash(hash);
    const QJsonArray receipts = *eth.blockReceipts(hash);
    const QByteArray wire = QJsonDocument(receipts).toJson(QJsonDocument::Compact);
    const auto bestMicros = [](const auto& step) {
        constexpr int kBatches = 5;
        constexpr int kRounds = 40;
        qint64 best = std::numeric_limits<qint64>::max();
        for (int b = 0; b < kBatches; ++b) {
            QElapsedTimer t;
            t.start();
            for (int i = 0; i < kRounds; ++i)
                step();
            best = std::min(best, t.nsecsElapsed());
        }
        return double(best) / 1000.0 / kRounds;
    };

    QList<proof::Receipt> parsed;
    QList<QByteArray> encoded;
    bool allOk = true;
    const double json = bestMicros([&] { allOk &= QJsonDocument::fromJson(wire).isArray(); });
    const double parse = bestMicros([&] {
        parsed.clear();
        for (qsizetype j = 0; j < receipts.size(); ++j)
            parsed << proof::Receipt::fromJson(receipts[j], "r");
    });
    const double encode = bestMicros([&] {
        encoded.clear();
        for (const proof::Receipt& r : parsed)
            encoded << r.consensusEncoding();
    });
    const double trie =
        bestMicros([&] { allOk &= proof::trie::orderedRoot(encoded) == header.receiptsRoot; });
    const double total = bestMicros([&] { allOk &= proof::verifyReceipts(header, receipts).ok; });
    QVERIFY(allOk);
    qInfo("receipts proof of one block of 50 Transfer receipts (%lld bytes of JSON): %.0f us "
          "(alone: parse %.0f, encode %.0f, trie %.0f); the RPC client's JSON parse of the reply "
          "adds %.0f us",
          qlonglong(wire.size()), total, parse, encode, trie, json);
}

QTEST_GUILESS_MAIN(TestProof)
#include "tst_proof.moc"
