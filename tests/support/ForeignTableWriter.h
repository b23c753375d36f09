#pragma once
// Another indexer's Transfer table, written by a test from the node's logs into a SQLite
// file or a PostgreSQL database (the store as a data row): what tst_foreignaudit audits and
// tst_foreignwatch watches.
#include "indexer/TransferDecoder.h"
#include "rpc/EthClient.h"
#include "store/pg/PgConnection.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QtTest>
#include <variant>

namespace forkscope::test {

// One row of a foreign table, every column as text (the writer encodes it per layout).
struct ForeignTableRow
{
    QString id;
    std::uint64_t block = 0;
    QString blockHash;
    std::uint64_t logIndex = 0;
    QString txHash;
    QString contract;
    QString from;
    QString to;
    QString value;
};

inline QString sqlText(const QString& s)
{
    return QStringLiteral("'%1'").arg(QString(s).replace(QLatin1Char('\''), QStringLiteral("''")));
}

// The node's Transfers of `token`, as a correct indexer would store them.
inline QList<ForeignTableRow> nodeTransferRows(rpc::EthClient& eth, const QString& token)
{
    const std::uint64_t head = eth.latestBlock()->number;
    rpc::LogFilter f =
        rpc::LogFilter::range(0, head, {chain::Address::fromHex(token, QStringLiteral("token"))});
    QList<ForeignTableRow> rows;
    for (const chain::LogEntry& log : eth.getLogs(f)) {
        const auto d = indexer::decodeTransfer(log);
        const auto* t = std::get_if<indexer::Transfer>(&d);
        if (!t)
            continue;
        ForeignTableRow r;
        r.id = QStringLiteral("%1-%2").arg(log.blockNumber).arg(log.logIndex);
        r.block = log.blockNumber;
        r.blockHash = log.blockHash.toHex();
        r.logIndex = log.logIndex;
        r.txHash = log.transactionHash.toHex();
        r.contract = t->contract.toHex();
        r.from = t->from.toHex();
        r.to = t->to.toHex();
        r.value = chain::u256::toDecimal(t->value);
        rows << r;
    }
    return rows;
}

// Runs `sql` on the database as the other indexer would write it.
inline void runForeignSql(const QString& db, const QStringList& sql)
{
    if (store::pg::isPostgresUrl(db)) {
        auto pg = store::pg::PgConnection::open(db);
        for (const QString& s : sql)
            pg->exec(s.toUtf8().constData());
        return;
    }
    {
        QSqlDatabase sqlite =
            QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), QStringLiteral("foreign"));
        sqlite.setDatabaseName(db);
        QVERIFY(sqlite.open());
        QSqlQuery q(sqlite);
        for (const QString& s : sql)
            QVERIFY2(q.exec(s), qPrintable(q.lastError().text() + QStringLiteral(": ") + s));
    }
    QSqlDatabase::removeDatabase(QStringLiteral("foreign"));
}

// `table` in the generic layout: addresses as hex text and hashes as bytes in SQLite,
// bytea and numeric on PostgreSQL (the encodings an indexer may choose differ per store).
inline void writeGenericTable(const QString& db, const QString& table,
                              const QList<ForeignTableRow>& rows)
{
    const bool pg = store::pg::isPostgresUrl(db);
    const auto bytes = [&](const QString& hex) {
        return pg ? QStringLiteral("'\\x%1'::bytea").arg(hex.mid(2))
                  : QStringLiteral("X'%1'").arg(hex.mid(2));
    };
    QStringList values;
    for (const ForeignTableRow& r : rows)
        values << QStringLiteral("(%1, %2, %3, %4, %5, %6, %7, %8, %9)")
                      .arg(sqlText(r.id))
                      .arg(r.block)
                      .arg(sqlText(r.blockHash))
                      .arg(r.logIndex)
                      .arg(bytes(r.txHash), sqlText(r.contract),
                           pg ? bytes(r.from) : sqlText(r.from),
                           sqlText(
                               r.to.toUpper().replace(QStringLiteral("0X"), QStringLiteral("0x"))),
                           pg ? r.value : sqlText(r.value));
    // One transaction: a reader never sees the table missing or half written.
    QStringList sql{QStringLiteral("BEGIN"), QStringLiteral("DROP TABLE IF EXISTS %1").arg(table),
                    QStringLiteral("CREATE TABLE %1 (id TEXT, block_number BIGINT, block_hash "
                                   "TEXT, log_index BIGINT, tx_hash %2, contract TEXT, \"from\" "
                                   "%2, \"to\" TEXT, value %3)")
                        .arg(table, pg ? QStringLiteral("BYTEA") : QStringLiteral("BLOB"),
                             pg ? QStringLiteral("NUMERIC(78)") : QStringLiteral("TEXT"))};
    if (!values.isEmpty())
        sql << QStringLiteral("INSERT INTO %1 VALUES %2")
                   .arg(table, values.join(QStringLiteral(", ")));
    sql << QStringLiteral("COMMIT");
    runForeignSql(db, sql);
}

} // namespace forkscope::test
