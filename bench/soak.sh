#!/usr/bin/env bash
# The soak (not CI): the desktop app on its defaults (managed anvil, two lab
# nodes, SQLite file) with demo traffic at TRANSFERS a second, for SECONDS. Samples the
# process's RssAnon and RssFile every 10 s and prints them, then the growth of anonymous
# memory over the first and the last third of the run: it must level off.
#   bench/soak.sh [BUILD_DIR=build] [SECONDS=3600] [TRANSFERS=50]
set -euo pipefail
build="${1:-build}"
seconds="${2:-3600}"
rate="${3:-50}"
app="${build}/app/forkscope"
[[ -x "$app" ]] || { echo "soak: no $app; build first (make build)" >&2; exit 1; }
work="$(mktemp -d)"
trap 'kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
QT_QPA_PLATFORM=offscreen "$app" --db "$work/soak.sqlite" --demo-transfers "$rate" \
  >"$work/app.log" 2>&1 &
pid=$!
echo "# soak: pid $pid, $rate transfers/s, $seconds s, database $work/soak.sqlite"
echo "# t_s rss_anon_kb rss_file_kb"
samples=()
for ((t = 0; t <= seconds; t += 10)); do
  kill -0 "$pid" 2>/dev/null || { echo "soak: the app exited early; its log:" >&2; tail -20 "$work/app.log" >&2; exit 1; }
  anon=$(awk '/^RssAnon:/ {print $2}' "/proc/$pid/status")
  file=$(awk '/^RssFile:/ {print $2}' "/proc/$pid/status")
  echo "$t $anon $file"
  samples+=("$anon")
  sleep 10
done
n=${#samples[@]}
third=$((n / 3))
first=$(( (samples[third] - samples[0]) ))
last=$(( (samples[n - 1] - samples[n - 1 - third]) ))
echo "# RssAnon growth: first third +${first} kB, last third +${last} kB (of $((third * 10)) s each)"
echo "# transfers indexed: $(sqlite3 "$work/soak.sqlite" 'select count(*) from transfer_events')"
