#include "PgContract.h"
#include "PgConnection.h"
#include "PgError.h"
#include "coord/CoordinationSchema.h"

namespace forkscope::store::pg {

namespace {

// Only rows at or below the environment's checkpoint are indexed (see the header).
constexpr const char* kBelowCheckpoint =
    " WHERE s.block_number <= (SELECT max(c.block_number) FROM indexer_checkpoints c WHERE "
    "c.environment_id = s.environment_id AND c.chain_id = s.chain_id)";

QByteArray hex(const char* column)
{
    return QByteArrayLiteral("'0x' || encode(s.") + column + QByteArrayLiteral(", 'hex')");
}

} // namespace

void ensurePgContract(PgConnection& db)
{
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
        if (have < 1) {
            db.exec("CREATE TABLE block_store ("
                    " environment_id text NOT NULL,"
                    " chain_id bigint NOT NULL,"
                    " block_number bigint NOT NULL,"
                    " block_hash bytea NOT NULL CHECK (octet_length(block_hash) = 32),"
                    " parent_hash bytea NOT NULL CHECK (octet_length(parent_hash) = 32),"
                    " block_timestamp bigint NOT NULL,"
                    " PRIMARY KEY (environment_id, chain_id, block_number))");
            db.exec("CREATE TABLE log_store ("
                    " environment_id text NOT NULL,"
                    " chain_id bigint NOT NULL,"
                    " block_number bigint NOT NULL,"
                    " log_index bigint NOT NULL,"
                    " block_hash bytea NOT NULL CHECK (octet_length(block_hash) = 32),"
                    " tx_hash bytea NOT NULL CHECK (octet_length(tx_hash) = 32),"
                    " address bytea NOT NULL CHECK (octet_length(address) = 20),"
                    " topic0 bytea, topic1 bytea, topic2 bytea, topic3 bytea,"
                    " data bytea NOT NULL,"
                    " decode_error text,"
                    // An ERC-20 Transfer's value; its parties are topics 1 and 2.
                    " transfer_value numeric(78, 0),"
                    " PRIMARY KEY (environment_id, chain_id, block_number, log_index))");
            const QByteArray blocks = "CREATE VIEW blocks AS SELECT s.environment_id, "
                                      "s.chain_id, s.block_number, " +
                                      hex("block_hash") + " AS block_hash, " + hex("parent_hash") +
                                      " AS parent_hash, s.block_timestamp FROM block_store s" +
                                      kBelowCheckpoint;
            db.exec(blocks.constData());
            const QByteArray logs =
                "CREATE VIEW logs AS SELECT s.environment_id, s.chain_id, s.block_number, " +
                hex("block_hash") + " AS block_hash, s.log_index, " + hex("tx_hash") +
                " AS tx_hash, " + hex("address") + " AS address, " + hex("topic0") +
                " AS topic0, " + hex("topic1") + " AS topic1, " + hex("topic2") + " AS topic2, " +
                hex("topic3") + " AS topic3, " + hex("data") +
                " AS data, s.decode_error FROM log_store s" + kBelowCheckpoint;
            db.exec(logs.constData());
            const QByteArray transfers =
                "CREATE VIEW transfer_events AS SELECT s.environment_id, s.chain_id, "
                "s.block_number, s.log_index, " +
                hex("tx_hash") + " AS tx_hash, " + hex("address") +
                " AS contract, '0x' || encode(substr(s.topic1, 13), 'hex') AS from_addr, '0x' "
                "|| encode(substr(s.topic2, 13), 'hex') AS to_addr, s.transfer_value::text AS "
                "value FROM log_store s" +
                QByteArray(kBelowCheckpoint) + " AND s.transfer_value IS NOT NULL";
            db.exec(transfers.constData());
            db.run("pg_contract_version",
                   "INSERT INTO schema_version (version, description) VALUES ($1, $2)",
                   {QByteArray::number(kPgContractVersion),
                    "contract v4 on PostgreSQL: bytea tables, hex views below the checkpoint"});
        }
        db.commit();
    } catch (...) {
        db.rollback();
        throw;
    }
}

} // namespace forkscope::store::pg
