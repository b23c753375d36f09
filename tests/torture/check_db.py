#!/usr/bin/env python3
"""Independent checker for a Forkscope database: compares it with the node.

Shares no code with Forkscope (not its InvariantChecker, not its decoder): it reads the
database only through the contract's read surface of docs/design.md (names, hex text, decimal
amounts), with Python's sqlite3 module or, for a postgresql:// URL, psycopg2, the same SQL on
both, and asks the node over plain JSON-RPC.

  check_db.py check  --db DB --env ID --rpc URL --contract ADDR [--contract ADDR ...]
      The four invariants, against the node: blocks chain to the checkpoint and are the
      node's blocks; logs and transfers are exactly the node's matching logs up to it;
      balances equal the sum of transfers computed here from the node's logs; no undelivered
      outbox row above the checkpoint. Exit 1 and one line per violation.

  check_db.py watch  --db DB --env ID --stop-file PATH
      A reader hammering the database until PATH exists: every snapshot (one read
      transaction) must show nothing above the checkpoint and a parent-linked top of the
      chain. Prints how many snapshots it took; exit 1 on a torn snapshot.
"""
import argparse
import json
import os
import sqlite3
import sys
import time
import urllib.request

TRANSFER = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"
ZERO = "0x" + "0" * 40


def rpc(url, method, params):
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).encode()
    req = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        reply = json.loads(r.read())
    if "error" in reply:
        raise RuntimeError(f"{method}: {reply['error']}")
    return reply["result"]


def rpc_batch(url, calls):
    body = json.dumps([{"jsonrpc": "2.0", "id": i, "method": m, "params": p}
                       for i, (m, p) in enumerate(calls)]).encode()
    req = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        replies = {x["id"]: x for x in json.loads(r.read())}
    out = []
    for i, (m, _) in enumerate(calls):
        if i not in replies or "error" in replies[i]:
            raise RuntimeError(f"{m}: {replies.get(i)}")
        out.append(replies[i]["result"])
    return out


def is_pg(db):
    return db.startswith(("postgresql://", "postgres://"))


class Store:
    """A read-only connection to either store, `?` placeholders on both; begin() opens one
    snapshot that lasts until rollback()."""

    def __init__(self, db):
        self.pg = is_pg(db)
        if self.pg:
            import psycopg2
            self.conn = psycopg2.connect(db, connect_timeout=30)
            self.conn.set_session(isolation_level="REPEATABLE READ", readonly=True)
        else:
            # Read-only, through SQLite: never a raw open of the file.
            self.conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
            self.conn.execute("PRAGMA busy_timeout = 30000")

    def execute(self, sql, params=()):
        if not self.pg:
            return self.conn.execute(sql, params)
        cur = self.conn.cursor()
        cur.execute(sql.replace("?", "%s"), params)
        return cur

    def begin(self):
        # psycopg2 opens the transaction (the snapshot) at the first statement.
        if not self.pg:
            self.conn.execute("BEGIN")

    def rollback(self):
        self.conn.rollback()

    def close(self):
        self.conn.close()


def connect(db):
    return Store(db)


def not_created_yet(e):
    """The indexer has not created the store's tables yet, or holds the file: readers retry."""
    text = str(e)
    return "no such table" in text or "locked" in text or "does not exist" in text


def check(args):
    problems = []

    def bad(text):
        if len(problems) < 50:
            problems.append(text)

    db = connect(args.db)
    chain_id = int(rpc(args.rpc, "eth_chainId", []), 16)
    db.begin()  # one snapshot for everything below
    row = db.execute(
        "SELECT block_number, block_hash FROM indexer_checkpoints WHERE environment_id = ? "
        "AND chain_id = ?", (args.env, chain_id)).fetchone()
    if row is None:
        print(f"check_db: environment {args.env}: no checkpoint")
        return 1
    cp, cp_hash = row
    if not (cp_hash.startswith("0x") and len(cp_hash) == 66 and cp_hash == cp_hash.lower()):
        bad(f"checkpoint hash {cp_hash!r} is not lowercase 0x hex of 32 bytes")
    scope = (args.env, chain_id)

    # 1. blocks: one parent chain ending at the checkpoint, the node's blocks, none above.
    blocks = db.execute(
        "SELECT block_number, block_hash, parent_hash FROM blocks WHERE environment_id = ? "
        "AND chain_id = ? ORDER BY block_number", scope).fetchall()
    if not blocks:
        bad("no blocks stored")
    start = blocks[0][0] if blocks else 0
    prev = None
    for number, h, parent in blocks:
        if number > cp:
            bad(f"block {number} stored above the checkpoint {cp}")
            continue
        if prev is not None:
            if number != prev[0] + 1:
                bad(f"gap in blocks: {prev[0]} then {number}")
            elif parent != prev[1]:
                bad(f"block {number}'s parent {parent} is not block {prev[0]} ({prev[1]})")
        prev = (number, h)
    if prev and (prev[0] != cp or prev[1] != cp_hash):
        bad(f"the stored chain ends at {prev[0]} {prev[1]}, not at the checkpoint {cp} {cp_hash}")
    stored = {n: h for n, h, _ in blocks}
    numbers = sorted(stored)
    for i in range(0, len(numbers), 200):
        chunk = numbers[i:i + 200]
        nodes = rpc_batch(args.rpc, [("eth_getBlockByNumber", [hex(n), False]) for n in chunk])
        for n, node in zip(chunk, nodes):
            if node is None or node["hash"] != stored[n]:
                bad(f"block {n}: stored {stored[n]}, node {node and node['hash']}")

    # 2. logs and transfers: exactly the node's matching logs of [start, cp].
    node_logs = rpc(args.rpc, "eth_getLogs", [{"fromBlock": hex(start), "toBlock": hex(cp),
                                               "address": args.contract}])
    want = {}
    for l in node_logs:
        key = (int(l["blockNumber"], 16), int(l["logIndex"], 16))
        topics = (l["topics"] + [None] * 4)[:4]
        want[key] = (l["blockHash"], l["transactionHash"], l["address"].lower(),
                     *[t and t.lower() for t in topics], l["data"].lower())
    have = {}
    for r in db.execute(
            "SELECT block_number, log_index, block_hash, tx_hash, address, topic0, topic1, "
            "topic2, topic3, data FROM logs WHERE environment_id = ? AND chain_id = ?", scope):
        if (r[0], r[1]) in have:
            bad(f"log {r[0]}/{r[1]} stored twice")
        have[(r[0], r[1])] = tuple(r[2:])
    for key in sorted(set(want) - set(have))[:10]:
        bad(f"log {key[0]}/{key[1]} of the node is missing")
    for key in sorted(set(have) - set(want))[:10]:
        bad(f"log {key[0]}/{key[1]} is stored but the node has no such log")
    for key in sorted(set(want) & set(have)):
        if want[key] != have[key]:
            bad(f"log {key[0]}/{key[1]} differs: stored {have[key]}, node {want[key]}")

    transfers = {}
    sums = {}
    for key, (bh, tx, address, t0, t1, t2, t3, data) in want.items():
        if t0 != TRANSFER or t1 is None or t2 is None or t3 is not None or len(data) != 66:
            continue
        frm, to, value = "0x" + t1[26:], "0x" + t2[26:], int(data, 16)
        transfers[key] = (tx, address, frm, to, str(value))
        if frm != ZERO:
            sums[(address, frm)] = sums.get((address, frm), 0) - value
        if to != ZERO:
            sums[(address, to)] = sums.get((address, to), 0) + value
    stored_transfers = {}
    for r in db.execute(
            "SELECT block_number, log_index, tx_hash, contract, from_addr, to_addr, value FROM "
            "transfer_events WHERE environment_id = ? AND chain_id = ?", scope):
        stored_transfers[(r[0], r[1])] = tuple(r[2:])
    if stored_transfers != transfers:
        missing = sorted(set(transfers) - set(stored_transfers))[:5]
        extra = sorted(set(stored_transfers) - set(transfers))[:5]
        differ = [k for k in transfers if k in stored_transfers
                  and transfers[k] != stored_transfers[k]][:5]
        bad(f"transfer_events differ from the node's Transfer logs: missing {missing}, "
            f"extra {extra}, different {differ}")

    # 3. balances: the sum of the transfers, per (contract, holder); no zero-address holder.
    balances = {}
    for contract, holder, balance in db.execute(
            "SELECT contract, holder, balance FROM token_balances WHERE environment_id = ? "
            "AND chain_id = ?", scope):
        if holder == ZERO:
            bad(f"the zero address holds a balance of {contract}")
        balances[(contract, holder)] = int(balance)
    for key in sorted(set(sums) | set(balances)):
        if sums.get(key, 0) != balances.get(key, 0):
            bad(f"balance of {key[1]} in {key[0]}: stored {balances.get(key)}, "
                f"sum of transfers {sums.get(key, 0)}")

    # 4. outbox: nothing undelivered above the checkpoint.
    above = db.execute(
        "SELECT count(*) FROM outbox WHERE environment_id = ? AND chain_id = ? AND "
        "block_number > ? AND delivered_at IS NULL", (args.env, chain_id, cp)).fetchone()[0]
    if above:
        bad(f"{above} undelivered outbox row(s) above the checkpoint {cp}")
    db.rollback()

    for p in problems:
        print(f"check_db: VIOLATION: {p}")
    print(f"check_db: {args.env}: checkpoint {cp}, {len(blocks)} blocks, {len(have)} logs, "
          f"{len(stored_transfers)} transfers, {len(balances)} balances: "
          + ("OK" if not problems else f"{len(problems)} violation(s)"))
    return 1 if problems else 0


def watch(args):
    snapshots = 0
    torn = []
    while not os.path.exists(args.stop_file):
        try:
            if not is_pg(args.db) and not os.path.exists(args.db):
                time.sleep(0.05)
                continue
            db = connect(args.db)
            try:
                db.begin()
                row = db.execute(
                    "SELECT block_number, block_hash FROM indexer_checkpoints WHERE "
                    "environment_id = ?", (args.env,)).fetchone()
                if row:
                    cp, cp_hash = row
                    top = db.execute(
                        "SELECT block_number, block_hash, parent_hash FROM blocks WHERE "
                        "environment_id = ? ORDER BY block_number DESC LIMIT 64",
                        (args.env,)).fetchall()
                    if top and (top[0][0] != cp or top[0][1] != cp_hash):
                        torn.append(f"snapshot {snapshots}: top block {top[0][0]} {top[0][1]}, "
                                    f"checkpoint {cp} {cp_hash}")
                    for upper, lower in zip(top, top[1:]):
                        if upper[0] == lower[0] + 1 and upper[2] != lower[1]:
                            torn.append(f"snapshot {snapshots}: block {upper[0]} does not link "
                                        f"to {lower[0]}")
                            break
                db.execute("SELECT count(*) FROM logs").fetchone()
                db.rollback()
                snapshots += 1
            finally:
                db.close()
            # A torn state would last from one commit to the next, many milliseconds: a
            # snapshot every 10 ms still sees it, and the reader stops taking a whole core
            # from the writer it watches and from the suites beside it.
            time.sleep(0.01)
        except Exception as e:  # sqlite3.OperationalError, psycopg2.Error
            # No table before the first migration, or busy: readers retry.
            if not not_created_yet(e):
                torn.append(f"snapshot {snapshots}: {e}")
            time.sleep(0.02)
    for t in torn[:20]:
        print(f"check_db: TORN: {t}")
    print(f"check_db: reader took {snapshots} snapshots, {len(torn)} torn")
    return 1 if torn else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("--db", required=True)
    c.add_argument("--env", required=True)
    c.add_argument("--rpc", required=True)
    c.add_argument("--contract", action="append", required=True,
                   type=lambda a: a.lower())
    w = sub.add_parser("watch")
    w.add_argument("--db", required=True)
    w.add_argument("--env", required=True)
    w.add_argument("--stop-file", required=True)
    args = p.parse_args()
    return check(args) if args.cmd == "check" else watch(args)


if __name__ == "__main__":
    sys.exit(main())
