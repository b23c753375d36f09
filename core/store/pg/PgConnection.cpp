#include "PgConnection.h"
#include "PgError.h"

#include <QRegularExpression>
#include <QUrl>
#include <libpq-fe.h>
#include <poll.h>

#include <vector>

namespace forkscope::store::pg {

namespace {

QString withoutPassword(const QString& url)
{
    return QUrl(url).toString(QUrl::RemovePassword);
}

// The server's verdict, as a StoreError kind a caller can act on.
StoreError::Kind kindOf(const QByteArray& sqlState)
{
    if (sqlState.startsWith("08") || sqlState == "57P01" || sqlState == "57P02" ||
        sqlState == "57P03")
        return StoreError::Kind::Io; // connection lost or server going away
    if (sqlState == "55P03" || sqlState == "40P01" || sqlState == "40001")
        return StoreError::Kind::Locked; // lock timeout, deadlock, serialization
    if (sqlState == "25006")
        return StoreError::Kind::ReadOnly;
    return StoreError::Kind::Query;
}

QString firstLine(const char* text)
{
    return QString::fromUtf8(text).trimmed().section(QLatin1Char('\n'), 0, 0);
}

} // namespace

bool isPostgresUrl(const QString& text)
{
    static const QRegularExpression re(QStringLiteral("^postgres(ql)?://"),
                                       QRegularExpression::CaseInsensitiveOption);
    return re.match(text).hasMatch();
}

std::unique_ptr<PgConnection> PgConnection::open(const QString& url, const Options& options)
{
    const QByteArray dbname = url.toUtf8();
    const QByteArray timeout = QByteArray::number(options.connectTimeoutS);
    const QByteArray app = options.applicationName.toUtf8();
    // Client-side keepalives: a server that vanished fails our next call within ~10 s.
    const char* keys[] = {
        "dbname",          "connect_timeout",     "application_name", "keepalives",
        "keepalives_idle", "keepalives_interval", "keepalives_count", nullptr};
    const char* values[] = {
        dbname.constData(), timeout.constData(), app.constData(), "1", "5", "2", "3", nullptr};
    pg_conn* c = PQconnectdbParams(keys, values, /*expand_dbname=*/1);
    if (!c || PQstatus(c) != CONNECTION_OK) {
        const QString why = c ? firstLine(PQerrorMessage(c)) : QStringLiteral("out of memory");
        if (c)
            PQfinish(c);
        throw PgError(StoreError::Kind::Io,
                      QStringLiteral("cannot connect to %1: %2").arg(withoutPassword(url), why));
    }
    std::unique_ptr<PgConnection> conn(new PgConnection(c, withoutPassword(url)));
    // Deadlines for every statement, and server-side keepalives: a client killed with -9
    // on another machine is noticed in about 9 s and its session's locks released. No JIT:
    // a scan of the contract views over 1M logs spent 0.3 of its 1.4 s compiling and ran in
    // 0.95 s without it (bench/README.md); our statements never run long enough to repay it.
    conn->exec(QStringLiteral("SET statement_timeout = %1; SET lock_timeout = %2; "
                              "SET tcp_keepalives_idle = 5; SET tcp_keepalives_interval = 2; "
                              "SET tcp_keepalives_count = 2; SET client_min_messages = warning; "
                              "SET jit = off")
                   .arg(options.statementTimeoutMs)
                   .arg(options.lockTimeoutMs)
                   .toUtf8()
                   .constData());
    return conn;
}

PgConnection::PgConnection(pg_conn* conn, QString displayUrl)
    : m_conn(conn), m_displayUrl(std::move(displayUrl))
{
}

PgConnection::~PgConnection()
{
    PQfinish(m_conn);
}

PgResult PgConnection::checked(pg_result* r, const QString& statement)
{
    const ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
        return PgResult(r, statement);
    const QByteArray state = r ? QByteArray(PQresultErrorField(r, PG_DIAG_SQLSTATE)) : QByteArray();
    const QString why = firstLine(r ? PQresultErrorMessage(r) : PQerrorMessage(m_conn));
    if (r)
        PQclear(r);
    const StoreError::Kind kind =
        PQstatus(m_conn) == CONNECTION_BAD ? StoreError::Kind::Io : kindOf(state);
    throw PgError(kind, QStringLiteral("%1 (%2): %3").arg(m_displayUrl, statement, why), state);
}

void PgConnection::prepare(const char* name, const char* sql, int params)
{
    const QByteArray key(name);
    const auto known = m_prepared.constFind(key);
    if (known == m_prepared.cend()) {
        checked(PQprepare(m_conn, name, sql, params, nullptr), QString::fromLatin1(name));
        m_prepared.insert(key, QByteArray(sql));
    } else if (*known != sql) {
        // A name stands for one text per connection: reused for another, the first text
        // would silently run with the new parameters.
        throw PgError(StoreError::Kind::Query,
                      QStringLiteral("%1: statement name %2 was prepared for other SQL")
                          .arg(m_displayUrl, QString::fromLatin1(name)));
    }
}

namespace {

std::vector<const char*> valuesOf(const QList<QByteArray>& params)
{
    std::vector<const char*> values;
    values.reserve(std::size_t(params.size()));
    for (const QByteArray& p : params)
        values.push_back(p.isNull() ? nullptr : p.constData());
    return values;
}

} // namespace

PgResult PgConnection::run(const char* name, const char* sql, const QList<QByteArray>& params)
{
    prepare(name, sql, int(params.size()));
    const std::vector<const char*> values = valuesOf(params);
    return checked(
        PQexecPrepared(m_conn, name, int(values.size()), values.data(), nullptr, nullptr, 0),
        QString::fromLatin1(name));
}

void PgConnection::send(const char* name, const char* sql, const QList<QByteArray>& params)
{
    if (!m_sent.isEmpty())
        throw PgError(StoreError::Kind::Query, QStringLiteral("%1: %2 sent while %3 runs")
                                                   .arg(m_displayUrl, QString::fromLatin1(name),
                                                        QString::fromLatin1(m_sent)));
    prepare(name, sql, int(params.size()));
    const std::vector<const char*> values = valuesOf(params);
    if (PQsendQueryPrepared(m_conn, name, int(values.size()), values.data(), nullptr, nullptr, 0) !=
        1)
        throw PgError(StoreError::Kind::Io, QStringLiteral("%1 (%2): %3")
                                                .arg(m_displayUrl, QString::fromLatin1(name),
                                                     firstLine(PQerrorMessage(m_conn))));
    m_sent = name;
}

bool PgConnection::sentFinished()
{
    if (m_sent.isEmpty())
        return true;
    if (PQconsumeInput(m_conn) != 1)
        awaitSent(); // the connection failed: its error
    if (PQisBusy(m_conn))
        return false;
    awaitSent();
    return true;
}

PgResult PgConnection::awaitSent()
{
    if (m_sent.isEmpty())
        throw PgError(
            StoreError::Kind::Query,
            QStringLiteral("%1: waiting for a statement none was sent").arg(m_displayUrl));
    const QString name = QString::fromLatin1(m_sent);
    m_sent.clear();
    pg_result* r = PQgetResult(m_conn);
    // One statement, one result; then the end of the command.
    while (pg_result* extra = r ? PQgetResult(m_conn) : nullptr)
        PQclear(extra);
    return checked(r, name);
}

PgResult PgConnection::exec(const char* sql)
{
    // PQexec, not PQexecParams: DDL and SET may come several to a string. None of it
    // carries a value from outside; those go through run().
    return checked(PQexec(m_conn, sql), QString::fromUtf8(sql).simplified().left(60));
}

void PgConnection::copyIn(const char* copySql, const QByteArray& rows)
{
    const QString what = QString::fromUtf8(copySql).section(QLatin1Char('('), 0, 0).trimmed();
    pg_result* start = PQexec(m_conn, copySql);
    if (!start || PQresultStatus(start) != PGRES_COPY_IN) {
        checked(start, what); // throws with the server's reason
        throw PgError(
            StoreError::Kind::Query,
            QStringLiteral("%1 (%2): the server did not enter COPY").arg(m_displayUrl, what));
    }
    PQclear(start);
    constexpr qsizetype kChunk = 256 * 1024;
    bool sent = true;
    for (qsizetype at = 0; at < rows.size() && sent; at += kChunk)
        sent = PQputCopyData(m_conn, rows.constData() + at,
                             int(std::min(kChunk, rows.size() - at))) == 1;
    if (PQputCopyEnd(m_conn, sent ? nullptr : "client failed to send the rows") != 1)
        throw PgError(StoreError::Kind::Io,
                      QStringLiteral("%1 (%2): %3")
                          .arg(m_displayUrl, what, firstLine(PQerrorMessage(m_conn))));
    // The COPY's own result, then the end of the command.
    checked(PQgetResult(m_conn), what);
    while (pg_result* extra = PQgetResult(m_conn))
        PQclear(extra);
}

void PgConnection::listen(const char* channel)
{
    exec(QByteArray("LISTEN " + QByteArray(channel)).constData());
}

QList<PgConnection::Notification> PgConnection::notifications(int timeoutMs)
{
    QList<Notification> out;
    const auto drain = [&] {
        if (PQconsumeInput(m_conn) != 1)
            throw PgError(StoreError::Kind::Io,
                          QStringLiteral("%1 (LISTEN): %2")
                              .arg(m_displayUrl, firstLine(PQerrorMessage(m_conn))));
        while (PGnotify* n = PQnotifies(m_conn)) {
            out.append({QByteArray(n->relname), QByteArray(n->extra), n->be_pid});
            PQfreemem(n);
        }
    };
    drain();
    if (out.isEmpty() && timeoutMs > 0) {
        pollfd fd{PQsocket(m_conn), POLLIN, 0};
        if (::poll(&fd, 1, timeoutMs) > 0)
            drain();
    }
    return out;
}

void PgConnection::rollback() noexcept
{
    if (PQtransactionStatus(m_conn) == PQTRANS_IDLE)
        return;
    if (pg_result* r = PQexec(m_conn, "ROLLBACK"))
        PQclear(r);
}

bool PgConnection::inTransaction() const
{
    const PGTransactionStatusType t = PQtransactionStatus(m_conn);
    return t == PQTRANS_INTRANS || t == PQTRANS_INERROR;
}

int PgConnection::backendPid() const
{
    return PQbackendPID(m_conn);
}

QByteArray PgConnection::byteaParam(const QByteArray& bytes)
{
    return QByteArrayLiteral("\\x") + bytes.toHex();
}

} // namespace forkscope::store::pg
