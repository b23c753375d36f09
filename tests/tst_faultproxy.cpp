// The lab fault proxy: every knob observable from a plain JSON-RPC client against a real
// anvil behind it, and the knobs' own HTTP endpoint.
#include "IndexerLab.h"
#include "lab/FaultProxy.h"
#include "lab/KnobDescription.h"
#include "wire/ProviderLimit.h"

#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QtTest>

using namespace forkscope;
using rpc::RpcError;

class TestFaultProxy : public QObject
{
    Q_OBJECT
private slots:
    void knobChangesInWords_data();
    void knobChangesInWords();
    void onlyWhatChangedIsNews_data();
    void onlyWhatChangedIsNews();
    void initTestCase();
    void init();
    void passesThrough();
    void latency();
    void errorRate();
    void lag();
    void aBalancerAlternatesItsNodes();
    void offline();
    void silentLogCap();
    void announcedLogCap();
    void knobsOverHttp();

private:
    QJsonObject admin(const QByteArray& method, const QByteArray& body = {}, int* status = nullptr);
    std::unique_ptr<test::IndexerLab> m_lab;
    std::unique_ptr<lab::FaultProxy> m_proxy;
    std::unique_ptr<rpc::JsonRpcClient> m_client;
};

void TestFaultProxy::initTestCase()
{
    m_lab = std::make_unique<test::IndexerLab>();
    m_lab->deployToken("AAA");
    m_lab->sprayAll(4, 10, 10); // 40 transfers in 4 blocks (+1 mint)
}

void TestFaultProxy::init()
{
    m_client.reset();
    m_proxy = std::make_unique<lab::FaultProxy>(m_lab->devnet().url());
    m_proxy->listen();
    m_proxy->setSeed(7);
    m_client = std::make_unique<rpc::JsonRpcClient>(m_proxy->url());
    m_client->setTimeout(std::chrono::milliseconds(3000));
}

QJsonObject TestFaultProxy::admin(const QByteArray& method, const QByteArray& body, int* status)
{
    QNetworkAccessManager nam;
    QNetworkRequest req(QUrl(m_proxy->url().toString() + "/_forkscope/proxy"));
    req.setHeader(QNetworkRequest::ContentTypeHeader, "application/json");
    QNetworkReply* r = method == "POST" ? nam.post(req, body) : nam.get(req);
    QSignalSpy done(r, &QNetworkReply::finished);
    done.wait(5000);
    if (status)
        *status = r->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    const QJsonObject o = QJsonDocument::fromJson(r->readAll()).object();
    r->deleteLater();
    return o;
}

void TestFaultProxy::passesThrough()
{
    rpc::EthClient eth(*m_client);
    QCOMPARE(eth.chainId(), 31337u);
    QCOMPARE(eth.blockNumber(), m_lab->eth().blockNumber());
    const auto replies = m_client->batchBlocking({{"eth_chainId", {}}, {"eth_blockNumber", {}}});
    QVERIFY(replies[0].ok() && replies[1].ok());
}

void TestFaultProxy::latency()
{
    m_proxy->setLatencyMs(300);
    QElapsedTimer t;
    t.start();
    QCOMPARE(rpc::EthClient(*m_client).chainId(), 31337u);
    QVERIFY(t.elapsed() >= 290); // a lower bound: the reply cannot arrive before the delay
}

void TestFaultProxy::errorRate()
{
    m_proxy->setErrorRate(1.0);
    QList<RpcError::Kind> kinds;
    for (int i = 0; i < 2; ++i) {
        try {
            m_client->callBlocking("eth_chainId");
            QFAIL("no injected error");
        } catch (const rpc::RpcException& e) {
            kinds << e.error().kind;
        }
    }
    QVERIFY(kinds.contains(RpcError::Kind::Http));   // HTTP 503
    QVERIFY(kinds.contains(RpcError::Kind::Remote)); // JSON-RPC -32603
    QCOMPARE(m_proxy->injectedErrors(), 2);
    m_proxy->setErrorRate(0.0);
    QCOMPARE(rpc::EthClient(*m_client).chainId(), 31337u);
}

void TestFaultProxy::lag()
{
    const auto head = m_lab->eth().blockNumber();
    m_proxy->setLagBlocks(3);
    rpc::EthClient eth(*m_client);
    QCOMPARE(eth.blockNumber(), head - 3);
    QVERIFY(!eth.blockByNumber(head).has_value()); // "not reached yet"
    QVERIFY(eth.blockByNumber(head - 3).has_value());
    const auto batch = eth.blocksByNumber(head - 4, head);
    QVERIFY(batch[0] && batch[1] && !batch[4]);
}

void TestFaultProxy::aBalancerAlternatesItsNodes()
{
    // A replica 3 blocks behind beside the node: a round-robin balancer sends one request to
    // each in turn, so a client sees the head go back and forth.
    lab::FaultProxy replica(m_lab->devnet().url());
    replica.listen();
    replica.setLagBlocks(3);
    QCOMPARE(m_proxy->applyKnobs({{"balanceWith", "ftp://127.0.0.1:1"}}),
             QStringLiteral("balanceWith must be an http URL, or empty"));
    QCOMPARE(m_proxy->applyKnobs({{"balanceWith", replica.url().toString()}}), QString());
    const auto head = m_lab->eth().blockNumber();
    rpc::EthClient eth(*m_client);
    QList<quint64> seen;
    for (int i = 0; i < 4; ++i)
        seen << eth.blockNumber();
    QCOMPARE(seen, (QList<quint64>{head, head - 3, head, head - 3}));
    QCOMPARE(m_proxy->applyKnobs({{"balanceWith", ""}}), QString());
    QCOMPARE(eth.blockNumber(), head);
    QCOMPARE(eth.blockNumber(), head);
}

void TestFaultProxy::offline()
{
    m_proxy->setOffline(true);
    try {
        m_client->callBlocking("eth_chainId");
        QFAIL("answered while offline");
    } catch (const rpc::RpcException& e) {
        QCOMPARE(e.error().kind, RpcError::Kind::Transport);
    }
    QCOMPARE(admin("GET").value("offline").toBool(), true); // the knobs still answer
    admin("POST", R"({"offline": false})");
    QCOMPARE(rpc::EthClient(*m_client).chainId(), 31337u);
}

void TestFaultProxy::silentLogCap()
{
    rpc::LogFilter f;
    f.fromBlock = 0;
    f.toBlock = m_lab->eth().blockNumber();
    f.addresses = m_lab->contracts();
    QCOMPARE(m_lab->eth().getLogs(f).size(), 41);
    m_proxy->setLogCap(7, lab::FaultProxy::CapMode::Silent);
    rpc::EthClient eth(*m_client);
    QCOMPARE(eth.getLogs(f).size(), 7); // cut without a word
    QCOMPARE(m_proxy->cappedReplies(), 1);
}

void TestFaultProxy::announcedLogCap()
{
    m_proxy->setLogCap(7, lab::FaultProxy::CapMode::Announced);
    rpc::EthClient eth(*m_client);
    rpc::LogFilter f;
    f.fromBlock = 0;
    f.toBlock = m_lab->eth().blockNumber();
    f.addresses = m_lab->contracts();
    for (int wording = 0; wording < 3; ++wording) {
        try {
            eth.getLogs(f);
            QFAIL("no announced limit");
        } catch (const rpc::RpcException& e) {
            QCOMPARE(e.error().kind, RpcError::Kind::Remote);
            QVERIFY2(wire::parseProviderLimit(e.error().message).has_value(),
                     qPrintable(e.error().message));
        }
    }
}

void TestFaultProxy::knobsOverHttp()
{
    int status = 0;
    const QJsonObject after = admin(
        "POST",
        R"({"lagBlocks": 2, "latencyMs": 5, "errorRate": 0.25, "logCap": 9, "logCapMode": "announced"})",
        &status);
    QCOMPARE(status, 200);
    QCOMPARE(after.value("lagBlocks").toInt(), 2);
    QCOMPARE(after.value("latencyMs").toInt(), 5);
    QCOMPARE(after.value("errorRate").toDouble(), 0.25);
    QCOMPARE(after.value("logCap").toInt(), 9);
    QCOMPARE(after.value("logCapMode").toString(), QStringLiteral("announced"));
    QCOMPARE(m_proxy->lagBlocks(), 2u);
    for (const char* bad : {R"({"errorRate": 1.5})", R"({"lagBlocks": -1})",
                            R"({"logCapMode": "loud"})", R"({"bogus": 1})", "not json"}) {
        const QJsonObject r = admin("POST", bad, &status);
        QCOMPARE(status, 400);
        QVERIFY(!r.value("error").toString().isEmpty());
    }
    QCOMPARE(m_proxy->lagBlocks(), 2u); // a refused change changes nothing
}

QTEST_GUILESS_MAIN(TestFaultProxy)
void TestFaultProxy::knobChangesInWords_data()
{
    QTest::addColumn<QJsonObject>("changes");
    QTest::addColumn<QString>("words");
    // clang-format off
    QTest::newRow("offline") << QJsonObject{{"offline", true}} << "goes offline";
    QTest::newRow("online") << QJsonObject{{"offline", false}} << "comes back online";
    QTest::newRow("latency and errors")
        << QJsonObject{{"latencyMs", 200}, {"errorRate", 0.1}}
        << "delays each reply by 200 ms; fails 10% of requests";
    QTest::newRow("silent cap") << QJsonObject{{"logCap", 50}, {"logCapMode", "silent"}}
                                << "caps eth_getLogs at 50 logs (silently truncated)";
    QTest::newRow("all back to normal")
        << QJsonObject{{"lagBlocks", 0}, {"latencyMs", 0}, {"errorRate", 0}, {"logCap", 0},
                       {"dropLogRate", 0}, {"lie", "none"}}
        << "no longer lags; answers without delay; no longer fails requests; no longer caps "
           "eth_getLogs; no longer drops single logs; tells the truth";
    QTest::newRow("drops") << QJsonObject{{"dropLogRate", 0.25}, {"dropInReceipts", true}}
                           << "drops 25% of logs; drops them from receipts too";
    QTest::newRow("lie") << QJsonObject{{"lie", "wrong-hash"}} << "lies: wrong-hash";
    QTest::newRow("unknown key") << QJsonObject{{"future", 3}} << "future = 3";
    QTest::newRow("nothing") << QJsonObject{} << "no change";
    // clang-format on
}

void TestFaultProxy::knobChangesInWords()
{
    QFETCH(QJsonObject, changes);
    QFETCH(QString, words);
    const QString got = lab::describeKnobChanges(changes);
    QCOMPARE(got, words);
    QVERIFY(!got.contains('{'));
}

void TestFaultProxy::onlyWhatChangedIsNews_data()
{
    QTest::addColumn<QJsonObject>("before"); // the proxy's knobs
    QTest::addColumn<QJsonObject>("sent");   // what the Fault proxy dialog sends: every knob
    QTest::addColumn<QString>("words");
    const QJsonObject normal{{"offline", false},
                             {"lagBlocks", 0},
                             {"latencyMs", 0},
                             {"errorRate", 0.0},
                             {"logCap", 0},
                             {"dropLogs", false},
                             {"logCapMode", "silent"},
                             {"lie", "none"},
                             {"dropLogRate", 0.0},
                             {"dropBlockRate", 0.0},
                             {"dropInReceipts", true},
                             {"noReceipts", false},
                             {"trickleBps", 0},
                             {"padReplyBytes", 0},
                             {"upstream", "http://127.0.0.1:8545"},
                             {"requestsServed", 12}};
    const auto dialog = [](QJsonObject k) {
        QJsonObject sent;
        for (const char* key : {"offline", "latencyMs", "errorRate", "lagBlocks", "logCap",
                                "logCapMode", "dropLogRate", "dropBlockRate", "dropInReceipts"})
            sent.insert(key, k.value(key));
        return sent;
    };
    const auto with = [](QJsonObject k, const char* key, const QJsonValue& v) {
        k.insert(key, v);
        return k;
    };
    // clang-format off
    QTest::newRow("node 2 goes offline: only that")
        << normal << dialog(with(normal, "offline", true)) << "goes offline";
    QTest::newRow("a latency on a node never offline: no \"comes back online\"")
        << normal << dialog(with(normal, "latencyMs", 200)) << "delays each reply by 200 ms";
    QTest::newRow("back online")
        << with(normal, "offline", true) << dialog(normal) << "comes back online";
    QTest::newRow("a cap mode without a cap changes nothing")
        << normal << dialog(with(normal, "logCapMode", "announced")) << "no change";
    QTest::newRow("a silent cap")
        << normal << dialog(with(with(normal, "logCap", 50), "logCapMode", "silent"))
        << "caps eth_getLogs at 50 logs (silently truncated)";
    QTest::newRow("the receipts box without drops changes nothing")
        << normal << dialog(with(normal, "dropInReceipts", false)) << "no change";
    QTest::newRow("OK without touching anything") << normal << dialog(normal) << "no change";
    QTest::newRow("numbers by value: 5 is 5.0")
        << with(normal, "latencyMs", 5) << dialog(with(normal, "latencyMs", 5.0)) << "no change";
    // clang-format on
}

void TestFaultProxy::onlyWhatChangedIsNews()
{
    QFETCH(QJsonObject, before);
    QFETCH(QJsonObject, sent);
    QFETCH(QString, words);
    QCOMPARE(lab::describeKnobChanges(lab::changedKnobs(before, sent)), words);
}

#include "tst_faultproxy.moc"
