// Settings: validation rules as a table, the dialog's inline messages and OK button, and
// persistence through QSettings.
#include "SettingsDialog.h"
#include "config/AppSettings.h"
#include "config/SettingsValidation.h"

#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTemporaryDir>
#include <QtTest>

using namespace forkscope;

class TestSettings : public QObject
{
    Q_OBJECT
private slots:
    void rules_data();
    void rules();
    void dialogShowsErrorsInline_data();
    void dialogShowsErrorsInline();
    void roundTripThroughQSettings();
    void inUseBrowseAndStillFields();
};

void TestSettings::rules_data()
{
    // clang-format off
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("error"); // empty: accepted; else a fragment of the message
    QTest::newRow("good endpoint") << "endpoint" << "http://127.0.0.1:8545" << "";
    QTest::newRow("https endpoint") << "endpoint" << "https://rpc.example.org/v1" << "";
    QTest::newRow("ftp endpoint") << "endpoint" << "ftp://x.org" << "must start with http";
    QTest::newRow("no host") << "endpoint" << "http://" << "is not an http(s) URL such as";
    QTest::newRow("garbage endpoint") << "endpoint" << "localhost 8545" << "\"localhost 8545\" is not an http(s) URL";
    QTest::newRow("host-less endpoint") << "endpoint" << "http:8545" << "is not an http(s) URL such as";
    QTest::newRow("port 0 endpoint") << "endpoint" << "http://127.0.0.1:0" << "names port 0";
    // Text from a file or a flag is quoted on one line: a NUL or a newline is escaped.
    QTest::newRow("endpoint with control characters") << "endpoint" << QString("http://127." + QString(QChar(0)) + "\n1") << "\"http://127.\\u0000\\n1\" is not an http(s) URL";
    // config::httpUrl, shared by every --rpc flag: an http(s) URL with a host, or nothing.
    QTest::newRow("url http") << "url" << "http://127.0.0.1:8545" << "";
    QTest::newRow("url https with path") << "url" << "https://rpc.example.org/v1/key" << "";
    QTest::newRow("url ws") << "url" << "ws://127.0.0.1:8545" << "rejected";
    QTest::newRow("url host-less") << "url" << "http:8545" << "rejected";
    QTest::newRow("url empty") << "url" << "" << "rejected";
    QTest::newRow("url spaces") << "url" << "http://127.0.0.1 :8545" << "rejected";
    QTest::newRow("url port 0") << "url" << "http://127.0.0.1:0/" << "rejected";
    QTest::newRow("good address") << "address" << "0x5FbDB2315678afecb367f032d93F642f64180aa3" << "";
    QTest::newRow("short address") << "address" << "0x5fbdb2" << "expected 20 bytes";
    QTest::newRow("address without 0x") << "address" << "5fbdb2315678afecb367f032d93f642f64180aa3" << "0x-prefixed";
    QTest::newRow("address non-hex") << "address" << "0x5fbdb2315678afecb367f032d93f642f64180aaz" << "'z'";
    QTest::newRow("missing abi") << "abi" << "/nonexistent/token.abi.json" << "/nonexistent/token.abi.json";
    QTest::newRow("real abi") << "abi" << FORKSCOPE_SOURCE_DIR "/resources/contracts/DemoToken.json" << "";
    QTest::newRow("ratio 0") << "ratio" << "0" << "above 0";
    QTest::newRow("ratio 1.5") << "ratio" << "1.5" << "at most 1";
    QTest::newRow("ratio 0.8") << "ratio" << "0.8" << "";
    QTest::newRow("ratio nan") << "ratio" << "nan" << "above 0 and at most 1, got \"nan\"";
    QTest::newRow("ratio inf") << "ratio" << "inf" << "above 0 and at most 1, got \"inf\"";
    QTest::newRow("batch 0") << "batch" << "0" << "from 1 to 10000";
    QTest::newRow("batch -3") << "batch" << "-3" << "negative";
    QTest::newRow("batch 50") << "batch" << "50" << "";
    QTest::newRow("env ok") << "env" << "mainnet-usdc.v2" << "";
    QTest::newRow("env with space") << "env" << "my env" << "\"my env\": use 1 to 64";
    QTest::newRow("env slash") << "env" << "a/b" << "use 1 to 64";
    QTest::newRow("env too long") << "env" << QString(65, 'a') << "use 1 to 64";
    // config::validatePostgresUrl: File > Open PostgreSQL database and `forkscope --db URL`.
    QTest::newRow("pg url") << "pg" << "postgresql://postgres@127.0.0.1:5432/forkscope" << "";
    QTest::newRow("pg postgres scheme") << "pg" << "postgres://u@db.example.org/idx" << "";
    QTest::newRow("pg unix socket") << "pg" << "postgresql:///forkscope?host=/tmp/pg" << "";
    QTest::newRow("pg spaces around") << "pg" << "  postgresql://u@h/db  " << "";
    QTest::newRow("pg empty") << "pg" << "" << "enter a URL such as postgresql://";
    QTest::newRow("pg http") << "pg" << "http://127.0.0.1:5432/db" << "is not a postgresql:// URL";
    QTest::newRow("pg a file") << "pg" << "/var/lib/lab.sqlite" << "is not a postgresql:// URL";
    QTest::newRow("pg no host") << "pg" << "postgresql:///forkscope" << "names no host";
    QTest::newRow("pg no database") << "pg" << "postgresql://u@127.0.0.1:5432" << "names no database";
    QTest::newRow("pg slash only") << "pg" << "postgresql://u@127.0.0.1:5432/" << "names no database";
    // The message shows the URL without its password.
    QTest::newRow("pg password hidden") << "pg" << "postgresql://u:s3cret@127.0.0.1:5432" << "postgresql://u@127.0.0.1:5432 names no database";
    // clang-format on
}

void TestSettings::rules()
{
    QFETCH(QString, kind);
    QFETCH(QString, value);
    QFETCH(QString, error);
    std::optional<QString> got;
    if (kind == "endpoint")
        got = config::validateEndpoint(value);
    else if (kind == "url")
        got = config::httpUrl(value) ? std::nullopt : std::optional<QString>("rejected");
    else if (kind == "address")
        got = config::validateAddress(value);
    else if (kind == "abi")
        got = config::validateAbiFile(value);
    else if (kind == "env")
        got = config::validateEnvironmentId(value);
    else if (kind == "pg")
        got = config::validatePostgresUrl(value);
    else if (kind == "ratio")
        got = config::validateRatio(value);
    else
        got = config::validateWholeNumber(value, "batch size", 1, 10000);
    if (got)
        QVERIFY2(!got->contains("s3cret"), qPrintable(*got));
    if (error.isEmpty())
        QVERIFY2(!got, qPrintable(got.value_or("")));
    else
        QVERIFY2(got && got->contains(error), qPrintable(got.value_or("(accepted)")));
}

void TestSettings::dialogShowsErrorsInline_data()
{
    // clang-format off
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("errorField");
    QTest::addColumn<QString>("mentions");
    QTest::newRow("bad URL") << "endpoints" << "http://127.0.0.1:8545\nnot a url" << "endpoints" << "not a url";
    QTest::newRow("bad address") << "contracts" << "0x1234" << "contracts" << "expected 20 bytes";
    QTest::newRow("factory without an address argument") << "factories"
        << "0x5fbdb2315678afecb367f032d93f642f64180aa3 PairCreated(address indexed token0, uint256 n) n"
        << "factories" << "child argument n";
    QTest::newRow("factory without its event") << "factories"
        << "0x5fbdb2315678afecb367f032d93f642f64180aa3" << "factories" << "separated by spaces";
    QTest::newRow("unreadable ABI") << "abi" << "/no/such.json" << "abi" << "/no/such.json";
    QTest::newRow("bad webhook") << "webhook" << "mailto:me" << "webhook" << "webhook";
    QTest::newRow("environment for the lab") << "environment" << "mine" << "environment"
                                             << "only for an external endpoint";
    QTest::newRow("endpoint without contract") << "endpoints" << "http://127.0.0.1:8545" << "contracts"
                                               << "needs at least one contract";
    // clang-format on
}

void TestSettings::dialogShowsErrorsInline()
{
    QFETCH(QString, field);
    QFETCH(QString, value);
    QFETCH(QString, errorField);
    QFETCH(QString, mentions);
    ui::SettingsDialog dialog{config::AppSettings{}};
    QVERIFY(dialog.isValid()); // the defaults are usable (a managed lab)
    if (auto* t = dialog.textEdit(field))
        t->setPlainText(value);
    else
        dialog.lineEdit(field)->setText(value);
    QVERIFY(!dialog.isValid());
    QVERIFY(!dialog.okButton()->isEnabled());
    QVERIFY2(dialog.errorFor(errorField).contains(mentions),
             qPrintable(dialog.errorFor(errorField)));
}

void TestSettings::roundTripThroughQSettings()
{
    QTemporaryDir dir;
    const QString ini = dir.filePath("forkscope.ini");
    config::AppSettings s;
    s.endpoints = "http://127.0.0.1:8545\nhttp://127.0.0.1:8546";
    s.contracts = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
    s.factories = "0xe7f1725e7734ce288f8367e1bb143e90bb3f0512 PairCreated(address indexed token0, "
                  "address indexed token1, address pair, uint256) pair";
    s.readyRatio = "0.6";
    s.webhook = "http://127.0.0.1:9999/hook";
    s.environment = "usdc-v2";
    {
        QSettings store(ini, QSettings::IniFormat);
        s.save(store);
    }
    QSettings store(ini, QSettings::IniFormat);
    const auto loaded = config::AppSettings::load(store);
    QCOMPARE(loaded, s);
    QCOMPARE(loaded.endpointList().size(), 2);
    ui::SettingsDialog dialog(loaded);
    QVERIFY(dialog.isValid());
    QCOMPARE(dialog.settings(), s);
}

void TestSettings::inUseBrowseAndStillFields()
{
    ui::SettingsDialog dialog(config::AppSettings{});
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    // What the managed lab uses is shown, read-only, though it is not a saved setting.
    QCOMPARE(dialog.inUseText(), QString());
    dialog.setInUse("http://127.0.0.1:4000 (the managed anvil lab)",
                    {"0x5fbdb2315678afecb367f032d93f642f64180aa3"}, "/tmp/lab.sqlite");
    QVERIFY2(dialog.inUseText().contains("http://127.0.0.1:4000 (the managed anvil lab)") &&
                 dialog.inUseText().contains("0x5fbdb2315678afecb367f032d93f642f64180aa3") &&
                 dialog.inUseText().contains("/tmp/lab.sqlite"),
             qPrintable(dialog.inUseText()));
    QVERIFY(dialog.findChild<QPushButton*>(QStringLiteral("browseAbi")));
    // An error appearing under a field does not move the fields below it.
    QLineEdit* below = dialog.lineEdit("batchSize");
    const int y = below->mapTo(&dialog, QPoint(0, 0)).y();
    dialog.lineEdit("startBlock")->setText("not a number");
    QVERIFY(!dialog.errorFor("startBlock").isEmpty());
    QCoreApplication::processEvents();
    QCOMPARE(below->mapTo(&dialog, QPoint(0, 0)).y(), y);
}

QTEST_MAIN(TestSettings)
#include "tst_settings.moc"
