#!/usr/bin/env bash
# The screenshots of README.md and docs/app.md, at 1280x720, of the real app on its defaults (managed anvil,
# demo traffic) under Xvfb. Each scene is grabbed once what it shows is true of the window
# (app/ScreenshotScene.cpp), not after a guessed delay:
#   packaging/screenshot.sh [OUT_DIR]     (default: resources/screenshots)
#   synced.png       the main window at the head
#   reorg.png        after an injected reorg, with its diff open
#   incomplete.png   the indexed node hides logs: the data-incomplete banner
#   unreachable.png  a node that does not answer: the error state
#   contracts.png    the Contracts tab: the lab's sources with their checkpoints
#   forktree.png     the Fork tree tab after three injected reorgs
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$here/resources/screenshots}"
app="$here/build/app/forkscope"
mkdir -p "$out"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# Settings of their own: the user's saved settings (and theirs only) stay out of the pictures.
export XDG_CONFIG_HOME="$scratch/config" XDG_DATA_HOME="$scratch/data"
shoot() { # scene, least delay in ms, then extra arguments
  local scene="$1" delay="$2"
  shift 2
  xvfb-run -a -s "-screen 0 1400x900x24" "$app" --db "$scratch/$scene.sqlite" \
    --screenshot "$out/$scene.png" --screenshot-scene "$scene" --screenshot-after-ms "$delay" "$@" \
    > "$scratch/$scene.log" 2>&1 || { cat "$scratch/$scene.log" >&2; exit 1; }
  echo "wrote $out/$scene.png"
}
shoot synced 30000 # half a minute of history in the charts
shoot reorg 4000
shoot incomplete 4000
shoot contracts 4000
shoot forktree 4000
# What a first-time user gets from `forkscope --rpc URL` when nothing listens there (fresh
# settings, no contracts yet): the node is named as what is wrong, the missing contracts
# beside it.
shoot unreachable 3000 --rpc http://127.0.0.1:9
