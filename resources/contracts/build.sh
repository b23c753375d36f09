#!/usr/bin/env bash
# Regenerates the committed artefacts <Name>.json (ABI + creation bytecode) from <Name>.sol
# with solc-js 0.8.26 from the npm registry. Builds and tests use the committed JSON, so
# they never need solc.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
npm install --prefix "$work" --no-audit --no-fund --loglevel=error solc@0.8.26 >/dev/null
for name in DemoToken AbiZoo DemoFactory; do
  rm -rf "$work/out"
  (cd "$work" && node_modules/.bin/solcjs --optimize --bin --abi -o out "$here/$name.sol" >/dev/null)
  bin="$(cat "$work"/out/*"$name".bin)"
  abi="$(cat "$work"/out/*"$name".abi)"
  printf '{\n  "contractName": "%s",\n  "compiler": "solc-js 0.8.26 --optimize",\n  "abi": %s,\n  "bytecode": "0x%s"\n}\n' \
    "$name" "$abi" "$bin" > "$here/$name.json"
  echo "wrote $here/$name.json"
done
