#include "PgReorgDiff.h"
#include "store/pg/PgConnection.h"

namespace forkscope::indexer {

void recordPgReorgDiff(store::pg::PgConnection& db, const QList<QByteArray>& scope)
{
    // $1 environment, $2 chain, $3 fork block, $4 reorg id, $5 old checkpoint.
    db.run("diff_transfers",
           "INSERT INTO reorg_diff_store (reorg_id, environment_id, chain_id, kind, "
           "block_number, log_index, tx_hash, contract, from_addr, to_addr, value) SELECT "
           "$4::bigint, environment_id, chain_id, 'transfer_removed', block_number, log_index, "
           "tx_hash, address, substr(topic1, 13), substr(topic2, 13), transfer_value::text FROM "
           "log_store WHERE environment_id = $1 AND chain_id = $2 AND block_number > $3::bigint "
           "AND transfer_value IS NOT NULL ORDER BY block_number, log_index",
           scope.mid(0, 4));
    // Before the delivered rows are rewritten with their own key (log_index NULL): a row
    // that names its log keeps the log's block hash, from which the view renders its key.
    db.run("diff_outbox",
           "INSERT INTO reorg_diff_store (reorg_id, environment_id, chain_id, kind, "
           "block_number, log_index, block_hash, event_key, value) SELECT $4::bigint, "
           "o.environment_id, o.chain_id, CASE WHEN o.delivered_at IS NULL THEN "
           "'outbox_dropped' ELSE 'outbox_delivered_reorged' END, o.block_number, o.log_index, "
           "l.block_hash, o.event_key, o.payload FROM outbox_store o LEFT JOIN log_store l ON "
           "l.environment_id = o.environment_id AND l.chain_id = o.chain_id AND l.block_number "
           "= o.block_number AND l.log_index = o.log_index WHERE o.environment_id = $1 AND "
           "o.chain_id = $2 AND o.block_number > $3::bigint ORDER BY o.block_number, "
           "o.log_index",
           scope.mid(0, 4));
    // Balances are a view on PostgreSQL (computed on read below the checkpoint): each
    // holder the removed Transfers touched, its balance as readers saw it (at the old
    // checkpoint) and as it will read after the rollback (NULL: no Transfer left, no row,
    // as SQLite removes it). This reads the touched holders' whole history: no holder index
    // on log_store, so a rollback costs a scan of the environment's Transfers.
    db.run("diff_balances",
           "WITH sides AS (SELECT s.address AS contract, substr(s.topic2, 13) AS holder, "
           "s.transfer_value AS delta, s.block_number FROM log_store s WHERE s.environment_id = "
           "$1 AND s.chain_id = $2 AND s.transfer_value IS NOT NULL AND s.block_number <= "
           "$5::bigint UNION ALL SELECT s.address, substr(s.topic1, 13), -s.transfer_value, "
           "s.block_number FROM log_store s WHERE s.environment_id = $1 AND s.chain_id = $2 AND "
           "s.transfer_value IS NOT NULL AND s.block_number <= $5::bigint), touched AS (SELECT "
           "DISTINCT contract, holder FROM sides WHERE block_number > $3::bigint AND holder <> "
           "'\\x0000000000000000000000000000000000000000'::bytea) INSERT INTO reorg_diff_store "
           "(reorg_id, environment_id, chain_id, kind, contract, holder, before_value, "
           "after_value) SELECT $4::bigint, $1, $2::bigint, 'balance_changed', t.contract, "
           "t.holder, sum(x.delta)::text, (sum(x.delta) FILTER (WHERE x.block_number <= "
           "$3::bigint))::text FROM touched t JOIN sides x ON x.contract = t.contract AND "
           "x.holder = t.holder GROUP BY t.contract, t.holder ORDER BY t.contract, t.holder",
           scope);
}

} // namespace forkscope::indexer
