# Install rules and packaging: libgraphrt.so with its public headers (include/graphrt, the
# generated version header and protobuf headers), the CMake package (graphrtConfig.cmake with
# components keras and opencl), graphrt.pc, the command and its man page; `cpack -G DEB` makes a
# Debian package of the same. (A -march=native build is refused by the first install rule, in
# the top CMakeLists.txt.)
include(CMakePackageConfigHelpers)


set(GRAPHRT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/graphrt)

install(TARGETS graphrt EXPORT graphrtTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/graphrt
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/graphrt
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_BINARY_DIR}/proto/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/graphrt/proto
        FILES_MATCHING PATTERN "*.pb.h" PATTERN "CMakeFiles" EXCLUDE)

install(EXPORT graphrtTargets NAMESPACE graphrt:: DESTINATION ${GRAPHRT_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/graphrtConfig.cmake.in
  ${PROJECT_BINARY_DIR}/graphrtConfig.cmake INSTALL_DESTINATION ${GRAPHRT_CMAKE_DIR})
# 0.x: a minor version may change the API.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/graphrtConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/graphrtConfig.cmake ${PROJECT_BINARY_DIR}/graphrtConfigVersion.cmake
        DESTINATION ${GRAPHRT_CMAKE_DIR})

# pkg-config: the prefix is found from the .pc file's own place, so the tree can be installed
# anywhere (cmake --install --prefix DIR).
file(RELATIVE_PATH GRAPHRT_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
configure_file(${PROJECT_SOURCE_DIR}/cmake/graphrt.pc.in ${PROJECT_BINARY_DIR}/graphrt.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/graphrt.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# Debian package: run-time dependencies from dpkg-shlibdeps; the headers need protobuf's and
# Eigen's to build against.
set(CPACK_PACKAGE_NAME graphrt)
set(CPACK_PACKAGE_VENDOR "graphrt")
set(CPACK_PACKAGE_CONTACT "graphrt developers <graphrt@users.noreply.github.com>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Runs TensorFlow 1.x-style models (GraphDef, SavedModel, Keras .h5) from C++")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION libdevel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libprotobuf-dev, libeigen3-dev")
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://github.com/graphrt/graphrt")
set(CPACK_GENERATOR DEB)
include(CPack)
