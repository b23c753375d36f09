#!/usr/bin/env bash
# Starts this Ponder project against the lab: `forkscope lab run --indexer` and the test
# suites run it as the indexer command. It reads what forkscope passes in the environment
# (FORKSCOPE_RPC, FORKSCOPE_CONTRACTS, FORKSCOPE_CHAIN_ID, DATABASE_URL, FORKSCOPE_WORK_DIR)
# and writes the table `transfer_event` into the PostgreSQL schema $PONDER_SCHEMA (default
# ponder_lab). Ponder itself is installed, pinned, by packaging/bootstrap.sh.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
modules="${PONDER_MODULES:-${here}/../../../.deps/ponder/node_modules}"
if [[ ! -x "${modules}/.bin/ponder" ]]; then
  echo "run.sh: Ponder is not installed at ${modules}: run packaging/bootstrap.sh" >&2
  exit 2
fi
if [[ -z "${DATABASE_URL:-}" || -z "${FORKSCOPE_RPC:-}" ]]; then
  echo "run.sh: DATABASE_URL and FORKSCOPE_RPC must be set (forkscope lab run sets both)" >&2
  exit 2
fi

# Ponder builds in its project folder; a copy per run keeps the checkout clean.
work="${FORKSCOPE_WORK_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/forkscope-ponder-XXXXXX")}/ponder"
mkdir -p "${work}"
cp -r "${here}/ponder.config.ts" "${here}/ponder.schema.ts" "${here}/ponder-env.d.ts" \
  "${here}/src" "${work}/"
ln -sfn "$(cd "${modules}" && pwd)" "${work}/node_modules"
cd "${work}"

# Nothing leaves the machine.
export PONDER_TELEMETRY_DISABLED=true
exec node "${work}/node_modules/ponder/dist/esm/bin/ponder.js" start \
  --schema "${PONDER_SCHEMA:-ponder_lab}" --port "${PONDER_PORT:-0}" --log-format json
