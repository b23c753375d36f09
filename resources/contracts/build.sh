#!/usr/bin/env bash
# Regenerates DemoToken.json (ABI + creation bytecode) from DemoToken.sol with solc-js
# from the npm registry. The artefact is committed, so builds and tests do not need solc.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
npm install --prefix "$work" --no-audit --no-fund --loglevel=error solc@0.8.26 >/dev/null
cd "$work"
node_modules/.bin/solcjs --optimize --bin --abi -o out "$here/DemoToken.sol" >/dev/null
bin="$(cat out/*DemoToken.bin)"
abi="$(cat out/*DemoToken.abi)"
printf '{\n  "contractName": "DemoToken",\n  "compiler": "solc-js 0.8.26 --optimize",\n  "abi": %s,\n  "bytecode": "0x%s"\n}\n' "$abi" "$bin" > "$here/DemoToken.json"
echo "wrote $here/DemoToken.json"
