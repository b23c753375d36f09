#!/usr/bin/env bash
# Installs everything Forkscope needs to build, test and run on Debian 12 (bookworm).
# Idempotent: a second run installs nothing and takes a second or two.
#   - Debian packages: compiler, lld (the linker), CMake/Ninja, Qt 6, QCustomPlot (Qt 6 build), SQLite,
#     Boost (header-only Multiprecision), Xvfb for screenshots, the tools the .deb
#     packaging test uses (dpkg-dev, file, appstream, desktop-file-utils), the DejaVu fonts
#     the PDF report is set in, poppler-utils (pdfinfo, pdftotext) for the report tests, and
#     PostgreSQL 15 with libpq for the team backend's throwaway clusters (no system cluster).
#   - anvil (the devnet) from the npm registry into .deps/anvil/ inside the checkout.
#   - Ponder, a third-party indexer the lab runs and audits, from the npm registry into
#     .deps/ponder/, at the versions resources/indexers/ponder/package-lock.json pins.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ANVIL_VERSION="1.7.1"
ANVIL_PREFIX="${here}/.deps/anvil"
ANVIL_BIN="${ANVIL_PREFIX}/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil"
PONDER_SOURCE="${here}/resources/indexers/ponder"
PONDER_PREFIX="${here}/.deps/ponder"

APT_PACKAGES=(
  g++ lld cmake ninja-build make
  qt6-base-dev libqt6sql6-sqlite
  # The fork tree's SVG export (QSvgGenerator).
  qt6-svg-dev
  libqcustomplot-dev libsqlite3-dev libboost-dev libsimdjson-dev
  xvfb xauth
  fonts-dejavu-core poppler-utils
  nodejs npm ca-certificates
  # cpack's DEB generator runs dpkg-shlibdeps (dpkg-dev) on the files `file` calls ELF;
  # the packaging test validates the metadata with appstreamcli and desktop-file-validate.
  dpkg-dev file appstream desktop-file-utils
  # The `format` test checks every source file against the committed .clang-format.
  clang-format
  # `make test-sanitize` builds with clang for libFuzzer (tests/fuzz); its runtime is a
  # Recommends that --no-install-recommends would skip.
  clang libclang-rt-14-dev
  # Tests read the database from a second process, as a user or an outside checker would
  # (sqlite3), and the torture run's independent checker is a Python script (psycopg2:
  # its reads of a PostgreSQL index).
  sqlite3 python3 python3-psycopg2
  # The team backend: `forkscope pg-lab` and the tests run throwaway clusters
  # with PostgreSQL 15's initdb/pg_ctl, and the tests connect through libpq.
  postgresql-15 libpq-dev
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    # node/npm may come from elsewhere (e.g. NodeSource); accept any working binary.
    case "$p" in
      nodejs) command -v node >/dev/null 2>&1 && continue ;;
      npm)    command -v npm  >/dev/null 2>&1 && continue ;;
    esac
    missing+=("$p")
  fi
done

SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO="sudo"
if ((${#missing[@]})); then
  echo "bootstrap: installing Debian packages: ${missing[*]}"
  # Only the programs: no system-wide cluster is created or started (nothing depends on a
  # service being up; every cluster is a throwaway one, lab::PgLab).
  if [[ ! -e /etc/postgresql-common/createcluster.conf ]]; then
    $SUDO mkdir -p /etc/postgresql-common
    echo "create_main_cluster = false" | $SUDO tee /etc/postgresql-common/createcluster.conf >/dev/null
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  # Our createcluster.conf stays (no prompt about a changed configuration file).
  $SUDO env UCF_FORCE_CONFFOLD=1 apt-get install -y -qq --no-install-recommends \
    -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold "${missing[@]}"
fi

if [[ ! -x "${ANVIL_BIN}" ]]; then
  echo "bootstrap: installing anvil ${ANVIL_VERSION} from npm into ${ANVIL_PREFIX}"
  mkdir -p "${ANVIL_PREFIX}"
  npm install --prefix "${ANVIL_PREFIX}" --no-audit --no-fund --loglevel=error \
    "@foundry-rs/anvil-linux-amd64@${ANVIL_VERSION}"
fi
"${ANVIL_BIN}" --version >/dev/null

# Installed again only when the pinned lock changes.
if ! cmp -s "${PONDER_SOURCE}/package-lock.json" "${PONDER_PREFIX}/package-lock.json" ||
   [[ ! -x "${PONDER_PREFIX}/node_modules/.bin/ponder" ]]; then
  echo "bootstrap: installing Ponder (pinned) from npm into ${PONDER_PREFIX}"
  mkdir -p "${PONDER_PREFIX}"
  cp "${PONDER_SOURCE}/package.json" "${PONDER_SOURCE}/package-lock.json" "${PONDER_PREFIX}/"
  # In its folder: `npm ci --prefix` does not read the lock there.
  (cd "${PONDER_PREFIX}" && npm ci --no-audit --no-fund --loglevel=error)
fi
echo "bootstrap: ok (anvil at ${ANVIL_BIN}, ponder at ${PONDER_PREFIX})"
