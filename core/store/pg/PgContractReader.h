#pragma once

#include "store/ContractReader.h"

namespace forkscope::store::pg {

class PgConnection;

// ContractReader on a shared PostgreSQL database: the same SQL as on SQLite, over the
// contract's views (which show only what the checkpoint covers). `?` placeholders become
// $1..$n, and each text runs as a prepared statement named by its hash, so a query asked
// again (every invariant check, every report) is not planned again.
class PgContractReader : public ContractReader
{
public:
    explicit PgContractReader(PgConnection& db) : m_db(db) {}
    std::unique_ptr<ContractRows> query(const QString& sql, const QVariantList& args) override;
    QString describe() const override;
    OutboxTally outboxTally(const QString& environmentId, qint64 chainId) override;
    QString reorgDiffRecordedSql() const override;
    // REPEATABLE READ, READ ONLY: one state of the database, and no write possible.
    std::unique_ptr<ContractSnapshot> snapshot() override;

    // "a = ? AND b = '?'" -> "a = $1 AND b = '?'": placeholders outside quoted text.
    static QByteArray numberedPlaceholders(const QString& sql);

private:
    PgConnection& m_db;
};

} // namespace forkscope::store::pg
