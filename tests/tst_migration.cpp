// Contract v3 -> v4 (schema 4 -> 5) on a file a v3 build wrote (tests/data/README.md): the
// read surface (every contract name, every column) reads exactly as before, the invariants
// that need no node still hold, and a damaged v3 file is refused with one line and left as
// it was.
#include "chain/SignedAmount.h"
#include "chain/U256.h"
#include "store/Database.h"
#include "store/Migrations.h"
#include "store/StoreError.h"

#include <QFile>
#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QSqlRecord>
#include <QTemporaryDir>
#include <QtTest>

using namespace forkscope;

namespace {

const QString kFixture = QStringLiteral(FORKSCOPE_TEST_DATA "/contract-v3.sqlite");
const QStringList kSurface{"blocks", "logs", "transfer_events", "token_balances", "outbox"};

// The contract's names as plain `sqlite3` reads them: QSQLITE without any function of ours.
class PlainReader
{
public:
    explicit PlainReader(const QString& path) : m_name("plain-" + path)
    {
        QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", m_name);
        db.setDatabaseName(path);
        db.setConnectOptions("QSQLITE_OPEN_READONLY");
        if (!db.open())
            qFatal("cannot open %s", qPrintable(path));
    }
    ~PlainReader() { QSqlDatabase::removeDatabase(m_name); }
    QStringList rows(const QString& sql) const
    {
        QSqlQuery q(QSqlDatabase::database(m_name));
        if (!q.exec(sql))
            qFatal("%s: %s", qPrintable(sql), qPrintable(q.lastError().text()));
        QStringList out;
        while (q.next()) {
            QStringList values;
            for (int i = 0; i < q.record().count(); ++i)
                values << (q.value(i).isNull() ? "NULL" : q.value(i).toString());
            out << values.join('|');
        }
        return out;
    }
    // Every row of every table and view, each prefixed with its name, sorted.
    QStringList everything() const
    {
        QStringList out;
        for (const QString& name :
             rows("SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name"))
            for (const QString& row : surface(name))
                out << name + ':' + row;
        return out;
    }
    // Every column of a contract name, in its declared order, sorted by the whole row.
    QStringList surface(const QString& name) const
    {
        QStringList lines = rows("SELECT * FROM " + name);
        lines.sort();
        return lines;
    }

private:
    QString m_name;
};

} // namespace

class TestMigration : public QObject
{
    Q_OBJECT
private slots:
    void v3FileReadsTheSameAfterMigration();
    void invariantsHoldAfterMigration();
    void damagedV3FileIsRefusedAndKept_data();
    void damagedV3FileIsRefusedAndKept();
    void aReadOnlyOpenOfAnOldFileSaysWhatToDo();

private:
    QTemporaryDir m_dir;
    QString copyOfFixture(const QString& name)
    {
        const QString path = m_dir.filePath(name);
        QFile::remove(path);
        if (!QFile::copy(kFixture, path))
            qFatal("cannot copy the fixture");
        QFile(path).setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
        return path;
    }
};

void TestMigration::v3FileReadsTheSameAfterMigration()
{
    const QString path = copyOfFixture("same.sqlite");
    QHash<QString, QStringList> before;
    QStringList columnsBefore;
    {
        PlainReader v3(path);
        QCOMPARE(v3.rows("SELECT max(version) FROM schema_version"), QStringList{"4"});
        for (const QString& name : kSurface) {
            before[name] = v3.surface(name);
            QVERIFY2(!before[name].isEmpty(), qPrintable(name)); // the fixture has every kind
            columnsBefore << v3.rows("SELECT group_concat(name) FROM pragma_table_info('" + name +
                                     "')");
        }
        // What makes the fixture worth migrating: rows of every shape contract v4 stores
        // differently.
        QCOMPARE(v3.rows("SELECT count(*) FROM outbox WHERE event_key LIKE 'retract:%'"),
                 QStringList{"12"});
        QCOMPARE(v3.rows("SELECT count(*) FROM logs WHERE decode_error IS NOT NULL"),
                 QStringList{"3"});
        QCOMPARE(v3.rows("SELECT count(*) FROM logs WHERE args_json IS NOT NULL"),
                 QStringList{"52"});
        QCOMPARE(v3.rows("SELECT count(*) FROM reorg_events"), QStringList{"2"});
    }
    const QStringList untouched{"environments",     "indexer_checkpoints", "reorg_events",
                                "reorg_diff_items", "completeness_alerts", "backfill_ranges"};
    QHash<QString, QStringList> untouchedBefore;
    {
        PlainReader v3(path);
        for (const QString& t : untouched)
            untouchedBefore[t] = v3.surface(t);
    }

    {
        auto db = store::Database::open(path); // a writable open migrates
        QCOMPARE(db->schemaVersion(), store::latestSchemaVersion());
    }

    PlainReader v4(path);
    QCOMPARE(v4.rows("SELECT max(version) FROM schema_version"),
             QStringList{QString::number(store::latestSchemaVersion())});
    QStringList columnsAfter;
    for (const QString& name : kSurface) {
        QCOMPARE(v4.rows("SELECT type FROM sqlite_master WHERE name = '" + name + "'"),
                 QStringList{"view"});
        QCOMPARE(v4.surface(name), before[name]);
        columnsAfter << v4.rows("SELECT group_concat(name) FROM pragma_table_info('" + name + "')");
    }
    QCOMPARE(columnsAfter, columnsBefore);
    // What `sqlite3 FILE "select block_hash from blocks limit 1"` prints.
    const QStringList hash = v4.rows("SELECT block_hash FROM blocks LIMIT 1");
    QCOMPARE(hash.size(), 1);
    QVERIFY(QRegularExpression("^0x[0-9a-f]{64}$").match(hash.first()).hasMatch());
    // Stored as BLOBs underneath, and the outbox keeps text only where no log renders it.
    QCOMPARE(v4.rows("SELECT DISTINCT typeof(block_hash), length(block_hash) FROM block_store"),
             QStringList{"blob|32"});
    QCOMPARE(v4.rows("SELECT count(*) FROM outbox_store WHERE payload IS NOT NULL"),
             QStringList{"24"}); // 12 retractions, 12 delivered rows whose block was reorged
    // Schema 8: every row stays stored (none reads as rendered, with no id), and the outbox
    // cursor starts past each environment's last log.
    QCOMPARE(v4.rows("SELECT count(*) FROM outbox WHERE id IS NULL"), QStringList{"0"});
    QCOMPARE(v4.rows("SELECT count(*) FROM outbox_cursor c WHERE block_number = (SELECT "
                     "max(block_number) + 1 FROM log_store l WHERE l.environment_id = "
                     "c.environment_id AND l.chain_id = c.chain_id)"),
             v4.rows("SELECT count(DISTINCT environment_id) FROM log_store"));
    // The tables contract v4 did not touch are as they were.
    for (const QString& t : untouched)
        QCOMPARE(v4.surface(t), untouchedBefore[t]);
    QVERIFY(!untouchedBefore["reorg_diff_items"].isEmpty());
    // Schema 6: the diff reads the same from a view over BLOBs; the dropped outbox rows that
    // named a log and stored no key render it from the block hash they keep.
    QCOMPARE(v4.rows("SELECT type FROM sqlite_master WHERE name = 'reorg_diff_items'"),
             QStringList{"view"});
    QCOMPARE(v4.rows("SELECT DISTINCT typeof(tx_hash), length(tx_hash) FROM reorg_diff_store "
                     "WHERE kind = 'transfer_removed'"),
             QStringList{"blob|32"});
    // Schema 7: rows recorded before it keep their outbox rows as rows of their own; the view
    // reads them as it did (the comparison above).
    QCOMPARE(v4.rows("SELECT count(*) FROM reorg_diff_store WHERE outbox_kind IS NOT NULL"),
             QStringList{"0"});
}

void TestMigration::invariantsHoldAfterMigration()
{
    const QString path = copyOfFixture("invariants.sqlite");
    store::Database::open(path).reset();
    PlainReader v4(path);
    const QStringList envs = v4.rows("SELECT environment_id || '|' || block_number || '|' || "
                                     "block_hash FROM indexer_checkpoints");
    QCOMPARE(envs.size(), 2);
    for (const QString& line : envs) {
        const QStringList cp = line.split('|');
        const QString env = cp[0];
        // 1. The stored blocks form one parent-hash chain ending at the checkpoint's hash,
        //    with nothing above it.
        QCOMPARE(v4.rows("SELECT count(*) FROM blocks WHERE environment_id = '" + env +
                         "' AND block_number > " + cp[1]),
                 QStringList{"0"});
        QCOMPARE(v4.rows("SELECT block_hash FROM blocks WHERE environment_id = '" + env +
                         "' AND block_number = " + cp[1]),
                 QStringList{cp[2]});
        QCOMPARE(v4.rows("SELECT count(*) FROM blocks c JOIN blocks p ON p.environment_id = "
                         "c.environment_id AND p.block_number = c.block_number - 1 WHERE "
                         "c.environment_id = '" +
                         env + "' AND c.parent_hash != p.block_hash"),
                 QStringList{"0"});
        // 2. Each transfer is one of the stored logs, with its parties in its topics.
        QCOMPARE(v4.rows("SELECT count(*) FROM transfer_events t LEFT JOIN logs l USING "
                         "(environment_id, chain_id, block_number, log_index) WHERE "
                         "t.environment_id = '" +
                         env +
                         "' AND (l.address IS NOT t.contract OR substr(l.topic1, 27) IS NOT "
                         "substr(t.from_addr, 3) OR substr(l.topic2, 27) IS NOT "
                         "substr(t.to_addr, 3))"),
                 QStringList{"0"});
        // 3. Each balance is the sum of its transfers (computed here, 256-bit exact).
        QHash<QString, chain::SignedAmount> sums;
        for (const QString& t : v4.rows("SELECT contract, from_addr, to_addr, value FROM "
                                        "transfer_events WHERE environment_id = '" +
                                        env + "'")) {
            const QStringList f = t.split('|');
            const chain::SignedAmount v(chain::u256::fromDecimal(f[3], "value"));
            const QString zero = "0x" + QString(40, '0');
            if (f[1] != zero)
                sums[f[0] + f[1]] -= v;
            if (f[2] != zero)
                sums[f[0] + f[2]] += v;
        }
        const QStringList balances = v4.rows("SELECT contract || holder, balance FROM "
                                             "token_balances WHERE environment_id = '" +
                                             env + "'");
        QCOMPARE(balances.size(), sums.size());
        for (const QString& b : balances) {
            const QStringList f = b.split('|');
            QVERIFY2(sums.contains(f[0]), qPrintable(b));
            QCOMPARE(chain::amount::toString(sums[f[0]]), f[1]);
        }
        // 4. Every outbox row has its key and payload; every Transfer row names a live log.
        QCOMPARE(v4.rows("SELECT count(*) FROM outbox WHERE environment_id = '" + env +
                         "' AND (event_key IS NULL OR payload IS NULL OR json_valid(payload) = 0)"),
                 QStringList{"0"});
        QCOMPARE(v4.rows("SELECT count(*) FROM outbox WHERE environment_id = '" + env +
                         "' AND delivered_at IS NULL AND block_number > " + cp[1]),
                 QStringList{"0"});
    }
}

void TestMigration::damagedV3FileIsRefusedAndKept_data()
{
    QTest::addColumn<QString>("damage");
    QTest::addColumn<QString>("message");
    QTest::newRow("a block hash that is not hex")
        << "UPDATE blocks SET block_hash = '0xnothex' WHERE block_number = 3"
        << "forkscope_unhex: not hex: 0xnothex";
    QTest::newRow("a transfer without its log")
        << "DELETE FROM logs WHERE rowid IN (SELECT l.rowid FROM logs l JOIN transfer_events t "
           "USING (environment_id, chain_id, block_number, log_index) LIMIT 1)"
        << "transfer_events: 1 of the v3 rows and 0 of the migrated rows differ";
    QTest::newRow("a transfer that is not its log")
        << "UPDATE transfer_events SET to_addr = '0x00000000000000000000000000000000000000aa' "
           "WHERE log_index = 0 AND block_number = 5"
        << "transfer_events: 2 of the v3 rows and 2 of the migrated rows differ";
    QTest::newRow("an uppercase hash")
        << "UPDATE logs SET tx_hash = upper(tx_hash) WHERE block_number = 4"
        << "logs: ";
}

void TestMigration::damagedV3FileIsRefusedAndKept()
{
    QFETCH(QString, damage);
    QFETCH(QString, message);
    const QString path = copyOfFixture(
        QStringLiteral("damaged-%1.sqlite").arg(QTest::currentDataTag()).replace(' ', '-'));
    {
        QSqlDatabase db = QSqlDatabase::addDatabase("QSQLITE", "damage");
        db.setDatabaseName(path);
        QVERIFY(db.open());
        QSqlQuery q(db);
        QVERIFY2(q.exec(damage), qPrintable(q.lastError().text()));
        QVERIFY(q.numRowsAffected() > 0);
        db.close();
    }
    QSqlDatabase::removeDatabase("damage");
    const QStringList before = PlainReader(path).everything();
    try {
        store::Database::open(path);
        QFAIL("a damaged v3 file was migrated");
    } catch (const store::StoreError& e) {
        QVERIFY2(e.message().contains(message), qPrintable(e.message()));
        QVERIFY2(e.message().startsWith("cannot migrate the database to schema 5"),
                 qPrintable(e.message()));
        QVERIFY2(e.message().endsWith("it was left unchanged at schema 4"),
                 qPrintable(e.message()));
        QVERIFY2(!e.message().contains('\n'), qPrintable(e.message()));
    }
    PlainReader v3(path);
    QCOMPARE(v3.everything(), before);
    QCOMPARE(v3.rows("SELECT max(version) FROM schema_version"), QStringList{"4"});
}

// `forkscope report` or `verify` on a file an older build wrote opens it read-only, which
// cannot migrate it: refused in one line that says how to migrate it, the file unchanged.
void TestMigration::aReadOnlyOpenOfAnOldFileSaysWhatToDo()
{
    const QString path = copyOfFixture(QStringLiteral("read-only.sqlite"));
    QFile before(path);
    QVERIFY(before.open(QIODevice::ReadOnly));
    const QByteArray bytes = before.readAll();
    before.close();
    store::Database::Options ro;
    ro.readOnly = true;
    try {
        store::Database::open(path, ro);
        QFAIL("a read-only open of a v3 file succeeded");
    } catch (const store::StoreError& e) {
        QCOMPARE(e.kind(), store::StoreError::Kind::ReadOnly);
        QVERIFY2(e.message().contains(QLatin1String("needs migrating")) &&
                     e.message().contains(QLatin1String("run forkscope index on it once")) &&
                     !e.message().contains(QLatin1Char('\n')),
                 qPrintable(e.message()));
    }
    QFile after(path);
    QVERIFY(after.open(QIODevice::ReadOnly));
    QVERIFY(after.readAll() == bytes);
}

QTEST_GUILESS_MAIN(TestMigration)
#include "tst_migration.moc"
