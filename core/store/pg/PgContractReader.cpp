#include "PgContractReader.h"
#include "PgConnection.h"
#include "PgContract.h"

#include <QCryptographicHash>

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

std::optional<CheckpointFacts> PgContractReader::checkpoint(const QString& environmentId,
                                                            qint64 chainId, const QString& sourceId)
{
    // The backfill starts the checkpoint just below its first range, so the first block
    // indexed is the lowest range's first block.
    static const QByteArray sql =
        QByteArray("SELECT c.block_number, '0x' || encode(c.block_hash, 'hex'), coalesce((SELECT "
                   "min(b.from_block) FROM backfill_ranges b WHERE b.environment_id = "
                   "c.environment_id AND b.chain_id = c.chain_id), c.block_number + 1), "
                   "c.generation, ") +
        pgIsoUtcSql("c.updated_at") +
        " FROM indexer_checkpoints c WHERE c.environment_id = $1 AND c.chain_id = $2 AND "
        "c.source_id = $3";
    const PgResult r =
        m_db.run("cr_checkpoint", sql.constData(),
                 {environmentId.toUtf8(), QByteArray::number(chainId), sourceId.toUtf8()});
    if (r.rows() == 0)
        return std::nullopt;
    CheckpointFacts c;
    c.number = r.int64(0, 0);
    c.hash = QString::fromUtf8(r.text(0, 1));
    c.startBlock = r.int64(0, 2);
    c.generation = r.int64(0, 3);
    c.updatedAt = QString::fromUtf8(r.text(0, 4));
    return c;
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

QString PgContractReader::describe() const
{
    return m_db.displayUrl();
}

} // namespace forkscope::store::pg
