# Install rules and the find_package(refwire CONFIG) package.
include(CMakePackageConfigHelpers)

install(DIRECTORY serialization/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS refwire_serialization refwire_rpc refwire_transports refwire
  EXPORT refwireTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT refwireTargets NAMESPACE refwire:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/refwire)

configure_package_config_file(cmake/refwireConfig.cmake.in
  ${PROJECT_BINARY_DIR}/refwireConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/refwire)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/refwireConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/refwireConfig.cmake ${PROJECT_BINARY_DIR}/refwireConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/refwire)
