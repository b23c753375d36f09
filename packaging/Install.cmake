# What `cmake --install` puts next to bin/forkscope so desktops find the app: the desktop
# entry, the AppStream metainfo and the hicolor icons, all named by the app id.
# anvil is not installed: it is a separate download (see README, "Install / packaging");
# Devnet finds it through FORKSCOPE_ANVIL, ../libexec/forkscope/anvil or PATH.
include(GNUInstallDirs)

set(FORKSCOPE_APP_ID "io.github.forkscope.Forkscope")

install(FILES "${CMAKE_CURRENT_LIST_DIR}/${FORKSCOPE_APP_ID}.desktop"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/applications")
install(FILES "${CMAKE_CURRENT_LIST_DIR}/${FORKSCOPE_APP_ID}.metainfo.xml"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/metainfo")
# The PNGs are rendered from the SVG once and committed, so the build needs no SVG tool.
install(DIRECTORY "${CMAKE_SOURCE_DIR}/resources/icons/hicolor"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/icons")
install(FILES "${CMAKE_SOURCE_DIR}/LICENSE"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/forkscope")
