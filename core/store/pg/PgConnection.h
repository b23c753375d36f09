#pragma once

#include "PgResult.h"

#include <QByteArray>
#include <QHash>
#include <QList>
#include <QSet>
#include <QString>
#include <memory>

struct pg_conn;

namespace forkscope::store::pg {

// One libpq connection to the team database. Every statement that carries a
// value is prepared once per connection and run with parameters, never spliced into SQL
// text; exec() is for fixed text only (DDL, SET, BEGIN/COMMIT).
//
// Every connection sets deadlines, because a team database is across a network: a
// connect timeout, a statement timeout, a lock timeout, and TCP keepalives on both ends,
// so a peer that vanished (a killed process, a cut cable) is noticed in seconds and its
// session locks (the head follower's advisory lock) are released by the server.
class PgConnection
{
public:
    struct Options
    {
        int connectTimeoutS = 5;
        int statementTimeoutMs = 30'000;
        int lockTimeoutMs = 10'000;
        QString applicationName = QStringLiteral("forkscope");
    };

    // Throws PgError (Kind::Io) with the URL, password removed, and libpq's reason.
    static std::unique_ptr<PgConnection> open(const QString& url, const Options& options);
    static std::unique_ptr<PgConnection> open(const QString& url) { return open(url, Options{}); }
    ~PgConnection();
    PgConnection(const PgConnection&) = delete;
    PgConnection& operator=(const PgConnection&) = delete;

    // The URL without its password: what every message names.
    const QString& displayUrl() const { return m_displayUrl; }

    // Prepares `sql` under `name` on first use, then runs it. A null QByteArray is SQL NULL.
    PgResult run(const char* name, const char* sql, const QList<QByteArray>& params = {});
    // The same without waiting for it: one statement at a time, its result collected by
    // sentFinished() or awaitSent() before anything else runs on this connection.
    void send(const char* name, const char* sql, const QList<QByteArray>& params);
    // Whether what send() started is over (nothing sent counts as over); collects its
    // result when it is, throwing its error. Never waits.
    bool sentFinished();
    // Waits for what send() started and collects its result, throwing its error.
    PgResult awaitSent();
    // A statement without parameters and without a cached plan (DDL, BEGIN, COMMIT).
    PgResult exec(const char* sql);

    // COPY ... FROM STDIN in text format (the bulk path): `rows` are lines of tab-separated
    // fields built with PgCopyRows. Sent in chunks; the server's verdict is checked.
    void copyIn(const char* copySql, const QByteArray& rows);

    // LISTEN on a channel whose name is fixed text (not a value from outside).
    void listen(const char* channel);
    struct Notification
    {
        QByteArray channel;
        QByteArray payload;
        int senderPid = 0;
    };
    // The notifications that arrived, waiting up to `timeoutMs` for the first (0: only
    // what is already here). Throws PgError (Kind::Io) when the connection is gone.
    QList<Notification> notifications(int timeoutMs);

    void begin() { exec("BEGIN"); }
    void commit() { exec("COMMIT"); }
    void rollback() noexcept;
    bool inTransaction() const;

    // The server's process id for this session (pg_backend_pid()).
    int backendPid() const;

    // bytea parameter in text format.
    static QByteArray byteaParam(const QByteArray& bytes);

private:
    explicit PgConnection(pg_conn* conn, QString displayUrl);
    PgResult checked(struct pg_result* r, const QString& statement);
    void prepare(const char* name, const char* sql, int params);

    pg_conn* m_conn;
    QString m_displayUrl;
    QHash<QByteArray, QByteArray> m_prepared; // name -> its SQL text
    QByteArray m_sent;                        // the name of the statement send() started
};

// A transaction that rolls back unless committed: an exception between BEGIN and COMMIT
// leaves nothing half-written.
class PgTransaction
{
public:
    explicit PgTransaction(PgConnection& db) : m_db(db) { m_db.begin(); }
    ~PgTransaction()
    {
        if (!m_done)
            m_db.rollback();
    }
    void commit()
    {
        m_db.commit();
        m_done = true;
    }
    PgTransaction(const PgTransaction&) = delete;
    PgTransaction& operator=(const PgTransaction&) = delete;

private:
    PgConnection& m_db;
    bool m_done = false;
};

// "postgresql://..." or "postgres://..." (the forms --db accepts for the team backend).
bool isPostgresUrl(const QString& text);

} // namespace forkscope::store::pg
