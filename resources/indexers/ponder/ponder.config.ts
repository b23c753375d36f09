// Ponder as the lab runs it: the node, the contracts and the database come from the
// environment, so one copy of this project serves every lab run.
//   FORKSCOPE_RPC        the lab's node (a fault proxy in front of anvil)
//   FORKSCOPE_CONTRACTS  comma-separated ERC-20 addresses
//   FORKSCOPE_CHAIN_ID   default 31337
//   DATABASE_URL         the PostgreSQL database Ponder writes into
import { createConfig } from "ponder";
import { parseAbi } from "viem";

const contracts = (process.env.FORKSCOPE_CONTRACTS ?? "")
  .split(",")
  .filter(Boolean) as `0x${string}`[];

export default createConfig({
  database: { kind: "postgres", connectionString: process.env.DATABASE_URL },
  chains: {
    lab: {
      id: Number(process.env.FORKSCOPE_CHAIN_ID ?? 31337),
      rpc: process.env.FORKSCOPE_RPC,
      // The lab rewrites its chain (reorgs, resets): nothing may be served from a cache.
      disableCache: true,
      pollingInterval: 250,
    },
  },
  contracts: {
    Token: {
      chain: "lab",
      abi: parseAbi(["event Transfer(address indexed from, address indexed to, uint256 value)"]),
      address: contracts,
      startBlock: 0,
    },
  },
});
