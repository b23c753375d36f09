#!/usr/bin/env bash
# Takes a screenshot of the real window with live data (managed anvil + demo traffic)
# under Xvfb: packaging/screenshot.sh [OUT.png] [DELAY_MS]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$here/resources/screenshots/main-window.png}"
delay="${2:-20000}"
mkdir -p "$(dirname "$out")"
db="$(mktemp -d)/screenshot.sqlite"
xvfb-run -a -s "-screen 0 1400x900x24" "$here/build/app/forkscope" --db "$db" \
  --screenshot "$out" --screenshot-after-ms "$delay"
echo "wrote $out"
