#!/usr/bin/env bash
# The .deb as a user gets it: cpack builds it from this build tree into a temporary
# directory (nothing is left in the checkout), then the package's control data and file
# list are checked, it is unpacked, its desktop metadata validated and its binary run.
# Usage: test_deb.sh CPACK BUILD_DIR
set -euo pipefail

cpack="${1:?usage: test_deb.sh CPACK BUILD_DIR}"
build="${2:?usage: test_deb.sh CPACK BUILD_DIR}"
app_id="io.github.forkscope.Forkscope"

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

# All of these come from packaging/bootstrap.sh; a missing one is a set-up error, not a skip.
for tool in dpkg-deb dpkg-shlibdeps file readelf strings appstreamcli desktop-file-validate; do
  command -v "$tool" >/dev/null 2>&1 || fail "$tool not found; run bash packaging/bootstrap.sh"
done

work="$(mktemp -d "${TMPDIR:-/tmp}/forkscope-deb.XXXXXX")"
app_pid=""
cleanup() {
  [[ -n "$app_pid" ]] && kill -KILL "$app_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

if ! "$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1; then
  cat "$work/cpack.log" >&2
  fail "cpack -G DEB failed"
fi
debs=("$work"/out/forkscope_*.deb)
[[ ${#debs[@]} -eq 1 && -f "${debs[0]}" ]] || fail "expected one forkscope_*.deb, got: ${debs[*]}"
deb="${debs[0]}"
ok "built $(basename "$deb")"

# --- control data -----------------------------------------------------------------------
[[ "$(dpkg-deb -f "$deb" Package)" == forkscope ]] || fail "package name is not forkscope"
[[ "$(dpkg-deb -f "$deb" Section)" == devel ]] || fail "section is not devel"
version="$(dpkg-deb -f "$deb" Version)"
depends="$(dpkg-deb -f "$deb" Depends)"
echo "Depends: $depends"
# Package names only, one a line (no version constraints).
dep_names="$(tr ',' '\n' <<<"$depends" | sed -E 's/^ +//; s/[ (].*//')"
# shlibdeps finds the linked libraries; libqt6sql6-sqlite is the plugin it cannot see.
for pkg in libqt6core6 libqt6gui6 libqt6widgets6 libqt6network6 libqt6sql6 libqt6sql6-sqlite \
           libqcustomplot2.1-qt6 libsqlite3-0 libsimdjson14 libstdc++6; do
  grep -qxF "$pkg" <<<"$dep_names" || fail "Depends lacks $pkg"
done
ok "Depends declares Qt 6, the SQLite driver, QCustomPlot, SQLite and simdjson"

# --- file list --------------------------------------------------------------------------
dpkg-deb -c "$deb" | awk '{print $NF}' >"$work/contents"
for f in ./usr/bin/forkscope \
         "./usr/share/applications/$app_id.desktop" \
         "./usr/share/metainfo/$app_id.metainfo.xml" \
         "./usr/share/icons/hicolor/scalable/apps/$app_id.svg" \
         "./usr/share/icons/hicolor/48x48/apps/$app_id.png" \
         "./usr/share/icons/hicolor/128x128/apps/$app_id.png" \
         "./usr/share/icons/hicolor/256x256/apps/$app_id.png" \
         ./usr/share/doc/forkscope/LICENSE \
         ./usr/share/doc/forkscope/copyright \
         ./usr/libexec/forkscope/anvil; do
  grep -qxF "$f" "$work/contents" || fail "the package lacks $f"
done
# Tests, benchmarks, static libraries and headers stay out of the package.
if grep -E '/(tst_[a-z_]+|forkscope_bench[a-z_]*)$|\.a$|/include/' "$work/contents"; then
  fail "the package holds files it should not (above)"
fi
ok "contents: binary, anvil in libexec, desktop entry, metainfo, icons, licence and copyright"

# --- unpacked -----------------------------------------------------------------------------
root="$work/root"
dpkg-deb -x "$deb" "$root"
bin="$root/usr/bin/forkscope"
# The engine and UI libraries are static: the binary needs no RPATH, and one pointing into
# the build tree would load the developer's copies.
if readelf -d "$bin" | grep -E 'R(UN)?PATH'; then
  fail "usr/bin/forkscope carries an RPATH/RUNPATH (above)"
fi

# The test hooks stay in the build tree: the packaged binary must not even hold the name of
# the variable that arms them. The lab's in-process crash points ("mid-rollback", the
# desktop app's "Crash the indexer") are a feature and must still be there, which also
# shows that `strings` reads this binary at all.
strings -a "$bin" >"$work/strings"
grep -qF mid-rollback "$work/strings" || fail "strings finds no mid-rollback in usr/bin/forkscope"
if grep -F FORKSCOPE_CRASH "$work/strings"; then
  fail "usr/bin/forkscope holds the FORKSCOPE_CRASH_AT test hook (above)"
fi
ok "no test hooks in the packaged binary"
# Nothing of the machine that built it: a path into the checkout or the build tree would
# make the installed app run (or fail to find) the developer's files.
for path in "$(cd "$build" && pwd)" /.deps/anvil; do
  if grep -F "$path" "$work/strings"; then
    fail "usr/bin/forkscope embeds the build-machine path $path (above)"
  fi
done
ok "no build-machine path in the packaged binary"
grep -q 'Files: usr/libexec/forkscope/anvil' "$root/usr/share/doc/forkscope/copyright" ||
  fail "the copyright file does not cover the shipped anvil"

out="$("$bin" --version)" || fail "forkscope --version exited $?"
[[ "$out" == "forkscope $version" ]] || fail "forkscope --version printed '$out', package is $version"
"$bin" --help | grep -q '^Usage: forkscope' || fail "forkscope --help printed no usage"
ok "the unpacked binary answers --version ($out) and --help"

# The desktop app offscreen against an endpoint that refuses connections: Qt's platform
# plugin, the widgets and the SQLite driver plugin all load from the system, the database
# is created, and SIGTERM ends it cleanly.
db="$work/smoke.sqlite"
QT_QPA_PLATFORM=offscreen XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" \
  "$bin" --db "$db" --rpc http://127.0.0.1:1 >"$work/app.log" 2>&1 &
app_pid=$!
for _ in $(seq 1 100); do
  [[ -s "$db" ]] && break
  kill -0 "$app_pid" 2>/dev/null || break
  sleep 0.1
done
if ! kill -0 "$app_pid" 2>/dev/null; then
  cat "$work/app.log" >&2
  fail "the unpacked app exited before creating its database"
fi
[[ "$(head -c 15 "$db" 2>/dev/null)" == "SQLite format 3" ]] || {
  cat "$work/app.log" >&2; fail "the unpacked app did not create a SQLite database"; }
kill -TERM "$app_pid"
rc=0
wait "$app_pid" || rc=$?
app_pid=""
[[ $rc -eq 0 ]] || { cat "$work/app.log" >&2; fail "the unpacked app exited $rc on SIGTERM"; }
ok "the unpacked app starts offscreen, creates its SQLite database and quits on SIGTERM"

# The managed lab on an installed system: `forkscope devnet` with no checkout (.deps/), no
# FORKSCOPE_ANVIL and no anvil on PATH must start the shipped anvil, and it must answer.
env -i HOME="$work" TMPDIR="$work" PATH=/usr/bin:/bin "$bin" devnet --nodes 0 \
  >"$work/devnet.out" 2>"$work/devnet.err" &
app_pid=$!
url=""
for _ in $(seq 1 150); do
  url="$(sed -nE 's/^anvil (http:\/\/[0-9.]+:[0-9]+)\/? chain 31337.*/\1/p' "$work/devnet.out")"
  [[ -n "$url" ]] && break
  kill -0 "$app_pid" 2>/dev/null || break
  sleep 0.1
done
[[ -n "$url" ]] || { cat "$work/devnet.err" >&2; fail "forkscope devnet started no anvil"; }
hostport="${url#http://}"
body='{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'
exec 3<>"/dev/tcp/${hostport%:*}/${hostport#*:}"
printf 'POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
  "$hostport" "${#body}" "$body" >&3
reply="$(cat <&3)"
exec 3<&-
grep -q '"result":"0x7a69"' <<<"$reply" || { echo "$reply" >&2; fail "the shipped anvil did not answer eth_chainId with 31337"; }
kill -TERM "$app_pid"
wait "$app_pid" || true
app_pid=""
ok "forkscope devnet runs the shipped anvil with no checkout and nothing on PATH ($url)"

# --- desktop metadata -----------------------------------------------------------------------
desktop-file-validate "$root/usr/share/applications/$app_id.desktop" ||
  fail "desktop-file-validate rejects the desktop entry"
appstreamcli validate --no-net "$root/usr/share/metainfo/$app_id.metainfo.xml" ||
  fail "appstreamcli rejects the metainfo"
# The installed tree as a whole: metainfo, desktop entry and icon agree with each other.
appstreamcli validate-tree --no-net "$root" || fail "appstreamcli validate-tree rejects the tree"
ok "desktop entry and AppStream metainfo validate"

echo "packaging: $(basename "$deb") passed"
