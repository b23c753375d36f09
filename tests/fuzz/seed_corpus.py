#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpora (tests/fuzz/corpus/<target>/) from a real anvil.

    python3 tests/fuzz/seed_corpus.py [path/to/anvil]

Starts anvil on a free port, deploys the lab's DemoToken and AbiZoo (resources/contracts),
sends transactions of each receipt type that emit their events, and keeps the node's reply
bodies byte for byte: replies to the hot calls (reply_body), each block with its receipts
(receipts) and each log's data under its event's inputs (abi_decoder). The ABI files,
HTTP requests, JSON-RPC bodies and config files are written out as the local API, --abi
and --config receive them. Run it again after changing what a target reads; commit the
result (the files are small)."""

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(HERE, "corpus")
ANVIL = os.path.join(ROOT, ".deps/anvil/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil")


def write(target, name, data):
    d = os.path.join(CORPUS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


class Node:
    def __init__(self, url):
        self.url = url
        self.next_id = 1

    def raw(self, body):
        req = urllib.request.Request(self.url, data=body,
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.read()

    def request(self, method, params):
        body = {"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}
        self.next_id += 1
        return body

    def call_raw(self, method, params=()):
        # Ids start at 1 for each reply kept, as fuzz_reply_body numbers its requests.
        self.next_id = 1
        return self.raw(json.dumps(self.request(method, list(params))).encode())

    def call(self, method, params=()):
        reply = json.loads(self.call_raw(method, params))
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply["result"]

    def batch_raw(self, calls):
        self.next_id = 1
        return self.raw(json.dumps([self.request(m, list(p)) for m, p in calls]).encode())


def word(n):
    return n.to_bytes(32, "big")


def encode_string(s):
    b = s.encode()
    return word(len(b)) + b + b"\0" * (-len(b) % 32)


def selector(node, signature):
    return node.call("web3_sha3", ["0x" + signature.encode().hex()])[:10]


def send(node, sender, to, data, **extra):
    tx = {"from": sender, "data": data}
    if to:
        tx["to"] = to
    tx.update(extra)
    h = node.call("eth_sendTransaction", [tx])
    for _ in range(100):
        r = node.call("eth_getTransactionReceipt", [h])
        if r:
            return r
        time.sleep(0.05)
    raise RuntimeError("transaction not mined")


def deploy(node, sender, name, args=b""):
    with open(os.path.join(ROOT, "resources/contracts", name + ".json")) as f:
        artefact = json.load(f)
    r = send(node, sender, None, artefact["bytecode"] + args.hex())
    return r["contractAddress"], artefact["abi"]


def node_corpora(node):
    sender = node.call("eth_accounts")[0]
    holder = "0x" + "ab" * 20
    token, token_abi = deploy(node, sender, "DemoToken",
                              word(96) + word(160) + word(10**24) + encode_string("Demo")
                              + encode_string("DEMO"))
    zoo, zoo_abi = deploy(node, sender, "AbiZoo")
    addr = lambda a: word(int(a, 16))
    calls = [
        (token, selector(node, "spray(uint256,uint256,uint256)")
         + (word(3) + word(0) + word(5)).hex(), {}),
        (token, selector(node, "transfer(address,uint256)") + (addr(holder) + word(7)).hex(),
         {"gasPrice": "0x3b9aca00"}),  # legacy receipt (type 0x0)
        (token, selector(node, "transfer(address,uint256)") + (addr(holder) + word(8)).hex(),
         {"gasPrice": "0x3b9aca00", "accessList": []}),  # EIP-2930 (type 0x1)
        (token, selector(node, "emitTransferMissingTopic(address,uint256)")
         + (addr(holder) + word(9)).hex(), {}),
        (token, selector(node, "emitTransferShortData(address,address)")
         + (addr(holder) + addr(sender)).hex(), {}),
        (zoo, selector(node, "emitAll()"), {}),
    ]
    receipts = [send(node, sender, to, data, **extra) for to, data, extra in calls]
    head = int(node.call("eth_blockNumber"), 16)

    # Replies to the hot calls, as fuzz_reply_body reads them: a line naming the requests,
    # then the body.
    def reply(name, spec, body):
        write("reply_body", name, spec.encode() + b"\n" + body)

    reply("chain_id", "eth_chainId", node.call_raw("eth_chainId"))
    reply("block_number", "eth_blockNumber", node.call_raw("eth_blockNumber"))
    for n in (0, head):
        reply(f"block_{n}", "eth_getBlockByNumber",
              node.call_raw("eth_getBlockByNumber", [hex(n), False]))
    reply("block_future", "eth_getBlockByNumber",
          node.call_raw("eth_getBlockByNumber", [hex(head + 100), False]))
    reply("block_by_hash", "eth_getBlockByHash",
          node.call_raw("eth_getBlockByHash", [receipts[0]["blockHash"], False]))
    reply("logs_range", "eth_getLogs", node.call_raw(
        "eth_getLogs", [{"fromBlock": "0x0", "toBlock": hex(head), "address": [token, zoo]}]))
    reply("logs_empty", "eth_getLogs", node.call_raw(
        "eth_getLogs", [{"fromBlock": "0x0", "toBlock": "0x0", "address": [token]}]))
    reply("logs_error", "eth_getLogs", node.call_raw(
        "eth_getLogs", [{"fromBlock": "0xzz"}]))
    for i, r in enumerate(receipts):
        reply(f"receipts_{i}", "eth_getBlockReceipts",
              node.call_raw("eth_getBlockReceipts", [r["blockHash"]]))
    reply("head_and_block", "eth_blockNumber eth_getBlockByNumber", node.batch_raw(
        [("eth_blockNumber", []), ("eth_getBlockByNumber", [hex(head), False])]))
    reply("blocks_batch", "eth_getBlockByNumber eth_getBlockByNumber eth_getBlockByNumber",
          node.batch_raw([("eth_getBlockByNumber", [hex(n), False]) for n in (1, 2, 3)]))
    reply("unknown_method", "eth_blockNumber", node.call_raw("eth_noSuchMethod"))
    reply("http_error", "503 eth_blockNumber", b"<html>503 Service Unavailable</html>")

    # Each block with its receipts, as the receipts proof reads them.
    for i, r in enumerate(receipts):
        block = node.call_raw("eth_getBlockByHash", [r["blockHash"], False])
        rec = node.call_raw("eth_getBlockReceipts", [r["blockHash"]])
        write("receipts", f"block_{i}",
              json.dumps(json.loads(block)["result"], separators=(",", ":")).encode() + b"\n"
              + json.dumps(json.loads(rec)["result"], separators=(",", ":")).encode())

    # Each log's data under its event's inputs.
    events = {}
    for abi in (token_abi, zoo_abi):
        for e in abi:
            if e["type"] == "event":
                sig = e["name"] + "(" + ",".join(canonical(i) for i in e["inputs"]) + ")"
                events[node.call("web3_sha3", ["0x" + sig.encode().hex()])] = e
    seen = set()
    for log in node.call("eth_getLogs",
                         [{"fromBlock": "0x0", "toBlock": hex(head), "address": [token, zoo]}]):
        e = events.get(log["topics"][0]) if log["topics"] else None
        if e is None:
            e = next(x for x in zoo_abi if x.get("name") == "Anon")
        name = f"{e['name']}_{len(log['topics'])}_{len(log['data'])}"
        if name in seen:
            continue
        seen.add(name)
        inputs = json.dumps(e["inputs"], separators=(",", ":")).encode()
        write("abi_decoder", name, inputs + b"\n" + bytes.fromhex(log["data"][2:]))
    return token, holder, receipts[0]["blockHash"]


def canonical(param):
    t = param["type"]
    if t.startswith("tuple"):
        return "(" + ",".join(canonical(c) for c in param["components"]) + ")" + t[5:]
    return t


def static_corpora(token, holder, block_hash):
    # ABI files as --abi reads them: both artefacts' ABIs, one whole artefact (its
    # bytecode cut), and the decode-budget bomb.
    for name in ("DemoToken", "AbiZoo"):
        with open(os.path.join(ROOT, "resources/contracts", name + ".json")) as f:
            artefact = json.load(f)
        write("abi_file", name.lower() + ".abi.json", json.dumps(artefact["abi"], indent=2))
    artefact["bytecode"] = artefact["bytecode"][:66]
    write("abi_file", "artefact.json", json.dumps(artefact))
    with open(os.path.join(ROOT, "tests/data/InnerArraysBomb.abi.json"), "rb") as f:
        write("abi_file", "inner_arrays_bomb.abi.json", f.read())

    # HTTP requests as curl, a Prometheus scraper and a JSON-RPC library send them.
    rpc = b'{"jsonrpc":"2.0","method":"getLatestBlock","params":[],"id":1}'
    http = {
        "curl_post": b"POST / HTTP/1.1\r\nHost: 127.0.0.1:9100\r\nUser-Agent: curl/7.88.1\r\n"
                     b"Accept: */*\r\nContent-Type: application/json\r\nContent-Length: "
                     + str(len(rpc)).encode() + b"\r\n\r\n" + rpc,
        "prometheus_get": b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9100\r\nUser-Agent: "
                          b"Prometheus/2.42.0\r\nAccept: application/openmetrics-text;"
                          b"version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n"
                          b"Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10"
                          b"\r\n\r\n",
        "chunked": b"POST / HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n"
                   b"Content-Type: application/json\r\n\r\n1a;ext=1\r\n"
                   + rpc[:26] + b"\r\n" + hex(len(rpc) - 26)[2:].encode() + b"\r\n" + rpc[26:]
                   + b"\r\n0\r\nX-Trailer: yes\r\n\r\n",
        "pipelined": b"GET /metrics HTTP/1.1\r\nHost: a\r\n\r\nPOST /?x=1 HTTP/1.1\r\nHost: a\r\n"
                     b"Content-Length: " + str(len(rpc)).encode() + b"\r\n\r\n" + rpc
                     + b"GET http://127.0.0.1:9100/metrics#f HTTP/1.1\r\nHost: a\r\n"
                       b"Connection: close\r\n\r\n",
        "expect_continue": b"POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\n"
                           b"Content-Length: " + str(len(rpc)).encode() + b"\r\n\r\n" + rpc,
        "http10_bare_lf": b"\n\nGET /metrics HTTP/1.0\nHost: a\nConnection: keep-alive\n\n",
        "smuggling": b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n"
                     b"Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
    }
    for name, data in http.items():
        write("http_request", name, data)

    # JSON-RPC bodies as the local API's clients send them (the specification's examples
    # with our methods).
    bodies = {
        "by_height": {"jsonrpc": "2.0", "method": "getBlockByHeight", "params": [1], "id": 1},
        "by_height_hex": {"jsonrpc": "2.0", "method": "getBlockByHeight",
                          "params": {"height": "0x10"}, "id": "a"},
        "by_id": {"jsonrpc": "2.0", "method": "getBlockById", "params": [block_hash], "id": 2},
        "is_valid": {"jsonrpc": "2.0", "method": "blockIsValid",
                     "params": {"hash": block_hash}, "id": None},
        "balances": {"jsonrpc": "2.0", "method": "getBalances",
                     "params": {"contract": token, "holder": holder}, "id": 3},
        "balances_all": {"jsonrpc": "2.0", "method": "getBalances", "params": [token], "id": 4},
        "notification": {"jsonrpc": "2.0", "method": "getCheckpoint"},
        "batch": [{"jsonrpc": "2.0", "method": "getLatestBlock", "id": 1},
                  {"jsonrpc": "2.0", "method": "getCheckpoint", "params": []},
                  {"foo": "boo"}, 1,
                  {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "x"}, "id": "5"}],
    }
    for name, body in bodies.items():
        write("jsonrpc", name, json.dumps(body))
    write("jsonrpc", "parse_error", b'{"jsonrpc": "2.0", "method": "foobar, "params": "bar"')

    # Config files as `forkscope index --config` reads them.
    full = {
        "rpc": "http://127.0.0.1:8545", "db": "/tmp/forkscope-fuzz.sqlite", "env": "lab",
        "source": "cfg", "contracts": [token], "fromBlock": 0, "confirmations": 1,
        "maxReorgDepth": 32, "batchSize": 50, "pollMs": 100, "logCap": 10000,
        "fetchWorkers": 2, "logsPerCall": 500, "rpcTimeoutMs": 10000, "verify": "receipts",
        "maxReplyMb": 32, "outboxFile": "/tmp/out.jsonl", "abi": "DemoToken.json",
        "metricsPort": 9100, "nodes": ["http://127.0.0.1:8545", "https://rpc.example:443/k"],
        "readyRatio": 0.5, "lagThreshold": 3, "checkIntervalMs": 200, "leaseMs": 30000,
        "exitWhenSynced": True,
    }
    write("config", "every_key.json", json.dumps(full, indent=2))
    write("config", "minimal.json", json.dumps(
        {"rpc": "http://127.0.0.1:8545", "db": "postgresql://postgres@127.0.0.1:5432/fs",
         "env": "team", "contracts": [token, holder]}))
    write("config", "webhook.json", json.dumps(
        {"rpc": "https://node.example/v1", "db": "a.sqlite", "env": "e", "contracts": [token],
         "webhook": "http://127.0.0.1:9000/hook", "webhookBatch": 20,
         "webhookTimeoutMs": 2500}))


def main():
    anvil = sys.argv[1] if len(sys.argv) > 1 else ANVIL
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([anvil, "--port", str(port), "--silent"])
    try:
        node = Node(f"http://127.0.0.1:{port}")
        for _ in range(200):
            try:
                node.call("eth_chainId")
                break
            except OSError:
                time.sleep(0.05)
        static_corpora(*node_corpora(node))
    finally:
        proc.terminate()
        proc.wait()
    # fuzz_rlp reads structure, not text: a few fixed inputs to start from.
    for n in (1, 64, 512):
        write("rlp", f"bytes_{n}", bytes((i * 37 + n) & 0xff for i in range(n)))


if __name__ == "__main__":
    main()
