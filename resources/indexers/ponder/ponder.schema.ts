import { onchainTable } from "ponder";

// One row per Transfer log, as `forkscope audit --preset ponder` reads it.
export const transferEvent = onchainTable("transfer_event", (t) => ({
  id: t.text().primaryKey(),
  blockNumber: t.bigint().notNull(),
  blockHash: t.hex().notNull(),
  logIndex: t.integer().notNull(),
  transactionHash: t.hex().notNull(),
  contract: t.hex().notNull(),
  from: t.hex().notNull(),
  to: t.hex().notNull(),
  amount: t.bigint().notNull(),
}));
