import { ponder } from "ponder:registry";
import { transferEvent } from "ponder:schema";

ponder.on("Token:Transfer", async ({ event, context }) => {
  await context.db.insert(transferEvent).values({
    id: event.id,
    blockNumber: event.block.number,
    blockHash: event.block.hash,
    logIndex: event.log.logIndex,
    transactionHash: event.transaction.hash,
    contract: event.log.address,
    from: event.args.from,
    to: event.args.to,
    amount: event.args.value,
  });
});
