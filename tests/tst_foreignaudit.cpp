// `forkscope audit` on a real anvil: another indexer's Transfer table, written here from the
// node's logs into a SQLite file and into a throwaway PostgreSQL database (the store as a data
// row), audited clean; then rows deleted, duplicated, altered, invented, and left behind by a
// reorg, each found and named; the Ponder and Subsquid layouts; bad queries and values as one
// line; the JSON and JUnit outputs; the balances. The comparison's rules as a table first.
#include "ForeignTableWriter.h"
#include "IndexerLab.h"
#include "OneLine.h"
#include "foreign/ForeignComparison.h"
#include "foreign/ForeignValue.h"
#include "indexer/TransferDecoder.h"
#include "lab/FaultProxy.h"
#include "lab/PgLab.h"
#include "lab/ProxyLie.h"
#include "store/pg/PgConnection.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QXmlStreamReader>
#include <QtTest>
#include <variant>

using namespace forkscope;
using foreign::ForeignFinding;
using test::IndexerLab;
using test::ProcessRun;
using test::runForkscope;

namespace {

using Row = test::ForeignTableRow;
using test::sqlText;

enum class Tamper { None, Delete, Duplicate, AlterValue, AlterTo, Invent };

const QString kStranger = QStringLiteral("0x00000000000000000000000000000000000000aa");

chain::Address address(const QString& hex)
{
    return chain::Address::fromHex(hex, QStringLiteral("test"));
}

chain::Hash32 hash(char fill)
{
    return chain::Hash32::fromHex(QStringLiteral("0x") + QString(64, QLatin1Char(fill)),
                                  QStringLiteral("test"));
}

} // namespace

Q_DECLARE_METATYPE(Tamper)
Q_DECLARE_METATYPE(forkscope::lab::ProxyLie)
Q_DECLARE_METATYPE(ForeignFinding::Kind)

class TestForeignAudit : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();

    // The rules, as tables.
    void comparison_data();
    void comparison();
    void cellEncodings_data();
    void cellEncodings();

    // The command, on both stores.
    void tampersAreFoundAndNamed_data();
    void tampersAreFoundAndNamed();
    void presetLayoutsAreAudited_data();
    void presetLayoutsAreAudited();
    void usageErrorsAreOneLine_data();
    void usageErrorsAreOneLine();
    void badQueryOrValueIsOneLine_data();
    void badQueryOrValueIsOneLine();
    void aPositionInItsTransactionStandsForTheLogIndex_data();
    void aPositionInItsTransactionStandsForTheLogIndex();
    void junitCarriesTheFindings();
    void receiptsProveEveryBlockWithTransfers();
    void aNodeThatLiesIsNamedNotBelieved_data();
    void aNodeThatLiesIsNamedNotBelieved();
    void balancesAreTheSumsOfTheNodesTransfers_data();
    void balancesAreTheSumsOfTheNodesTransfers();
    void rowsOfAReorgedBlockAreOrphaned(); // last: it reorgs the chain

private:
    // The node's Transfers of the lab's token, as a correct indexer would store them.
    QList<Row> nodeRows() const;
    QList<Row> tampered(QList<Row> rows, Tamper tamper) const;
    // `table` in the generic layout: addresses as hex text and hashes as bytes in SQLite,
    // bytea and numeric on PostgreSQL.
    void writeGeneric(const QString& db, const QString& table, const QList<Row>& rows) const;
    void writePonder(const QString& db, const QList<Row>& rows) const;
    void writeSubsquid(const QString& db, const QList<Row>& rows) const;
    void writeBalances(const QString& db, const QMap<QString, QString>& balances) const;
    void run(const QString& db, const QStringList& sql) const;
    QStringList auditArgs(const QString& db, const QStringList& extra) const
    {
        return QStringList{"audit",      "--target", db, "--rpc", m_lab->devnet().url().toString(),
                           "--contract", m_token} +
               extra;
    }
    static QJsonObject json(const ProcessRun& run)
    {
        return QJsonDocument::fromJson(run.out.toUtf8()).object();
    }
    QString dbOf(const QString& backend) const
    {
        return backend == QLatin1String("sqlite")
                   ? m_lab->tempPath(QStringLiteral("foreign.sqlite"))
                   : m_cluster.url();
    }

    std::unique_ptr<IndexerLab> m_lab;
    lab::PgLab m_cluster;
    QString m_token;
};

void TestForeignAudit::initTestCase()
{
    m_lab = std::make_unique<IndexerLab>();
    m_token = m_lab->deployToken(QStringLiteral("AAA")).address().toHex();
    m_lab->sprayAll(4, 3, 5);
    m_cluster.start();
}

QList<Row> TestForeignAudit::nodeRows() const
{
    return test::nodeTransferRows(m_lab->eth(), m_token);
}

// The tamper is applied to the third row: a spray Transfer, not the mint.
QList<Row> TestForeignAudit::tampered(QList<Row> rows, Tamper tamper) const
{
    Row& r = rows[2];
    switch (tamper) {
    case Tamper::None:
        break;
    case Tamper::Delete:
        rows.removeAt(2);
        break;
    case Tamper::Duplicate: {
        Row copy = r;
        copy.id += QStringLiteral("-again");
        rows << copy;
        break;
    }
    case Tamper::AlterValue:
        r.value =
            chain::u256::toDecimal(chain::u256::fromDecimal(r.value, QStringLiteral("v")) + 1);
        break;
    case Tamper::AlterTo:
        r.to = kStranger;
        break;
    case Tamper::Invent: {
        Row invented = r;
        invented.id = QStringLiteral("invented");
        invented.logIndex = 77;
        rows << invented;
        break;
    }
    }
    return rows;
}

void TestForeignAudit::run(const QString& db, const QStringList& sql) const
{
    test::runForeignSql(db, sql);
}

void TestForeignAudit::writeGeneric(const QString& db, const QString& table,
                                    const QList<Row>& rows) const
{
    test::writeGenericTable(db, table, rows);
}

// Ponder's onchainTable: id = event.id, the checkpoint (block timestamp 10 digits, chain id
// 16, block number 16, transaction index 16, event type 1, event index 16).
void TestForeignAudit::writePonder(const QString& db, const QList<Row>& rows) const
{
    const bool pg = store::pg::isPostgresUrl(db);
    QStringList values;
    for (const Row& r : rows) {
        const QString id = QStringLiteral("%1%2%3%4%5%6")
                               .arg(1700000000 + r.block, 10, 10, QLatin1Char('0'))
                               .arg(31337, 16, 10, QLatin1Char('0'))
                               .arg(r.block, 16, 10, QLatin1Char('0'))
                               .arg(0, 16, 10, QLatin1Char('0'))
                               .arg(5)
                               .arg(r.logIndex, 16, 10, QLatin1Char('0'));
        values << QStringLiteral("(%1, %2, 1700000000, %3, %4)")
                      .arg(sqlText(id), pg ? r.value : sqlText(r.value), sqlText(r.from),
                           sqlText(r.to));
    }
    run(db, {QStringLiteral("DROP TABLE IF EXISTS transfer_event"),
             // SQLite would turn a NUMERIC past 2^63 into a lossy REAL: text there.
             QStringLiteral("CREATE TABLE transfer_event (id TEXT PRIMARY KEY, amount %1 NOT NULL, "
                            "timestamp INTEGER NOT NULL, \"from\" TEXT NOT NULL, \"to\" TEXT "
                            "NOT NULL)")
                 .arg(pg ? QStringLiteral("NUMERIC(78)") : QStringLiteral("TEXT")),
             QStringLiteral("INSERT INTO transfer_event VALUES %1")
                 .arg(values.join(QStringLiteral(", ")))});
}

// A squid's TypeORM table: id = log.id, "<block, 10 digits>-<hash digits 1-5>-<log index, 6>".
void TestForeignAudit::writeSubsquid(const QString& db, const QList<Row>& rows) const
{
    const bool pg = store::pg::isPostgresUrl(db);
    QStringList values;
    for (const Row& r : rows) {
        const QString id = QStringLiteral("%1-%2-%3")
                               .arg(r.block, 10, 10, QLatin1Char('0'))
                               .arg(r.blockHash.mid(2, 5))
                               .arg(r.logIndex, 6, 10, QLatin1Char('0'));
        values << QStringLiteral("(%1, %2, %3, %4, %5, %6, %7)")
                      .arg(sqlText(id))
                      .arg(r.block)
                      .arg(pg ? QStringLiteral("now()") : QStringLiteral("'2025-01-01'"),
                           sqlText(r.txHash), sqlText(r.from), sqlText(r.to),
                           pg ? r.value : sqlText(r.value));
    }
    run(db,
        {QStringLiteral("DROP TABLE IF EXISTS transfer"),
         QStringLiteral("CREATE TABLE transfer (id VARCHAR NOT NULL PRIMARY KEY, block_number "
                        "INTEGER NOT NULL, timestamp %1 NOT NULL, tx_hash TEXT NOT NULL, "
                        "\"from\" TEXT NOT NULL, \"to\" TEXT NOT NULL, amount %2 NOT NULL)")
             .arg(pg ? QStringLiteral("TIMESTAMP WITH TIME ZONE") : QStringLiteral("TEXT"),
                  pg ? QStringLiteral("NUMERIC") : QStringLiteral("TEXT")),
         QStringLiteral("INSERT INTO transfer VALUES %1").arg(values.join(QStringLiteral(", ")))});
}

void TestForeignAudit::writeBalances(const QString& db,
                                     const QMap<QString, QString>& balances) const
{
    const bool pg = store::pg::isPostgresUrl(db);
    QStringList values;
    for (auto it = balances.cbegin(); it != balances.cend(); ++it)
        values << QStringLiteral("(%1, %2, %3)")
                      .arg(sqlText(m_token), sqlText(it.key()),
                           pg ? it.value() : sqlText(it.value()));
    run(db,
        {QStringLiteral("DROP TABLE IF EXISTS holders"),
         QStringLiteral("CREATE TABLE holders (contract TEXT, holder TEXT, balance %1)")
             .arg(pg ? QStringLiteral("NUMERIC") : QStringLiteral("TEXT")),
         QStringLiteral("INSERT INTO holders VALUES %1").arg(values.join(QStringLiteral(", ")))});
}

void TestForeignAudit::comparison_data()
{
    QTest::addColumn<QList<foreign::ForeignRow>>("rows");
    QTest::addColumn<QList<foreign::NodeTransfer>>("node");
    QTest::addColumn<QStringList>("expected"); // "kind@logIndex fields"

    const chain::Address token =
        address(QStringLiteral("0x00000000000000000000000000000000000000c0"));
    const chain::Address alice =
        address(QStringLiteral("0x00000000000000000000000000000000000000a1"));
    const chain::Address bob =
        address(QStringLiteral("0x00000000000000000000000000000000000000b0"));
    const foreign::NodeTransfer t1{1, hash('1'), token, alice, bob, chain::U256(5)};
    const foreign::NodeTransfer t2{2, hash('2'), token, bob, alice, chain::U256(7)};
    const auto row = [&](const foreign::NodeTransfer& t) {
        foreign::ForeignRow r;
        r.block = 9;
        r.logIndex = t.logIndex;
        r.txHash = t.txHash;
        r.contract = t.contract;
        r.from = t.from;
        r.to = t.to;
        r.value = t.value;
        r.label = QStringLiteral("r%1").arg(t.logIndex);
        return r;
    };
    QList<foreign::ForeignRow> both{row(t1), row(t2)};
    QTest::newRow("clean") << both << QList{t1, t2} << QStringList{};
    QTest::newRow("clean, fields left out") << [&] {
        auto r = both;
        r[0].from.reset();
        r[0].value.reset();
        r[1].txHash.reset();
        return r;
    }() << QList{t1, t2} << QStringList{};
    QTest::newRow("missing") << QList{row(t2)} << QList{t1, t2} << QStringList{"missing@1 "};
    QTest::newRow("extra") << both << QList{t2} << QStringList{"extra@1 "};
    QTest::newRow("duplicated") << QList{row(t1), row(t1), row(t2)} << QList{t1, t2}
                                << QStringList{"duplicated@1 "};
    QTest::newRow("altered value and to") << [&] {
        auto r = both;
        r[1].value = chain::U256(8);
        r[1].to = token;
        return r;
    }() << QList{t1, t2} << QStringList{"altered@2 to,value"};
    QTest::newRow("altered contract and tx") << [&] {
        auto r = both;
        r[0].contract = alice;
        r[0].txHash = hash('9');
        return r;
    }() << QList{t1, t2} << QStringList{"altered@1 contract,tx_hash"};
    QTest::newRow("orphaned by hash") << [&] {
        auto r = both;
        r[0].blockHash = hash('e');
        return r;
    }() << QList{t1, t2} << QStringList{"orphaned@1 ", "missing@1 "};
    QTest::newRow("same hash: not orphaned") << [&] {
        auto r = both;
        r[0].blockHash = hash('c');
        return r;
    }() << QList{t1, t2} << QStringList{};
    QTest::newRow("orphaned by prefix") << [&] {
        auto r = both;
        r[1].blockHashPrefix = QStringLiteral("eeeee");
        return r;
    }() << QList{t1, t2} << QStringList{"orphaned@2 ", "missing@2 "};
    QTest::newRow("prefix of the canonical hash") << [&] {
        auto r = both;
        r[1].blockHashPrefix = QStringLiteral("ccccc");
        return r;
    }() << QList{t1, t2} << QStringList{};
    QTest::newRow("unresolved position") << [&] {
        auto r = both;
        r[1].logIndex.reset();
        r[1].txPosition = 3;
        return r;
    }() << QList{t1, t2} << QStringList{"extra@- ", "missing@2 "};
}

void TestForeignAudit::comparison()
{
    QFETCH(QList<foreign::ForeignRow>, rows);
    QFETCH(QList<foreign::NodeTransfer>, node);
    QFETCH(QStringList, expected);
    QStringList got;
    for (const ForeignFinding& f : foreign::compareForeignBlock(9, hash('c'), rows, node)) {
        got << QStringLiteral("%1@%2 %3")
                   .arg(foreign::kindName(f.kind),
                        f.logIndex ? QString::number(*f.logIndex) : QStringLiteral("-"),
                        f.fields.join(QLatin1Char(',')));
        QVERIFY(f.describe().contains(QStringLiteral("block 9")));
    }
    got.sort();
    expected.sort();
    QCOMPARE(got, expected);
}

void TestForeignAudit::cellEncodings_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<qint64>("integer");
    QTest::addColumn<QString>("amount"); // empty: refused

    const int text = int(foreign::ForeignCell::Type::Text);
    const int blob = int(foreign::ForeignCell::Type::Blob);
    const int integer = int(foreign::ForeignCell::Type::Integer);
    QTest::newRow("decimal text") << text << QByteArray("1000") << qint64(0) << "1000";
    QTest::newRow("numeric text") << text << QByteArray("1000.000") << qint64(0) << "1000";
    QTest::newRow("hex text") << text << QByteArray("0x03E8") << qint64(0) << "1000";
    QTest::newRow("bytes") << blob << QByteArray::fromHex("03e8") << qint64(0) << "1000";
    QTest::newRow("integer") << integer << QByteArray() << qint64(1000) << "1000";
    QTest::newRow("uint256 max")
        << text
        << QByteArray("11579208923731619542357098500868790785326998466564"
                      "0564039457584007913129639935")
        << qint64(0)
        << "115792089237316195423570985008687907853269984665640564039457584"
           "007913129639935";
    QTest::newRow("past uint256") << text
                                  << QByteArray("11579208923731619542357098500868790785326998466564"
                                                "0564039457584007913129639936")
                                  << qint64(0) << "";
    QTest::newRow("a fraction") << text << QByteArray("10.5") << qint64(0) << "";
    QTest::newRow("negative") << integer << QByteArray() << qint64(-1) << "";
    QTest::newRow("words") << text << QByteArray("abc") << qint64(0) << "";
    QTest::newRow("33 bytes") << blob << QByteArray(33, '\1') << qint64(0) << "";
    // A REAL has lost digits past 2^53: no amount can be read from it.
    QTest::newRow("real") << int(foreign::ForeignCell::Type::Real) << QByteArray("1e+24")
                          << qint64(0) << "";
    QTest::newRow("null") << int(foreign::ForeignCell::Type::Null) << QByteArray() << qint64(0)
                          << "";
}

void TestForeignAudit::cellEncodings()
{
    QFETCH(int, type);
    QFETCH(QByteArray, bytes);
    QFETCH(qint64, integer);
    QFETCH(QString, amount);
    const foreign::ForeignCell c{foreign::ForeignCell::Type(type), integer, bytes};
    QString why;
    const auto v = foreign::amountOf(c, &why);
    QCOMPARE(v ? chain::u256::toDecimal(*v) : QString(), amount);
    QCOMPARE(why.isEmpty(), !amount.isEmpty());
}

void TestForeignAudit::tampersAreFoundAndNamed_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<Tamper>("tamper");
    QTest::addColumn<QString>("kind"); // empty: clean
    QTest::addColumn<QString>("fields");
    for (const char* backend : {"sqlite", "postgresql"}) {
        const auto row = [&](const char* name) -> QTestData& {
            return QTest::addRow("%s, %s", backend, name) << QString::fromLatin1(backend);
        };
        row("clean") << Tamper::None << ""
                     << "";
        row("a row deleted") << Tamper::Delete << "missing"
                             << "";
        row("a row twice") << Tamper::Duplicate << "duplicated"
                           << "";
        row("a value altered") << Tamper::AlterValue << "altered"
                               << "value";
        row("a recipient altered") << Tamper::AlterTo << "altered"
                                   << "to";
        row("an invented row") << Tamper::Invent << "extra"
                               << "";
    }
}

void TestForeignAudit::tampersAreFoundAndNamed()
{
    QFETCH(QString, backend);
    QFETCH(Tamper, tamper);
    QFETCH(QString, kind);
    QFETCH(QString, fields);
    const QString db = dbOf(backend);
    const QList<Row> truth = nodeRows();
    QVERIFY(truth.size() >= 10);
    writeGeneric(db, QStringLiteral("transfers"), tampered(truth, tamper));
    const ProcessRun r =
        runForkscope(auditArgs(db, {"--query", "SELECT * FROM transfers", "--format", "json"}));
    const QJsonObject o = json(r);
    QCOMPARE(o.value("to_block").toInteger(), qint64(truth.last().block));
    QCOMPARE(o.value("checked").toObject().value("node_transfers").toInteger(), truth.size());
    if (kind.isEmpty()) {
        QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
        QCOMPARE(o.value("finding_count").toInteger(), 0);
        QCOMPARE(o.value("clean").toBool(), true);
        return;
    }
    QVERIFY2(r.exitCode == 1, qPrintable(r.describe()));
    QCOMPARE(o.value("finding_count").toInteger(), 1);
    QCOMPARE(o.value("counts").toObject().value(kind).toInteger(), 1);
    const QJsonObject f = o.value("findings").toArray().at(0).toObject();
    const Row& target = truth.at(2);
    QCOMPARE(f.value("kind").toString(), kind);
    QCOMPARE(f.value("block").toInteger(), qint64(target.block));
    QCOMPARE(f.value("contract").toString(), m_token);
    QCOMPARE(f.value("tx_hash").toString(), target.txHash);
    QCOMPARE(f.value("log_index").toInteger(),
             qint64(tamper == Tamper::Invent ? 77 : target.logIndex));
    QCOMPARE(f.value("fields").toArray().toVariantList().isEmpty(), fields.isEmpty());
    if (!fields.isEmpty())
        QCOMPARE(f.value("fields").toArray().at(0).toString(), fields);
    QVERIFY2(r.err.contains("audit: 1 finding in blocks"), qPrintable(r.err));
}

void TestForeignAudit::presetLayoutsAreAudited_data()
{
    QTest::addColumn<QString>("preset");
    QTest::addColumn<QString>("backend");
    QTest::addColumn<Tamper>("tamper");
    QTest::addColumn<QString>("kind");
    for (const char* backend : {"sqlite", "postgresql"})
        for (const char* preset : {"ponder", "subsquid"}) {
            QTest::addRow("%s on %s, clean", preset, backend)
                << QString::fromLatin1(preset) << QString::fromLatin1(backend) << Tamper::None
                << "";
            QTest::addRow("%s on %s, a row deleted", preset, backend)
                << QString::fromLatin1(preset) << QString::fromLatin1(backend) << Tamper::Delete
                << "missing";
            QTest::addRow("%s on %s, a value altered", preset, backend)
                << QString::fromLatin1(preset) << QString::fromLatin1(backend) << Tamper::AlterValue
                << "altered";
        }
}

void TestForeignAudit::presetLayoutsAreAudited()
{
    QFETCH(QString, preset);
    QFETCH(QString, backend);
    QFETCH(Tamper, tamper);
    QFETCH(QString, kind);
    const QString db = dbOf(backend);
    const QList<Row> truth = nodeRows();
    const QList<Row> rows = tampered(truth, tamper);
    if (preset == QLatin1String("ponder"))
        writePonder(db, rows);
    else
        writeSubsquid(db, rows);
    const ProcessRun r = runForkscope(auditArgs(db, {"--preset", preset, "--format", "json"}));
    QVERIFY2(r.exitCode != 2, qPrintable(r.describe()));
    const QJsonObject o = json(r);
    QCOMPARE(o.value("checked").toObject().value("rows").toInteger(), rows.size());
    if (kind.isEmpty()) {
        QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
        QCOMPARE(o.value("finding_count").toInteger(), 0);
        return;
    }
    QVERIFY2(r.exitCode == 1, qPrintable(r.describe()));
    QCOMPARE(o.value("finding_count").toInteger(), 1);
    const QJsonObject f = o.value("findings").toArray().at(0).toObject();
    QCOMPARE(f.value("kind").toString(), kind);
    QCOMPARE(f.value("block").toInteger(), qint64(truth.at(2).block));
    QCOMPARE(f.value("log_index").toInteger(), qint64(truth.at(2).logIndex));
}

void TestForeignAudit::usageErrorsAreOneLine_data()
{
    QTest::addColumn<QStringList>("extra"); // after --target, --rpc and --contract
    QTest::addColumn<QString>("mentions");
    QTest::newRow("no query") << QStringList{} << "give --query or --preset";
    QTest::newRow("query and preset")
        << QStringList{"--query", "SELECT 1", "--preset", "ponder"} << "give --query or --preset";
    QTest::newRow("unknown preset")
        << QStringList{"--preset", "graph"} << "--preset: `graph` is none of ponder, subsquid";
    QTest::newRow("table without preset")
        << QStringList{"--query", "SELECT 1", "--table", "t"} << "--table goes with --preset";
    QTest::newRow("a table that is SQL") << QStringList{"--preset", "ponder", "--table", "t; DROP"}
                                         << "--table: `t; DROP` is not a table name";
    QTest::newRow("unknown format") << QStringList{"--query", "SELECT 1", "--format", "xml"}
                                    << "--format: `xml` is none of text, json, junit";
    QTest::newRow("out with text") << QStringList{"--query", "SELECT 1", "--out", "x"}
                                   << "--out: expected a file, with --format json or junit";
    QTest::newRow("from above to")
        << QStringList{"--query", "SELECT 1", "--from-block", "9", "--to-block", "3"}
        << "--from-block 9 is above --to-block 3";
    QTest::newRow("target twice") << QStringList{"--query", "SELECT 1", "--target",
                                                 "/nonexistent/x.sqlite"}
                                  << "--target given 2 times";
    QTest::newRow("a factory without its event")
        << QStringList{"--query", "SELECT 1", "--factory",
                       "0x5fbdb2315678afecb367f032d93f642f64180aa3"}
        << "--factory, --factory-event and --child-arg go together";
    QTest::newRow("a factory event that does not read")
        << QStringList{"--query",         "SELECT 1",
                       "--factory",       "0x5fbdb2315678afecb367f032d93f642f64180aa3",
                       "--factory-event", "PairCreated(address",
                       "--child-arg",     "pair"}
        << "--factory-event";
    QTest::newRow("a missing file") << QStringList{"--query", "SELECT 1"} << "no such file";
}

void TestForeignAudit::usageErrorsAreOneLine()
{
    QFETCH(QStringList, extra);
    QFETCH(QString, mentions);
    const QString target = QString::fromLatin1(QTest::currentDataTag()) == "a missing file"
                               ? m_lab->tempPath(QStringLiteral("absent.sqlite"))
                               : dbOf(QStringLiteral("sqlite"));
    const ProcessRun r = runForkscope(auditArgs(target, extra));
    QVERIFY2(r.exitCode == 2, qPrintable(r.describe()));
    QVERIFY2(test::isOneLine(r.err.trimmed()), qPrintable(r.err));
    QVERIFY2(r.err.contains(mentions), qPrintable(r.err));
    QVERIFY2(!QFileInfo::exists(m_lab->tempPath(QStringLiteral("absent.sqlite"))),
             "an audit never creates its target");
}

void TestForeignAudit::badQueryOrValueIsOneLine_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<QString>("query");
    QTest::addColumn<QString>("mentions");
    for (const char* backend : {"sqlite", "postgresql"}) {
        const auto row = [&](const char* name) -> QTestData& {
            return QTest::addRow("%s, %s", backend, name) << QString::fromLatin1(backend);
        };
        row("no such table") << "SELECT * FROM nowhere"
                             << "nowhere";
        row("no log index") << "SELECT id, block_number, contract FROM transfers"
                            << "yields no `log_index` column";
        row("a value in words")
            << "SELECT id, block_number, log_index, contract, CASE WHEN id = '" +
                   nodeRows().at(2).id + "' THEN 'lots' ELSE '1' END AS value FROM transfers"
            << "row id \"" + nodeRows().at(2).id + "\": column `value` \"lots\" is not an amount";
        row("a short recipient")
            << "SELECT id, block_number, log_index, contract, '0x1234' AS \"to\" FROM transfers"
            << "column `to` \"0x1234\" holds 2 bytes, not the 20 of an address";
        row("a value over two lines")
            << QStringLiteral(
                   "SELECT id, block_number, log_index, contract, 'lo' || %1(10) || 'ts' "
                   "AS value FROM transfers")
                   .arg(QString::fromLatin1(backend) == "sqlite" ? "char" : "chr")
            << "column `value` \"lo?ts\" is not an amount";
        row("a write") << "DELETE FROM transfers"
                       << "transfers";
    }
}

void TestForeignAudit::badQueryOrValueIsOneLine()
{
    QFETCH(QString, backend);
    QFETCH(QString, query);
    QFETCH(QString, mentions);
    const QString db = dbOf(backend);
    writeGeneric(db, QStringLiteral("transfers"), nodeRows());
    const ProcessRun r = runForkscope(auditArgs(db, {"--query", query}));
    QVERIFY2(r.exitCode == 2, qPrintable(r.describe()));
    const QString line = r.err.trimmed();
    QVERIFY2(test::isOneLine(line), qPrintable(line));
    QVERIFY2(line.startsWith("forkscope: audit: "), qPrintable(line));
    QVERIFY2(line.contains(mentions), qPrintable(line));
    // The table is as it was: nothing was written.
    const ProcessRun again = runForkscope(auditArgs(db, {"--query", "SELECT * FROM transfers"}));
    QVERIFY2(again.exitCode == 0, qPrintable(again.describe()));
}

void TestForeignAudit::aPositionInItsTransactionStandsForTheLogIndex_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<int>("shift"); // added to the third row's position
    for (const char* backend : {"sqlite", "postgresql"}) {
        QTest::addRow("%s, right", backend) << QString::fromLatin1(backend) << 0;
        QTest::addRow("%s, a position past the transaction's logs", backend)
            << QString::fromLatin1(backend) << 10;
    }
}

// On this chain every block holds one transaction whose logs start at index 0, so a log's
// position in its transaction is its log index.
void TestForeignAudit::aPositionInItsTransactionStandsForTheLogIndex()
{
    QFETCH(QString, backend);
    QFETCH(int, shift);
    const QString db = dbOf(backend);
    const QList<Row> truth = nodeRows();
    writeGeneric(db, QStringLiteral("transfers"), truth);
    const QString query =
        QStringLiteral("SELECT block_number, tx_hash, CASE WHEN id = %1 THEN log_index + %2 ELSE "
                       "log_index END AS tx_position, contract, \"from\", \"to\", value FROM "
                       "transfers")
            .arg(sqlText(truth.at(2).id))
            .arg(shift);
    const ProcessRun r = runForkscope(auditArgs(db, {"--query", query, "--format", "json"}));
    const QJsonObject o = json(r);
    if (shift == 0) {
        QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
        QCOMPARE(o.value("checked").toObject().value("rows").toInteger(), truth.size());
        return;
    }
    QVERIFY2(r.exitCode == 1, qPrintable(r.describe()));
    QCOMPARE(o.value("counts").toObject().value("extra").toInteger(), 1);
    QCOMPARE(o.value("counts").toObject().value("missing").toInteger(), 1);
    for (const QJsonValue& v : o.value("findings").toArray())
        QCOMPARE(v.toObject().value("tx_hash").toString(), truth.at(2).txHash);
}

void TestForeignAudit::junitCarriesTheFindings()
{
    const QString db = dbOf(QStringLiteral("sqlite"));
    const QList<Row> truth = nodeRows();
    writeGeneric(db, QStringLiteral("transfers"), tampered(truth, Tamper::AlterTo));
    const QString out = m_lab->tempPath(QStringLiteral("audit.xml"));
    const ProcessRun r = runForkscope(
        auditArgs(db, {"--query", "SELECT * FROM transfers", "--format", "junit", "--out", out}));
    QVERIFY2(r.exitCode == 1, qPrintable(r.describe()));
    QFile file(out);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QXmlStreamReader xml(&file);
    int testcases = 0;
    QStringList failures;
    QString text;
    while (!xml.atEnd()) {
        if (xml.readNext() != QXmlStreamReader::StartElement)
            continue;
        if (xml.name() == QLatin1String("testcase"))
            ++testcases;
        if (xml.name() == QLatin1String("failure")) {
            failures << xml.attributes().value("type").toString();
            text = xml.readElementText();
        }
    }
    QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    QCOMPARE(testcases, ForeignFinding::kKinds);
    QCOMPARE(failures, QStringList{"altered"});
    QVERIFY2(text.contains(truth.at(2).txHash) && text.contains(kStranger), qPrintable(text));
}

void TestForeignAudit::receiptsProveEveryBlockWithTransfers()
{
    const QString db = dbOf(QStringLiteral("sqlite"));
    const QList<Row> truth = nodeRows();
    writeGeneric(db, QStringLiteral("transfers"), truth);
    const ProcessRun r = runForkscope(
        auditArgs(db, {"--query", "SELECT * FROM transfers", "--receipts", "--format", "json"}));
    QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
    const QJsonObject o = json(r);
    QCOMPARE(o.value("proof").toString(), "receipts");
    QSet<std::uint64_t> blocks;
    for (const Row& row : truth)
        blocks.insert(row.block);
    QCOMPARE(o.value("checked").toObject().value("proven_blocks").toInteger(), blocks.size());
}

void TestForeignAudit::aNodeThatLiesIsNamedNotBelieved_data()
{
    QTest::addColumn<lab::ProxyLie>("lie");
    QTest::addColumn<bool>("dropLogs");
    QTest::addColumn<bool>("receipts");
    QTest::addColumn<QString>("named"); // empty: the receipts prove the table clean
    QTest::newRow("eth_getLogs answers nothing")
        << lab::ProxyLie::None << true << false << "hides logs of block";
    QTest::newRow("eth_getLogs answers nothing, receipts prove the rows")
        << lab::ProxyLie::None << true << true << "";
    QTest::newRow("headers that do not link")
        << lab::ProxyLie::UnlinkedHeaders << false << false << "headers that do not link";
    QTest::newRow("logs of another block")
        << lab::ProxyLie::WrongLogHash << false << false << "carrying block hash";
    QTest::newRow("a log of an address not asked")
        << lab::ProxyLie::ForeignLog << false << false << "not a Transfer of the contracts asked";
}

void TestForeignAudit::aNodeThatLiesIsNamedNotBelieved()
{
    QFETCH(lab::ProxyLie, lie);
    QFETCH(bool, dropLogs);
    QFETCH(bool, receipts);
    QFETCH(QString, named);
    const QString db = dbOf(QStringLiteral("sqlite"));
    writeGeneric(db, QStringLiteral("transfers"), nodeRows());
    lab::FaultProxy proxy(m_lab->devnet().url());
    proxy.listen();
    proxy.setLie(lie);
    proxy.setDropLogs(dropLogs);
    QStringList args{"audit",
                     "--target",
                     db,
                     "--rpc",
                     proxy.url().toString(),
                     "--contract",
                     m_token,
                     "--query",
                     "SELECT * FROM transfers"};
    if (receipts)
        args << "--receipts";
    const ProcessRun r = runForkscope(args);
    if (named.isEmpty()) {
        QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
        return;
    }
    QVERIFY2(r.exitCode == 2, qPrintable(r.describe()));
    QVERIFY2(test::isOneLine(r.err.trimmed()), qPrintable(r.err));
    QVERIFY2(r.err.contains(named) && r.err.contains("cannot serve as the reference"),
             qPrintable(r.err));
}

void TestForeignAudit::balancesAreTheSumsOfTheNodesTransfers_data()
{
    QTest::addColumn<QString>("backend");
    QTest::addColumn<bool>("wrong");
    for (const char* backend : {"sqlite", "postgresql"}) {
        QTest::addRow("%s, right", backend) << QString::fromLatin1(backend) << false;
        QTest::addRow("%s, one wrong", backend) << QString::fromLatin1(backend) << true;
    }
}

void TestForeignAudit::balancesAreTheSumsOfTheNodesTransfers()
{
    QFETCH(QString, backend);
    QFETCH(bool, wrong);
    const QString db = dbOf(backend);
    const QList<Row> truth = nodeRows();
    writeGeneric(db, QStringLiteral("transfers"), truth);
    // Summed here from the rows, independently of the auditor's sums.
    QMap<QString, chain::U256> in, out;
    for (const Row& r : truth) {
        const chain::U256 v = chain::u256::fromDecimal(r.value, QStringLiteral("v"));
        in[r.to] += v;
        out[r.from] += v;
    }
    QMap<QString, QString> balances;
    for (auto it = in.cbegin(); it != in.cend(); ++it)
        balances[it.key()] = chain::u256::toDecimal(it.value() - out.value(it.key()));
    const QString victim = truth.at(2).to;
    if (wrong)
        balances[victim] = QStringLiteral("1");
    writeBalances(db, balances);
    // From a later block than the first: the Transfers below it are summed too.
    const ProcessRun r = runForkscope(
        auditArgs(db, {"--query", "SELECT * FROM transfers", "--from-block",
                       QString::number(truth.at(2).block), "--balances-query",
                       "SELECT contract, holder, balance FROM holders", "--format", "json"}));
    QVERIFY2(r.exitCode != 2, qPrintable(r.describe()));
    const QJsonObject o = json(r);
    QCOMPARE(o.value("checked").toObject().value("balances").toInteger(), balances.size());
    if (!wrong) {
        QVERIFY2(r.exitCode == 0, qPrintable(r.describe()));
        return;
    }
    QVERIFY2(r.exitCode == 1, qPrintable(r.describe()));
    QCOMPARE(o.value("counts").toObject().value("wrong_balance").toInteger(), 1);
    const QJsonObject f = o.value("findings").toArray().at(0).toObject();
    QCOMPARE(f.value("holder").toString(), victim);
    QVERIFY2(f.value("text").toString().contains("holds 1, but the node's Transfers"),
             qPrintable(f.value("text").toString()));
}

void TestForeignAudit::rowsOfAReorgedBlockAreOrphaned()
{
    const QList<Row> before = nodeRows();
    const std::uint64_t last = before.last().block;
    writeGeneric(dbOf(QStringLiteral("sqlite")), QStringLiteral("transfers"), before);
    writeGeneric(dbOf(QStringLiteral("postgresql")), QStringLiteral("transfers"), before);
    writeSubsquid(dbOf(QStringLiteral("postgresql")), before);
    // The last block is replaced by one without its transfers, and one more is mined.
    m_lab->reorg(1);
    m_lab->mine(1);
    const auto check = [&](const QString& db, const QStringList& query) {
        const ProcessRun r =
            runForkscope(auditArgs(db, query + QStringList{"--to-block", QString::number(last)}));
        QVERIFY2(r.exitCode == 1, qPrintable(r.describe()));
        int orphaned = 0;
        for (const Row& row : before)
            if (row.block == last) {
                ++orphaned;
                QVERIFY2(r.out.contains(QStringLiteral("ORPHANED block %1, tx %2, log %3, "
                                                       "contract %4")
                                            .arg(last)
                                            .arg(row.txHash)
                                            .arg(row.logIndex)
                                            .arg(m_token)),
                         qPrintable(r.out));
            }
        QVERIFY(orphaned > 0);
        QVERIFY2(r.out.contains(QStringLiteral("verdict: %1 findings: %1 orphaned").arg(orphaned)),
                 qPrintable(r.out));
    };
    check(dbOf(QStringLiteral("sqlite")), {"--query", "SELECT * FROM transfers"});
    check(dbOf(QStringLiteral("postgresql")), {"--query", "SELECT * FROM transfers"});
    check(dbOf(QStringLiteral("postgresql")), {"--preset", "subsquid"});
}

QTEST_GUILESS_MAIN(TestForeignAudit)
#include "tst_foreignaudit.moc"
