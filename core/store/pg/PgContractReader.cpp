#include "PgContractReader.h"
#include "PgConnection.h"
#include "PgContract.h"
#include "PgPendingOutbox.h"

#include <QCryptographicHash>
#include <limits>

namespace forkscope::store::pg {

namespace {
class PgRows : public ContractRows
{
public:
    explicit PgRows(PgResult r) : m_r(std::move(r)) {}
    bool next() override { return ++m_row < m_r.rows(); }
    int columns() const override { return m_r.columns(); }
    QVariant value(int column) const override
    {
        if (m_r.isNull(m_row, column))
            return {};
        return QString::fromUtf8(m_r.text(m_row, column));
    }

private:
    PgResult m_r;
    int m_row = -1;
};

QByteArray param(const QVariant& v)
{
    if (v.isNull())
        return {};
    // Text parameters: the server converts them to the column's type, as it would a literal.
    return v.toString().toUtf8();
}
} // namespace

QByteArray PgContractReader::numberedPlaceholders(const QString& sql)
{
    QByteArray out;
    int n = 0;
    bool quoted = false;
    for (const char c : sql.toUtf8()) {
        if (c == '\'')
            quoted = !quoted;
        if (c == '?' && !quoted)
            out += '$' + QByteArray::number(++n);
        else
            out += c;
    }
    return out;
}

std::unique_ptr<ContractRows> PgContractReader::query(const QString& sql, const QVariantList& args)
{
    const QByteArray text = numberedPlaceholders(sql);
    const QByteArray name =
        "cr_" + QCryptographicHash::hash(text, QCryptographicHash::Sha1).toHex().left(20);
    QList<QByteArray> params;
    for (const QVariant& a : args)
        params << param(a);
    return std::make_unique<PgRows>(m_db.run(name.constData(), text.constData(), params));
}

namespace {
class PgSnapshot : public ContractSnapshot
{
public:
    explicit PgSnapshot(PgConnection& db) : m_db(db)
    {
        if (!m_db.inTransaction()) {
            m_db.exec("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY");
            m_owned = true;
        }
    }
    ~PgSnapshot() override
    {
        if (m_owned)
            m_db.rollback();
    }

private:
    PgConnection& m_db;
    bool m_owned = false;
};
} // namespace

std::unique_ptr<ContractSnapshot> PgContractReader::snapshot()
{
    return std::make_unique<PgSnapshot>(m_db);
}

OutboxTally PgContractReader::outboxTally(const QString& environmentId, qint64 chainId)
{
    // The rows the outbox view shows (stored: those the checkpoint covers and those with
    // their own key, PgPendingOutbox.cpp's pgOutboxSelect; then the rendered ones), counted
    // on the tables without rendering every payload.
    const QByteArray env = environmentId.toUtf8();
    const QByteArray chain = QByteArray::number(chainId);
    // One statement, so one snapshot: a delivery round stores rendered rows meanwhile.
    static const QByteArray sql =
        "SELECT count(*) FILTER (WHERE delivered_at IS NULL AND failed_at IS NULL), count(*) "
        "FILTER (WHERE delivered_at IS NOT NULL), count(*) FILTER (WHERE delivered_at IS NULL "
        "AND failed_at IS NOT NULL), (SELECT p.block_number FROM outbox_store p WHERE "
        "p.environment_id = $1 AND p.chain_id = $2 AND p.delivered_at IS NULL AND p.failed_at "
        "IS NULL AND p.block_number <= (SELECT max(block_number) FROM checkpoint_store c WHERE "
        "c.environment_id = $1 AND c.chain_id = $2) ORDER BY p.block_number LIMIT 1), " +
        pgRenderedOutboxCountSql() + ", " + pgFirstRenderedOutboxBlockSql() +
        " FROM outbox_store o WHERE o.environment_id = $1 AND o.chain_id = $2 AND (" +
        pgOutboxStoredShownSql("$1", "$2") + ")";
    const PgResult q =
        m_db.run("cr_outbox_tally", sql.constData(),
                 {env, chain, QByteArray::number(std::numeric_limits<qint64>::max())});
    const qint64 rendered = q.int64(0, 4);
    OutboxTally t{q.int64(0, 0) + rendered, q.int64(0, 1), q.int64(0, 2), std::nullopt};
    qint64 oldest = q.isNull(0, 3) ? -1 : q.int64(0, 3);
    if (!q.isNull(0, 5) && (oldest < 0 || q.int64(0, 5) < oldest))
        oldest = q.int64(0, 5);
    if (oldest >= 0) {
        const PgResult b = m_db.run("cr_outbox_oldest_time",
                                    "SELECT block_timestamp FROM block_store WHERE "
                                    "environment_id = $1 AND chain_id = $2 AND block_number = $3",
                                    {env, chain, QByteArray::number(oldest)});
        if (b.rows() > 0)
            t.oldestPendingBlockTime = b.int64(0, 0);
    }
    return t;
}

QString PgContractReader::reorgDiffRecordedSql() const
{
    return QStringLiteral("SELECT d.id AS id, CASE d.kind WHEN 'transfer_removed' THEN 0 WHEN "
                          "'balance_changed' THEN 2 ELSE 1 END AS phase, ") +
           QString::fromLatin1(pgReorgDiffColumnsSql()) +
           QStringLiteral(" FROM reorg_diff_store d");
}

QString PgContractReader::describe() const
{
    return m_db.displayUrl();
}

} // namespace forkscope::store::pg
