#include "PgContract.h"
#include "PgBalances.h"
#include "PgConnection.h"
#include "PgError.h"
#include "PgMigrations.h"
#include "PgPendingOutbox.h"
#include "PgViewSql.h"
#include "coord/CoordinationSchema.h"

namespace forkscope::store::pg {

namespace viewsql {

// Only rows at or below the environment's checkpoint are indexed (see the header). Before
// anything is indexed, the checkpoint row sits just below the first block: nothing shows.
constexpr const char* kBelowCheckpoint =
    " WHERE s.block_number <= (SELECT max(c.block_number) FROM checkpoint_store c WHERE "
    "c.environment_id = s.environment_id AND c.chain_id = s.chain_id)";

QByteArray hex(const char* column)
{
    return QByteArrayLiteral("'0x' || encode(s.") + column + QByteArrayLiteral(", 'hex')");
}

// Since v15 a pending added contract's rows show only up to its own checkpoint, as in a
// file (store/SourcesContract.h).
// Since v18 the same holds for the children of a pending added factory.
constexpr const char* kPendingSourceCut =
    " AND NOT EXISTS (SELECT 1 FROM source_store p WHERE p.environment_id = s.environment_id "
    "AND p.chain_id = s.chain_id AND p.address = s.address AND p.state = 'pending' AND "
    "s.block_number > coalesce(p.block_number, -1)) AND NOT EXISTS (SELECT 1 FROM child_store "
    "c JOIN source_store p ON p.environment_id = c.environment_id AND p.chain_id = c.chain_id "
    "AND p.address = c.factory WHERE c.environment_id = s.environment_id AND c.chain_id = "
    "s.chain_id AND c.child = s.address AND p.state = 'pending' AND s.block_number > "
    "coalesce(p.block_number, -1))";

// The `logs` read surface; later versions add columns at its end.
QByteArray logsSelect(const char* addedColumns, bool cut)
{
    return "SELECT s.environment_id, s.chain_id, s.block_number, " + hex("block_hash") +
           " AS block_hash, s.log_index, " + hex("tx_hash") + " AS tx_hash, " + hex("address") +
           " AS address, " + hex("topic0") + " AS topic0, " + hex("topic1") + " AS topic1, " +
           hex("topic2") + " AS topic2, " + hex("topic3") + " AS topic3, " + hex("data") +
           " AS data, s.decode_error" + addedColumns + " FROM log_store s" + kBelowCheckpoint +
           (cut ? kPendingSourceCut : "");
}

QByteArray blocksSelect()
{
    return "SELECT s.environment_id, s.chain_id, s.block_number, " + hex("block_hash") +
           " AS block_hash, " + hex("parent_hash") +
           " AS parent_hash, s.block_timestamp FROM block_store s" + kBelowCheckpoint;
}

QByteArray transferEventsSelect(bool cut)
{
    return "SELECT s.environment_id, s.chain_id, s.block_number, s.log_index, " + hex("tx_hash") +
           " AS tx_hash, " + hex("address") +
           " AS contract, '0x' || encode(substr(s.topic1, 13), 'hex') AS from_addr, '0x' || "
           "encode(substr(s.topic2, 13), 'hex') AS to_addr, s.transfer_value::text AS value "
           "FROM log_store s" +
           QByteArray(kBelowCheckpoint) + " AND s.transfer_value IS NOT NULL" +
           (cut ? kPendingSourceCut : "");
}

// Since v15: contracts added to an environment and their backfill ranges, as a file serves
// them (store/SourcesContract.h); since v18 with an added factory's rule.
QByteArray contractSourcesSelect(bool withRule)
{
    return "SELECT s.environment_id, s.chain_id, " + hex("address") +
           " AS contract, s.start_block, s.block_number, " + hex("block_hash") +
           " AS block_hash, s.state, s.added_at, s.joined_at" +
           (withRule ? QByteArray(", s.factory_rule") : QByteArray()) + " FROM source_store s";
}

QByteArray sourceRangesSelect()
{
    return "SELECT s.environment_id, s.chain_id, " + hex("address") +
           " AS contract, s.from_block, s.to_block, s.status, s.attempts, s.updated_at FROM "
           "source_range_store s";
}

// Since v12 balances are kept in balance_store (store/pg/PgBalances.h), as SQLite keeps
// them: the same columns and rules. Since v20 the Transfers a backfill has not folded in yet
// are added here: the holders balance_store has, then those it has not.
QByteArray tokenBalancesSelect(bool withPending)
{
    if (!withPending)
        return "SELECT b.environment_id, b.chain_id, '0x' || encode(b.contract, 'hex') AS "
               "contract, '0x' || encode(b.holder, 'hex') AS holder, b.balance::text AS balance, "
               "b.updated_at_block, b.transfer_sides FROM balance_store b";
    return "WITH p AS (" + pendingBalancesSql() +
           ") SELECT b.environment_id, b.chain_id, '0x' || encode(b.contract, 'hex') AS "
           "contract, '0x' || encode(b.holder, 'hex') AS holder, (b.balance + coalesce(p.delta, "
           "0))::text AS balance, greatest(b.updated_at_block, p.last) AS updated_at_block, "
           "b.transfer_sides + coalesce(p.sides, 0) AS transfer_sides FROM balance_store b LEFT "
           "JOIN p ON p.environment_id = b.environment_id AND p.chain_id = b.chain_id AND "
           "p.contract = b.contract AND p.holder = b.holder UNION ALL SELECT p.environment_id, "
           "p.chain_id, '0x' || encode(p.contract, 'hex'), '0x' || encode(p.holder, 'hex'), "
           "p.delta::text, p.last, p.sides FROM p WHERE NOT EXISTS (SELECT 1 FROM balance_store "
           "b WHERE b.environment_id = p.environment_id AND b.chain_id = p.chain_id AND "
           "b.contract = p.contract AND b.holder = p.holder)";
}

// The coordination tables and the environments under the contract's names, with exactly
// the columns a file has and its text: hashes as 0x hex, times as UTC ISO 8601.
QByteArray indexerCheckpointsSelect()
{
    return "SELECT c.environment_id, c.chain_id, c.source_id, c.block_number, '0x' || "
           "encode(c.block_hash, 'hex') AS block_hash, c.policy_version, c.generation, " +
           pgIsoUtcSql("c.updated_at") + " AS updated_at, c.start_block, " +
           pgIsoUtcSql("c.verified_at") +
           " AS verified_at, c.contracts FROM checkpoint_store c WHERE c.block_number >= "
           "c.start_block";
}

QByteArray backfillRangesSelect()
{
    return "SELECT r.environment_id, r.chain_id, r.from_block, r.to_block, r.status, "
           "r.attempts, r.last_error, " +
           pgIsoUtcSql("r.updated_at") + " AS updated_at FROM range_store r";
}

QByteArray environmentsSelect()
{
    return "SELECT e.environment_id, e.chain_id, e.genesis_hash, e.rpc_url, e.created_at, "
           "e.archived_at FROM environment_store e";
}

// Since v13: the children of the factories, as a file serves them (store/ChildrenContract.h),
// cut at the checkpoint like the rows they are indexed with.
QByteArray factoryChildrenSelect()
{
    return "SELECT s.environment_id, s.chain_id, " + hex("factory") + " AS factory, " +
           hex("child") + " AS child, s.block_number, s.log_index, " + hex("block_hash") +
           " AS block_hash, " + hex("tx_hash") + " AS tx_hash FROM child_store s" +
           kBelowCheckpoint;
}

// Since v17: the blocks rollbacks removed and the nodes' heads, as a file serves them
// (store/ForkTreeContract.h).
QByteArray orphanedBlocksSelect()
{
    return "SELECT s.environment_id, s.chain_id, s.block_number, " + hex("block_hash") +
           " AS block_hash, " + hex("parent_hash") +
           " AS parent_hash, s.reorg_id, s.removed_at FROM orphan_block_store s";
}

QByteArray nodeSightingsSelect()
{
    return "SELECT s.id, s.environment_id, s.chain_id, s.node, s.block_number, " +
           hex("block_hash") + " AS block_hash, s.seen_at FROM node_sighting_store s";
}

QByteArray reorgDiffSelect()
{
    return "SELECT " + pgReorgDiffColumnsSql() + " FROM reorg_diff_store d";
}

QByteArray createView(const char* create, const char* name, const QByteArray& select)
{
    return QByteArray(create) + ' ' + name + " AS " + select;
}

} // namespace viewsql

using namespace viewsql;

QByteArray pgViewSelect(const QString& name)
{
    if (name == QLatin1String("blocks"))
        return blocksSelect();
    if (name == QLatin1String("logs"))
        return logsSelect(kLogsDecodedColumns, true);
    if (name == QLatin1String("transfer_events"))
        return transferEventsSelect(true);
    if (name == QLatin1String("contract_sources"))
        return contractSourcesSelect();
    if (name == QLatin1String("source_ranges"))
        return sourceRangesSelect();
    if (name == QLatin1String("token_balances"))
        return tokenBalancesSelect();
    if (name == QLatin1String("outbox"))
        return pgOutboxSelect();
    if (name == QLatin1String("reorg_diff_items"))
        return reorgDiffSelect();
    if (name == QLatin1String("factory_children"))
        return factoryChildrenSelect();
    if (name == QLatin1String("indexer_checkpoints"))
        return indexerCheckpointsSelect();
    if (name == QLatin1String("backfill_ranges"))
        return backfillRangesSelect();
    if (name == QLatin1String("environments"))
        return environmentsSelect();
    if (name == QLatin1String("orphaned_blocks"))
        return orphanedBlocksSelect();
    if (name == QLatin1String("node_sightings"))
        return nodeSightingsSelect();
    return {};
}

QByteArray pgOutboxEventKeySql(const char* alias)
{
    // The same text as SQLite's: transfer:<block>:0x<block hash>:<log index>.
    const QByteArray a(alias);
    return "'transfer:' || " + a + ".block_number || ':0x' || encode(" + a +
           ".block_hash, 'hex') || ':' || " + a + ".log_index";
}

QByteArray pgReorgDiffColumnsSql()
{
    // A NULL bytea stays NULL: '0x' || NULL is NULL.
    return "d.reorg_id, d.environment_id, d.chain_id, d.kind, d.block_number, d.log_index, "
           "'0x' || encode(d.tx_hash, 'hex') AS tx_hash, '0x' || encode(d.contract, 'hex') AS "
           "contract, '0x' || encode(d.holder, 'hex') AS holder, '0x' || encode(d.from_addr, "
           "'hex') AS from_addr, '0x' || encode(d.to_addr, 'hex') AS to_addr, d.value, "
           "d.before_value, d.after_value, coalesce(d.event_key, CASE WHEN d.block_hash IS NOT "
           "NULL THEN " +
           pgOutboxEventKeySql("d") + " END) AS event_key";
}

QByteArray pgOutboxPayloadSql()
{
    return "'{\"type\":\"transfer\",\"chainId\":' || l.chain_id || ',\"blockNumber\":' || "
           "l.block_number || ',\"blockHash\":\"0x' || encode(l.block_hash, 'hex') || "
           "'\",\"logIndex\":' || l.log_index || ',\"txHash\":\"0x' || encode(l.tx_hash, "
           "'hex') || '\",\"contract\":\"0x' || encode(l.address, 'hex') || '\",\"from\":\"0x' "
           "|| encode(substr(l.topic1, 13), 'hex') || '\",\"to\":\"0x' || "
           "encode(substr(l.topic2, 13), 'hex') || '\",\"value\":\"' || l.transfer_value || "
           "'\"}'";
}

QString ensurePgContract(PgConnection& db)
{
    QString restored;
    coord::ensureCoordinationSchema(db);
    db.begin();
    try {
        db.exec("SELECT pg_advisory_xact_lock(1181445987, 1)");
        db.exec("CREATE TABLE IF NOT EXISTS schema_version (version integer NOT NULL, "
                "applied_at timestamptz NOT NULL DEFAULT clock_timestamp(), description text "
                "NOT NULL)");
        const PgResult v = db.exec("SELECT coalesce(max(version), 0) FROM schema_version");
        const qint64 have = v.int64(0, 0);
        if (have > kPgContractVersion)
            throw PgError(StoreError::Kind::NewerSchema,
                          QStringLiteral("%1 holds PostgreSQL contract version %2; this "
                                         "Forkscope knows up to %3: upgrade Forkscope")
                              .arg(db.displayUrl())
                              .arg(have)
                              .arg(kPgContractVersion));
        migratePgContract(db, have);
        restored = restorePgSurface(db);
        db.commit();
    } catch (...) {
        db.rollback();
        throw;
    }
    return restored;
}

void requireCurrentPgContract(PgConnection& db)
{
    const PgResult exists = db.exec("SELECT to_regclass('schema_version') IS NOT NULL");
    const qint64 have =
        exists.text(0, 0) == "t"
            ? db.exec("SELECT coalesce(max(version), 0) FROM schema_version").int64(0, 0)
            : 0;
    if (have == kPgContractVersion) {
        const QList<SurfaceFinding> found = pgSurfaceFindings(db);
        if (!found.isEmpty())
            throw PgError(refusalKind(found),
                          refusalLine(db.displayUrl(), found,
                                      QStringLiteral("forkscope index --db %1 --rpc URL "
                                                     "--contract ADDRESS")
                                          .arg(db.displayUrl())));
        return;
    }
    if (have > kPgContractVersion)
        throw PgError(StoreError::Kind::NewerSchema,
                      QStringLiteral("%1 holds PostgreSQL contract version %2; this Forkscope "
                                     "knows up to %3: upgrade Forkscope")
                          .arg(db.displayUrl())
                          .arg(have)
                          .arg(kPgContractVersion));
    throw PgError(StoreError::Kind::Unsupported,
                  have == 0 ? QStringLiteral("%1 holds no Forkscope index yet; index into it "
                                             "first with `forkscope index --db %1`")
                                  .arg(db.displayUrl())
                            : QStringLiteral("%1 holds PostgreSQL contract version %2, this "
                                             "Forkscope reads %3; reading never migrates: run "
                                             "`forkscope index --db %1` once to migrate it")
                                  .arg(db.displayUrl())
                                  .arg(have)
                                  .arg(kPgContractVersion));
}

QByteArray pgIsoUtcSql(const char* column)
{
    return QByteArray("to_char(") + column +
           " AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')";
}

} // namespace forkscope::store::pg
