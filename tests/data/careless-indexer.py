#!/usr/bin/env python3
"""A deliberately careless indexer, for the lab's own tests.

It stores the Transfers of the contracts in FORKSCOPE_CONTRACTS, read from FORKSCOPE_RPC,
into the SQLite file DATABASE_URL (table `transfer`), block by block, and is wrong on
purpose in one of two ways:

  --skip-tenth     leaves out every tenth block (5, 15, 25, ...);
  --ignore-reorgs  never looks back: what it stored stays, whatever the chain does next.

Without --ignore-reorgs it indexes the last 16 blocks again on every poll, which follows
the reorgs of the lab's reorg storm (depth 12 at most).
"""
import argparse
import json
import os
import sqlite3
import time
import urllib.request

TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
LOOK_BACK = 16


def call(rpc, method, params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    request = urllib.request.Request(
        rpc, data=body.encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as reply:
        answer = json.loads(reply.read())
    if "error" in answer:
        raise RuntimeError(answer["error"])
    return answer["result"]


def word_address(topic):
    return "0x" + topic[-40:]


def index_block(db, rpc, contracts, number):
    logs = call(rpc, "eth_getLogs", [{
        "fromBlock": hex(number), "toBlock": hex(number),
        "address": contracts, "topics": [TRANSFER]}])
    db.execute("DELETE FROM transfer WHERE block_number = ?", (number,))
    for log in logs:
        db.execute(
            'INSERT INTO transfer (block_number, log_index, block_hash, contract, "from", '
            '"to", value) VALUES (?, ?, ?, ?, ?, ?, ?)',
            (int(log["blockNumber"], 16), int(log["logIndex"], 16), log["blockHash"],
             log["address"].lower(), word_address(log["topics"][1]),
             word_address(log["topics"][2]), str(int(log["data"], 16))))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--skip-tenth", action="store_true")
    parser.add_argument("--ignore-reorgs", action="store_true")
    args = parser.parse_args()
    rpc = os.environ["FORKSCOPE_RPC"]
    contracts = os.environ["FORKSCOPE_CONTRACTS"].split(",")
    db = sqlite3.connect(os.environ["DATABASE_URL"])
    db.execute("PRAGMA journal_mode=WAL")
    db.execute('CREATE TABLE IF NOT EXISTS transfer (block_number INTEGER, log_index INTEGER, '
               'block_hash TEXT, contract TEXT, "from" TEXT, "to" TEXT, value TEXT)')
    db.execute("CREATE TABLE IF NOT EXISTS cursor (next_block INTEGER)")
    row = db.execute("SELECT next_block FROM cursor").fetchone()
    next_block = row[0] if row else 0
    while True:
        try:
            head = int(call(rpc, "eth_blockNumber", []), 16)
            start = next_block if args.ignore_reorgs else max(0, next_block - LOOK_BACK)
            for number in range(start, head + 1):
                if args.skip_tenth and number % 10 == 5:
                    continue
                index_block(db, rpc, contracts, number)
            next_block = max(next_block, head + 1)
            db.execute("DELETE FROM cursor")
            db.execute("INSERT INTO cursor VALUES (?)", (next_block,))
            db.commit()
        except (OSError, RuntimeError, ValueError):
            db.rollback()  # the node went away or answered nonsense: try again
        time.sleep(0.2)


if __name__ == "__main__":
    main()
