# What `cmake --install` puts next to bin/forkscope so desktops find the app: the desktop
# entry, the AppStream metainfo and the hicolor icons, all named by the app id.
# The pinned anvil goes to libexec/forkscope, where Devnet looks first after
# FORKSCOPE_ANVIL, so the managed lab works on an installed system (its licence, MIT OR
# Apache-2.0, allows it: packaging/copyright).
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

install(FILES "${CMAKE_CURRENT_LIST_DIR}/copyright"
        DESTINATION "${CMAKE_INSTALL_DATADIR}/doc/forkscope")
if(EXISTS "${FORKSCOPE_ANVIL_SOURCE}")
  install(PROGRAMS "${FORKSCOPE_ANVIL_SOURCE}"
          DESTINATION "${CMAKE_INSTALL_LIBEXECDIR}/forkscope")
else()
  message(WARNING "${FORKSCOPE_ANVIL_SOURCE} is missing (run bash packaging/bootstrap.sh): "
                  "the install and the package will have no anvil")
endif()
