// The PostgreSQL store layer against a throwaway cluster: COPY rows in text
// format survive every awkward byte, replies are checked like a node's (a bytea of the
// wrong size, a NULL, a missing column are errors naming the field), the contract's
// hex views show only what the checkpoint covers, a newer contract is refused, and a v18
// outbox (every Transfer's row stored) migrates to rows rendered from their logs.
#include "chain/Keccak.h"
#include "coord/PrefixCheckpoint.h"
#include "lab/PgLab.h"
#include "store/pg/PgBalances.h"
#include "store/pg/PgBinaryRows.h"
#include "store/pg/PgConnection.h"
#include "store/pg/PgContract.h"
#include "store/pg/PgContractReader.h"
#include "store/pg/PgCopyRows.h"
#include "store/pg/PgError.h"
#include "store/pg/PgOutboxQueue.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

using namespace forkscope;
using namespace store::pg;

namespace {

// A block's hash in a chain named by `seed`.
chain::Hash32 blockHash(const char* seed, int n)
{
    return chain::keccak256(seed + QByteArray::number(n));
}

// Blocks 0-5 of environment `env` into block_store, linked by their parent hashes.
void copySixBlocks(PgConnection& db, const QByteArray& env, const char* seed)
{
    PgCopyRows blocks;
    for (int n = 0; n < 6; ++n) {
        blocks.text(env).integer(31337).integer(n).bytea(blockHash(seed, n).toByteArray());
        blocks.bytea((n ? blockHash(seed, n - 1) : chain::Hash32()).toByteArray())
            .integer(1000 + n)
            .endRow();
    }
    db.copyIn("COPY block_store (environment_id, chain_id, block_number, block_hash, "
              "parent_hash, block_timestamp) FROM STDIN",
              blocks.data());
}

} // namespace

class TestPgStore : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase();
    void copyRoundTrip_data();
    void copyRoundTrip();
    void aBackfillFoldsOnceAboutEnoughWait_data();
    void aBackfillFoldsOnceAboutEnoughWait();
    void binaryNumericRoundTrip_data();
    void binaryNumericRoundTrip();
    void copyOfABadRowFailsWholeAndNamesIt();
    void repliesAreChecked();
    void aStatementNameStandsForOneText();
    void aSessionIsSetUpForShortStatements_data();
    void aSessionIsSetUpForShortStatements();
    void placeholdersAreNumberedOutsideQuotes();
    void viewsShowOnlyWhatTheCheckpointCovers();
    void checkpointMovesAreAnnouncedAtCommit();
    void newerContractIsRefused();
    void aV18OutboxKeepsItsRowsAndRendersNewOnes();
    void aV20FoldWaitingKeepsItsBalances();

private:
    lab::PgLab m_cluster;
    std::unique_ptr<PgConnection> m_db;
};

void TestPgStore::aSessionIsSetUpForShortStatements_data()
{
    QTest::addColumn<QByteArray>("setting");
    QTest::addColumn<QByteArray>("value");
    // A statement or a lock wait that hangs fails with a reason rather than hang the engine.
    QTest::newRow("statement deadline") << QByteArray("statement_timeout") << QByteArray("30s");
    QTest::newRow("lock deadline") << QByteArray("lock_timeout") << QByteArray("10s");
    // A client killed with -9 elsewhere is noticed and its locks released in about 9 s.
    QTest::newRow("keepalive idle") << QByteArray("tcp_keepalives_idle") << QByteArray("5");
    QTest::newRow("keepalive count") << QByteArray("tcp_keepalives_count") << QByteArray("2");
    // No JIT: compiling cost a scan of the views more than it saved (PgConnection::open).
    QTest::newRow("no JIT") << QByteArray("jit") << QByteArray("off");
}

void TestPgStore::aSessionIsSetUpForShortStatements()
{
    QFETCH(QByteArray, setting);
    QFETCH(QByteArray, value);
    QCOMPARE(m_db->run("t_setting", "SELECT current_setting($1)", {setting}).text(0, 0), value);
}

void TestPgStore::aStatementNameStandsForOneText()
{
    QCOMPARE(m_db->run("t_one", "SELECT 1").text(0, 0), QByteArray("1"));
    QCOMPARE(m_db->run("t_one", "SELECT 1").text(0, 0), QByteArray("1"));
    try {
        m_db->run("t_one", "SELECT 2");
        QFAIL("a name reused for other SQL ran");
    } catch (const store::pg::PgError& e) {
        QVERIFY2(e.message().contains("t_one") && !e.message().contains('\n'),
                 qPrintable(e.message()));
    }
}

void TestPgStore::placeholdersAreNumberedOutsideQuotes()
{
    QCOMPARE(store::pg::PgContractReader::numberedPlaceholders(
                 QStringLiteral("a = ? AND b LIKE ? ESCAPE '\\' AND c = '?' AND d = ?")),
             QByteArray("a = $1 AND b LIKE $2 ESCAPE '\\' AND c = '?' AND d = $3"));
    store::pg::PgContractReader reader(*m_db);
    const auto rows = reader.query(QStringLiteral("SELECT ?::text || '?', ?::bigint + 1"),
                                   {QStringLiteral("x"), 41});
    QVERIFY(rows->next());
    QCOMPARE(rows->columns(), 2);
    QCOMPARE(rows->value(0).toString(), QStringLiteral("x?"));
    QCOMPARE(rows->value(1).toLongLong(), 42);
    QVERIFY(!rows->next());
}

void TestPgStore::initTestCase()
{
    m_cluster.start();
    m_db = PgConnection::open(m_cluster.url());
    ensurePgContract(*m_db);
    ensurePgContract(*m_db); // idempotent
    m_db->exec(
        "CREATE TABLE copy_probe (id bigint PRIMARY KEY, t text, b bytea, n numeric(78, 0))");
}

void TestPgStore::copyRoundTrip_data()
{
    QTest::addColumn<bool>("binary");
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<bool>("textIsNull");
    for (const bool binary : {false, true}) {
        const auto row = [binary](const char* name) -> QTestData& {
            return QTest::newRow(qPrintable(QStringLiteral("%1, %2").arg(
                       QLatin1String(binary ? "binary" : "text"), QLatin1String(name))))
                   << binary;
        };
        row("plain") << QByteArray("Transfer") << QByteArray("\x01\x02", 2) << false;
        row("tab, newline, return") << QByteArray("a\tb\nc\rd") << QByteArray(32, '\xff') << false;
        row("backslashes and \\N literally")
            << QByteArray("\\N \\x00 C:\\path\\") << QByteArray("\\x", 2) << false;
        row("utf-8") << QByteArray("caf\xc3\xa9 \xe2\x82\xac") << QByteArray() << false;
        row("NULL text, zero bytes") << QByteArray() << QByteArray(20, '\0') << true;
    }
}

void TestPgStore::copyRoundTrip()
{
    QFETCH(bool, binary);
    QFETCH(QByteArray, text);
    QFETCH(QByteArray, bytes);
    QFETCH(bool, textIsNull);
    static qint64 id = 0;
    ++id;
    // The same fields in either format; only the id's differs by name.
    const auto fill = [&](auto& rows) {
        if (textIsNull)
            rows.null();
        else
            rows.text(text);
        rows.bytea(bytes);
        rows.endRow();
        QCOMPARE(rows.rows(), 1);
    };
    if (binary) {
        PgBinaryRows rows(3);
        rows.int8(id);
        fill(rows);
        rows.finish();
        m_db->copyIn("COPY copy_probe (id, t, b) FROM STDIN (FORMAT binary)", rows.data());
    } else {
        PgCopyRows rows;
        rows.integer(id);
        fill(rows);
        m_db->copyIn("COPY copy_probe (id, t, b) FROM STDIN", rows.data());
    }
    const PgResult r =
        m_db->run("t_probe", "SELECT t, b FROM copy_probe WHERE id = $1", {QByteArray::number(id)});
    QCOMPARE(r.isNull(0, 0), textIsNull);
    if (!textIsNull)
        QCOMPARE(r.text(0, 0), text);
    QCOMPARE(r.bytes(0, 1, int(bytes.size())), bytes);
}

void TestPgStore::aBackfillFoldsOnceAboutEnoughWait_data()
{
    QTest::addColumn<bool>("atTheHead");
    QTest::addColumn<qint64>("folded");
    QTest::addColumn<qint64>("upTo");
    QTest::addColumn<qint64>("transfers"); // the batch's
    QTest::addColumn<qint64>("blocks");
    QTest::addColumn<qint64>("counted");
    QTest::addColumn<bool>("folds");
    // 1,000 Transfers to wait for.
    QTest::newRow("at the head, one Transfer")
        << true << 99LL << 100LL << 1LL << 1LL << 1LL << true;
    QTest::newRow("nothing waits") << false << 100LL << 100LL << 0LL << 1LL << 0LL << true;
    QTest::newRow("100 blocks of 9 waiting")
        << false << 0LL << 100LL << 90LL << 10LL << 900LL << false;
    QTest::newRow("100 blocks of 10 waiting")
        << false << 0LL << 100LL << 100LL << 10LL << 900LL << true;
    QTest::newRow("sparse now, 1,000 counted before")
        << false << 0LL << 100LL << 0LL << 10LL << 1000LL << true;
    QTest::newRow("a billion blocks, a thousand Transfers each")
        << false << 0LL << 1'000'000'000LL << 1000LL << 1LL << 0LL << true;
    QTest::newRow("no blocks said: as one") << false << 0LL << 10LL << 100LL << 0LL << 0LL << true;
}

void TestPgStore::aBackfillFoldsOnceAboutEnoughWait()
{
    QFETCH(bool, atTheHead);
    QFETCH(qint64, folded);
    QFETCH(qint64, upTo);
    QFETCH(qint64, transfers);
    QFETCH(qint64, blocks);
    QFETCH(qint64, counted);
    QFETCH(bool, folds);
    QCOMPARE(foldsNow(atTheHead, folded, upTo, {transfers, blocks, counted}, 1000), folds);
}

void TestPgStore::binaryNumericRoundTrip_data()
{
    QTest::addColumn<QByteArray>("decimal");
    QTest::newRow("zero") << QByteArray("0");
    QTest::newRow("one") << QByteArray("1");
    QTest::newRow("one digit of 10000, full") << QByteArray("9999");
    QTest::newRow("two digits, the last zero") << QByteArray("10000");
    QTest::newRow("trailing zero digits") << QByteArray("1000000000000");
    QTest::newRow("a zero digit inside") << QByteArray("500000007");
    QTest::newRow("2^64 - 1") << QByteArray("18446744073709551615");
    QTest::newRow("2^64") << QByteArray("18446744073709551616");
    QTest::newRow("2^128 - 1") << QByteArray("340282366920938463463374607431768211455");
    QTest::newRow("2^128, past the native split")
        << QByteArray("340282366920938463463374607431768211456");
    QTest::newRow("10^40, trailing zero digits past it")
        << QByteArray("10000000000000000000000000000000000000000");
    QTest::newRow("2^256 - 1") << QByteArray(
        "115792089237316195423570985008687907853269984665640564"
        "039457584007913129639935");
}

void TestPgStore::binaryNumericRoundTrip()
{
    QFETCH(QByteArray, decimal);
    static qint64 id = 5000;
    ++id;
    PgBinaryRows rows(2);
    rows.int8(id).numeric(chain::u256::fromDecimal(QString::fromLatin1(decimal), {})).endRow();
    rows.finish();
    m_db->copyIn("COPY copy_probe (id, n) FROM STDIN (FORMAT binary)", rows.data());
    const PgResult r = m_db->run("t_probe_numeric",
                                 "SELECT n::text, n = $2::numeric FROM copy_probe WHERE id = $1",
                                 {QByteArray::number(id), decimal});
    QCOMPARE(r.text(0, 0), decimal);
    QCOMPARE(r.text(0, 1), QByteArray("t"));
}

void TestPgStore::copyOfABadRowFailsWholeAndNamesIt()
{
    const qint64 before = m_db->exec("SELECT count(*) FROM copy_probe").int64(0, 0);
    PgCopyRows rows;
    rows.integer(1000).text("fine").bytea(QByteArray("x")).endRow();
    rows.integer(1000).text("same key").bytea(QByteArray("y")).endRow(); // duplicate key
    try {
        m_db->copyIn("COPY copy_probe (id, t, b) FROM STDIN", rows.data());
        QFAIL("a COPY with a duplicate key succeeded");
    } catch (const PgError& e) {
        QCOMPARE(e.sqlState(), QByteArray("23505"));
        QVERIFY2(e.message().contains("COPY copy_probe"), qPrintable(e.message()));
        QVERIFY(!e.message().contains(QLatin1Char('\n')));
    }
    QCOMPARE(m_db->exec("SELECT count(*) FROM copy_probe").int64(0, 0), before); // none of it
}

void TestPgStore::repliesAreChecked()
{
    const PgResult r = m_db->exec("SELECT '\\x0102'::bytea AS short_hash, NULL::bytea AS "
                                  "nothing, 'seven' AS word");
    const auto expectError = [](const std::function<void()>& f, const char* mention) {
        try {
            f();
            QFAIL("no error");
        } catch (const PgError& e) {
            QVERIFY2(e.message().contains(QLatin1String(mention)), qPrintable(e.message()));
        }
    };
    expectError([&] { r.bytes(0, 0, 32); }, "short_hash) holds 2 bytes; 32 were expected");
    expectError([&] { r.bytes(0, 1, 32); }, "nothing) holds NULL, not bytes; 32 were expected");
    expectError([&] { r.int64(0, 2); }, "(word) is \"seven\", not an integer");
    expectError([&] { r.text(1, 0); }, "row 1, column 0 was expected");
    expectError([&] { r.text(0, 3); }, "row 0, column 3 was expected");
}

void TestPgStore::viewsShowOnlyWhatTheCheckpointCovers()
{
    const QByteArray env = "views";
    const auto hash = [](int n) { return blockHash("b", n); };
    copySixBlocks(*m_db, env, "b");
    const auto visible = [&] {
        return m_db
            ->run("t_visible", "SELECT count(*) FROM blocks WHERE environment_id = $1", {env})
            .int64(0, 0);
    };
    QCOMPARE(visible(), 0); // no checkpoint: nothing indexed
    coord::PrefixCheckpoint cp(*m_db, QString::fromLatin1(env), 31337, QStringLiteral("default"));
    cp.initialise(3, hash(3));
    QCOMPARE(visible(), 4); // blocks 0..3; 4 and 5 exist but are above the checkpoint
    const QByteArray shown = m_db->run("t_hex",
                                       "SELECT block_hash FROM blocks WHERE environment_id = $1 "
                                       "AND block_number = 3",
                                       {env})
                                 .text(0, 0);
    QCOMPARE(QString::fromLatin1(shown), hash(3).toHex()); // lowercase 0x hex, as in SQLite
}

void TestPgStore::checkpointMovesAreAnnouncedAtCommit()
{
    auto listener = PgConnection::open(m_cluster.url());
    listener->listen(kCheckpointChannel);
    const QByteArray env = "notified";
    const auto hash = [](int n) { return chain::keccak256("n" + QByteArray::number(n)); };
    const auto next = [&](int timeoutMs) {
        const QList<PgConnection::Notification> n = listener->notifications(timeoutMs);
        return n.isEmpty() ? QJsonObject() : QJsonDocument::fromJson(n.last().payload).object();
    };
    coord::PrefixCheckpoint cp(*m_db, QString::fromLatin1(env), 31337, QStringLiteral("default"));
    m_db->begin();
    cp.initialise(10, hash(10));
    QVERIFY(next(200).isEmpty()); // not before the commit
    m_db->commit();
    QJsonObject n = next(5000);
    QCOMPARE(n.value("env").toString(), QString::fromLatin1(env));
    QCOMPARE(n.value("chainId").toInteger(), 31337);
    QCOMPARE(n.value("block").toInteger(), 10);
    QCOMPARE(n.value("hash").toString(), hash(10).toHex());
    QCOMPARE(n.value("reorg").toBool(), false);
    // A move that rolls back is never announced.
    m_db->begin();
    m_db->run("t_cp_move",
              "UPDATE checkpoint_store SET block_number = 12, block_hash = $2 "
              "WHERE environment_id = $1",
              {env, PgConnection::byteaParam(hash(12).toByteArray())});
    m_db->rollback();
    QVERIFY(next(300).isEmpty());
    // A move backwards is a reorg.
    m_db->run("t_cp_back",
              "UPDATE checkpoint_store SET block_number = 7, block_hash = $2 "
              "WHERE environment_id = $1",
              {env, PgConnection::byteaParam(hash(7).toByteArray())});
    n = next(5000);
    QCOMPARE(n.value("block").toInteger(), 7);
    QCOMPARE(n.value("reorg").toBool(), true);
}

void TestPgStore::newerContractIsRefused()
{
    auto other = PgConnection::open(m_cluster.url());
    other->exec("INSERT INTO schema_version (version, description) VALUES (99, 'future')");
    try {
        ensurePgContract(*other);
        QFAIL("a newer contract was accepted");
    } catch (const PgError& e) {
        QCOMPARE(e.kind(), store::StoreError::Kind::NewerSchema);
        QVERIFY2(e.message().contains("version 99") && e.message().contains("upgrade Forkscope"),
                 qPrintable(e.message()));
    }
    other->exec("DELETE FROM schema_version WHERE version = 99");
    ensurePgContract(*other); // and with it gone, the same database is fine again
}

void TestPgStore::aV18OutboxKeepsItsRowsAndRendersNewOnes()
{
    const QByteArray env = "v18";
    const auto hash = [](int n) { return blockHash("m", n); };
    const auto count = [&](const char* name, const char* sql) {
        return m_db->run(name, sql, {env}).int64(0, 0);
    };
    copySixBlocks(*m_db, env, "m");
    const QByteArray transferTopic =
        chain::keccak256("Transfer(address,address,uint256)").toByteArray();
    const auto transfer = [&](PgCopyRows& rows, int block, int logIndex) {
        rows.text(env).integer(31337).integer(block).integer(logIndex);
        rows.bytea(hash(block).toByteArray()).bytea(hash(100 + block).toByteArray());
        rows.bytea(QByteArray(20, '\x11')).bytea(transferTopic);
        rows.bytea(QByteArray(12, '\0') + QByteArray(20, '\x22'));
        rows.bytea(QByteArray(12, '\0') + QByteArray(20, '\x33'));
        rows.null().bytea(QByteArray(31, '\0') + '\x07').null().text("7").null().null().endRow();
    };
    const char* const copyLogs =
        "COPY log_store (environment_id, chain_id, block_number, log_index, block_hash, tx_hash, "
        "address, topic0, topic1, topic2, topic3, data, decode_error, transfer_value, "
        "event_name, args_json) FROM STDIN";
    // As v18 stored them: a Transfer in each of blocks 1-4, each with its outbox row.
    PgCopyRows logs, outboxRows;
    for (int n = 1; n <= 4; ++n) {
        transfer(logs, n, 0);
        outboxRows.text(env).integer(31337).integer(n).integer(0).endRow();
    }
    m_db->copyIn(copyLogs, logs.data());
    m_db->copyIn("COPY outbox_store (environment_id, chain_id, block_number, log_index) FROM "
                 "STDIN",
                 outboxRows.data());
    coord::PrefixCheckpoint cp(*m_db, QString::fromLatin1(env), 31337, QStringLiteral("default"));
    cp.initialise(3, hash(3));
    // Back to v18, which had no cursor (v20's steps are idempotent: run again).
    m_db->exec("DROP TABLE outbox_cursor");
    m_db->exec("DELETE FROM schema_version WHERE version >= 19");
    ensurePgContract(*m_db);
    QCOMPARE(m_db->exec("SELECT max(version) FROM schema_version").int64(0, 0),
             qint64(kPgContractVersion));
    // Every Transfer the checkpoint covered has its row: the cursor starts just past it.
    QCOMPARE(
        count("t_v18_cursor", "SELECT block_number FROM outbox_cursor WHERE environment_id = $1"),
        4);
    // The view shows what it showed: the three stored rows the checkpoint covers, pending,
    // not yet touched.
    QCOMPARE(count("t_v18_shown", "SELECT count(*) FROM outbox WHERE environment_id = $1 AND "
                                  "id IS NULL AND delivered_at IS NULL"),
             3);
    // Transfers indexed since have no stored row: rendered from their logs.
    PgCopyRows later;
    transfer(later, 4, 1);
    transfer(later, 5, 0);
    m_db->copyIn(copyLogs, later.data());
    m_db->run("t_v18_cp",
              "UPDATE checkpoint_store SET block_number = 5, block_hash = $2 WHERE "
              "environment_id = $1",
              {env, PgConnection::byteaParam(hash(5).toByteArray())});
    QCOMPARE(count("t_v18_all", "SELECT count(*) FROM outbox WHERE environment_id = $1"), 6);
    QCOMPARE(count("t_v18_stored", "SELECT count(*) FROM outbox_store WHERE environment_id = $1"),
             4);
    // Delivery takes them all in order, each stored first so that it has an id.
    PgOutboxQueue queue(m_cluster.url(), QString::fromLatin1(env), 31337, QStringLiteral("t"));
    QCOMPARE(queue.pendingAtOrBelow(5), 6);
    QCOMPARE(queue.pendingAtOrBelow(4), 5);
    std::optional<outbox::OutboxRow> orphan;
    const QList<outbox::OutboxRow> rows = queue.next(5, 100, &orphan);
    QVERIFY(!orphan);
    QStringList positions;
    QSet<qint64> ids;
    for (const outbox::OutboxRow& r : rows) {
        const QStringList key = r.eventKey.split(u':');
        QCOMPARE(key.value(2), hash(int(r.blockNumber)).toHex());
        positions << key.value(1) + '/' + key.value(3);
        ids.insert(r.id);
    }
    QCOMPARE(positions, (QStringList{"1/0", "2/0", "3/0", "4/0", "4/1", "5/0"}));
    QCOMPARE(ids.size(), 6);
    QVERIFY(!ids.contains(0));
    QCOMPARE(count("t_v18_stored", "SELECT count(*) FROM outbox_store WHERE environment_id = $1"),
             6);
    QCOMPARE(
        count("t_v18_cursor", "SELECT block_number FROM outbox_cursor WHERE environment_id = $1"),
        6);
    queue.markDelivered(rows);
    QCOMPARE(queue.pendingAtOrBelow(5), 0);
}

void TestPgStore::aV20FoldWaitingKeepsItsBalances()
{
    // As v20 left an environment during a backfill: Transfers of 7 minted to one holder in
    // blocks 1-5, the checkpoint at 5, balance_store holding those up to block 2 and
    // checkpoint_store.balances_block saying so.
    const QByteArray env = "v20";
    copySixBlocks(*m_db, env, "f");
    const QByteArray transferTopic =
        chain::keccak256("Transfer(address,address,uint256)").toByteArray();
    const QByteArray holder(20, '\x33');
    PgCopyRows logs;
    for (int n = 1; n <= 5; ++n) {
        logs.text(env).integer(31337).integer(n).integer(0);
        logs.bytea(blockHash("f", n).toByteArray()).bytea(blockHash("f", 100 + n).toByteArray());
        logs.bytea(QByteArray(20, '\x11')).bytea(transferTopic).bytea(QByteArray(32, '\0'));
        logs.bytea(QByteArray(12, '\0') + holder).null();
        logs.bytea(QByteArray(31, '\0') + '\x07').null().text("7").endRow();
    }
    m_db->copyIn("COPY log_store (environment_id, chain_id, block_number, log_index, "
                 "block_hash, tx_hash, address, topic0, topic1, topic2, topic3, data, "
                 "decode_error, transfer_value) FROM STDIN",
                 logs.data());
    coord::PrefixCheckpoint cp(*m_db, QString::fromLatin1(env), 31337, QStringLiteral("default"));
    cp.initialise(5, blockHash("f", 5));
    m_db->run(
        "t_v20_stored",
        "INSERT INTO balance_store (environment_id, chain_id, contract, holder, balance, "
        "updated_at_block, transfer_sides) VALUES ($1, 31337, $2, $3, 14, 2, 2)",
        {env, PgConnection::byteaParam(QByteArray(20, '\x11')), PgConnection::byteaParam(holder)});
    m_db->exec("ALTER TABLE checkpoint_store ADD COLUMN balances_block bigint");
    m_db->run("t_v20_block",
              "UPDATE checkpoint_store SET balances_block = 2 WHERE environment_id = $1", {env});
    m_db->exec("DELETE FROM schema_version WHERE version >= 21");
    ensurePgContract(*m_db);

    QCOMPARE(m_db->exec("SELECT max(version) FROM schema_version").int64(0, 0),
             qint64(kPgContractVersion));
    QCOMPARE(m_db->run("t_v20_moved",
                       "SELECT balances_block, epoch FROM balance_fold_store WHERE environment_id "
                       "= $1",
                       {env})
                 .int64(0, 0),
             2);
    QCOMPARE(m_db->exec("SELECT count(*) FROM information_schema.columns WHERE table_name = "
                        "'checkpoint_store' AND column_name = 'balances_block'")
                 .int64(0, 0),
             0);
    // The balance is what it was: the two stored Transfers and the three waiting, once.
    const PgResult b = m_db->run("t_v20_balance",
                                 "SELECT holder, balance, updated_at_block, transfer_sides FROM "
                                 "token_balances WHERE environment_id = $1",
                                 {env});
    QCOMPARE(b.rows(), 1);
    QCOMPARE(b.text(0, 0), "0x" + holder.toHex());
    QCOMPARE(b.text(0, 1), QByteArray("35"));
    QCOMPARE(b.int64(0, 2), 5);
    QCOMPARE(b.int64(0, 3), 5);
}

QTEST_GUILESS_MAIN(TestPgStore)
#include "tst_pgstore.moc"
