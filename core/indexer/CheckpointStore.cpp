#include "CheckpointStore.h"
#include "IndexerErrors.h"
#include "store/Database.h"

#include <QDateTime>
#include <QSqlQuery>

namespace forkscope::indexer {

QString contractSetText(const QList<chain::Address>& contracts, const QStringList& factoryRules)
{
    QStringList hex;
    for (const chain::Address& a : contracts)
        hex << a.toHex();
    hex.sort();
    hex.removeDuplicates();
    QStringList rules = factoryRules;
    rules.sort();
    rules.removeDuplicates();
    return (hex + rules).join(QLatin1Char(' '));
}

QString contractSetChange(const QString& had, const QString& now)
{
    const QStringList before = had.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    const QStringList after = now.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QStringList added, removed;
    for (const QString& a : after)
        if (!before.contains(a))
            added << a;
    for (const QString& a : before)
        if (!after.contains(a))
            removed << a;
    QStringList change;
    if (!added.isEmpty())
        change << QStringLiteral("added %1").arg(added.join(QStringLiteral(", ")));
    if (!removed.isEmpty())
        change << QStringLiteral("removed %1").arg(removed.join(QStringLiteral(", ")));
    return change.join(QStringLiteral("; "));
}

QString contractSetChangedMessage(const QString& environmentId, const QString& had,
                                  const QString& now)
{
    return QStringLiteral("environment %1 indexes contracts %2; this run names other contracts "
                          "(%3). The blocks it indexed would then miss the added contracts' "
                          "logs and keep the removed ones' rows: index the new set into a new "
                          "environment (--env), or run with the same contracts. Nothing was "
                          "written")
        .arg(environmentId,
             had.split(QLatin1Char(' '), Qt::SkipEmptyParts).join(QStringLiteral(", ")),
             contractSetChange(had, now));
}

QString contractsLeftOutMessage(const QString& environmentId, const QStringList& had,
                                const QStringList& left)
{
    return QStringLiteral("environment %1 indexes contracts %2; this run leaves out %3. A "
                          "contract's rows are never dropped from an environment silently: run "
                          "with every contract of the environment (adding others is fine), "
                          "archive the contract first (forkscope archive-contract), or index "
                          "the new set into a new environment (--env). Nothing was written")
        .arg(environmentId, had.join(QStringLiteral(", ")), left.join(QStringLiteral(", ")));
}

CheckpointStore::CheckpointStore(store::Database& db, QString environmentId, std::uint64_t chainId,
                                 QString sourceId)
    : m_db(db), m_env(std::move(environmentId)), m_chainId(chainId), m_source(std::move(sourceId))
{
}

std::optional<Checkpoint> CheckpointStore::read()
{
    QSqlQuery& q = m_db.runCached(
        QStringLiteral("SELECT block_number, block_hash, start_block, policy_version, generation, "
                       "verified_at, contracts FROM indexer_checkpoints WHERE environment_id = ? "
                       "AND chain_id = ? AND source_id = ?"),
        {m_env, qint64(m_chainId), m_source});
    std::optional<Checkpoint> cp;
    if (q.next()) {
        cp = Checkpoint{};
        cp->number = q.value(0).toULongLong();
        cp->hash = chain::Hash32::fromHex(q.value(1).toString(), QStringLiteral("checkpoint hash"));
        cp->startBlock = q.value(2).toULongLong();
        cp->policyVersion = q.value(3).toString();
        cp->generation = q.value(4).toInt();
        cp->verifiedAt = q.value(5).toString();
        cp->contracts = q.value(6).toString();
    }
    q.finish();
    return cp;
}

void CheckpointStore::ensureLive()
{
    QSqlQuery& q = m_db.runCached(QStringLiteral("SELECT archived_at FROM environments WHERE "
                                                 "environment_id = ? AND archived_at IS NOT NULL"),
                                  {m_env});
    const QString archivedAt = q.next() ? q.value(0).toString() : QString();
    q.finish();
    if (!archivedAt.isEmpty())
        throw EnvironmentArchivedError(
            QStringLiteral("environment %1 was archived at %2 (lab reset) while this indexer was "
                           "running; it is read-only, nothing was written; index into the new "
                           "environment")
                .arg(m_env, archivedAt));
}

void CheckpointStore::insertFirst(const Checkpoint& cp)
{
    ensureLive();
    const QString now = store::nowUtc();
    QSqlQuery& q = m_db.runCached(
        QStringLiteral("INSERT INTO indexer_checkpoints (environment_id, chain_id, source_id, "
                       "block_number, block_hash, policy_version, generation, updated_at, "
                       "start_block, verified_at, contracts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, "
                       "?, ?) ON CONFLICT (environment_id, chain_id, source_id) DO NOTHING"),
        {m_env, qint64(m_chainId), m_source, qint64(cp.number), cp.hash.toHex(), cp.policyVersion,
         cp.generation, now, qint64(cp.startBlock), now,
         m_contracts.isEmpty() ? QVariant(QMetaType(QMetaType::QString)) : QVariant(m_contracts)});
    if (q.numRowsAffected() != 1)
        throw CheckpointMovedError(QStringLiteral("another writer created the checkpoint of %1/%2 "
                                                  "first; re-reading it")
                                       .arg(m_env, m_source));
}

void CheckpointStore::advance(const Checkpoint& expected, std::uint64_t number,
                              const chain::Hash32& hash)
{
    ensureLive();
    QSqlQuery& q = m_db.runCached(
        QStringLiteral("UPDATE indexer_checkpoints SET block_number = ?, block_hash = ?, "
                       "updated_at = ? WHERE environment_id = ? AND chain_id = ? AND "
                       "source_id = ? AND block_number = ? AND block_hash = ?"),
        {qint64(number), hash.toHex(), store::nowUtc(), m_env, qint64(m_chainId), m_source,
         qint64(expected.number), expected.hash.toHex()});
    // Zero rows: someone else moved the cursor since we read it. "My number is bigger" is
    // no reason to overwrite: their number may belong to another branch.
    if (q.numRowsAffected() != 1)
        throw CheckpointMovedError(QStringLiteral("the checkpoint of %1/%2 moved away from %3 "
                                                  "while this batch was prepared; re-reading it")
                                       .arg(m_env, m_source)
                                       .arg(expected.number));
}

void CheckpointStore::remove(const Checkpoint& expected)
{
    ensureLive();
    QSqlQuery& q = m_db.runCached(
        QStringLiteral("DELETE FROM indexer_checkpoints WHERE environment_id = ? AND chain_id = ? "
                       "AND source_id = ? AND block_number = ? AND block_hash = ?"),
        {m_env, qint64(m_chainId), m_source, qint64(expected.number), expected.hash.toHex()});
    if (q.numRowsAffected() != 1)
        throw CheckpointMovedError(QStringLiteral("the checkpoint of %1/%2 moved during a "
                                                  "rollback; re-reading it")
                                       .arg(m_env, m_source));
}

void CheckpointStore::markVerified(const Checkpoint& cp)
{
    store::WriteTransaction tx(m_db);
    ensureLive();
    m_db.run(
        QStringLiteral("UPDATE indexer_checkpoints SET verified_at = ? WHERE environment_id "
                       "= ? AND chain_id = ? AND source_id = ? AND block_number = ? AND "
                       "block_hash = ?"),
        {store::nowUtc(), m_env, qint64(m_chainId), m_source, qint64(cp.number), cp.hash.toHex()});
    tx.commit();
}

bool CheckpointStore::adoptContracts(const QString& contractSet)
{
    store::WriteTransaction tx(m_db);
    ensureLive();
    QSqlQuery q = m_db.run(QStringLiteral("UPDATE indexer_checkpoints SET contracts = ? WHERE "
                                          "environment_id = ? AND chain_id = ? AND source_id = ? "
                                          "AND contracts IS NULL"),
                           {contractSet, m_env, qint64(m_chainId), m_source});
    const bool adopted = q.numRowsAffected() == 1;
    tx.commit();
    return adopted;
}

void CheckpointStore::replaceContracts(const QString& contractSet)
{
    ensureLive();
    QSqlQuery q = m_db.run(QStringLiteral("UPDATE indexer_checkpoints SET contracts = ? WHERE "
                                          "environment_id = ? AND chain_id = ? AND source_id = ?"),
                           {contractSet, m_env, qint64(m_chainId), m_source});
    if (q.numRowsAffected() != 1)
        throw CheckpointMovedError(
            QStringLiteral("the checkpoint of %1/%2 is gone; re-reading it").arg(m_env, m_source));
}

QStringList CheckpointStore::otherSources()
{
    QSqlQuery q = m_db.run(QStringLiteral("SELECT source_id FROM indexer_checkpoints WHERE "
                                          "environment_id = ? AND chain_id = ? AND source_id <> ?"),
                           {m_env, qint64(m_chainId), m_source});
    QStringList out;
    while (q.next())
        out << q.value(0).toString();
    return out;
}

} // namespace forkscope::indexer
