# `cpack -G DEB` in the build directory turns the install tree into forkscope_<ver>_<arch>.deb
# for Debian 12. Library dependencies come from dpkg-shlibdeps (Qt 6, QCustomPlot,
# SQLite, ...); what it cannot see is listed by hand below.
set(CPACK_GENERATOR "DEB")
set(CPACK_PACKAGE_NAME "forkscope")
set(CPACK_PACKAGE_VENDOR "The Forkscope developers")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_HOMEPAGE_URL "https://github.com/forkscope/forkscope")
set(CPACK_RESOURCE_FILE_LICENSE "${CMAKE_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
# The build is RelWithDebInfo for developers; users get stripped binaries.
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)   # forkscope_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_MAINTAINER
    "The Forkscope developers <forkscope@users.noreply.github.com>")
set(CPACK_DEBIAN_PACKAGE_SECTION "devel")
set(CPACK_DEBIAN_PACKAGE_PRIORITY "optional")
# The long description; CPack puts CPACK_PACKAGE_DESCRIPTION_SUMMARY above it as the
# synopsis line.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "A Qt 6 desktop app that runs a reorg-safe indexer against a local
devnet (anvil) or any EVM JSON-RPC endpoint, stores into SQLite and charts
cursor lag, reorg events, outbox backlog and node health. The same engine
runs headless as `forkscope index`.
The managed lab runs the anvil 1.7.1 shipped in /usr/libexec/forkscope
(from the npm package @foundry-rs/anvil-linux-amd64, MIT OR Apache-2.0).")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Qt loads the SQLite driver as a plugin at run time, so dpkg-shlibdeps never sees it;
# without it every database open fails. CPack appends the shlibdeps result to this list.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libqt6sql6-sqlite")
# `forkscope pg-lab` runs PostgreSQL 15's initdb and pg_ctl (the rest works without).
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "postgresql-15")
# npm is the way to install anvil for the managed lab; the app also works without it
# against any JSON-RPC endpoint.

include(CPack)
