# Install rules and the find_package(refwire CONFIG) package.
#
# Installed layout:
#   include/refwire/...                 the merged public headers of every component
#   lib/librefwire_*.a                  the compiled components
#   lib/cmake/refwire/                  refwireConfig.cmake, refwireConfigVersion.cmake,
#                                       refwireTargets*.cmake
include(CMakePackageConfigHelpers)

set(refwire_exported_targets refwire_serialization refwire_rpc refwire_transports refwire)
set(refwire_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/refwire)

foreach(component serialization rpc transports)
  if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/${component}/include)
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/${component}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  endif()
endforeach()
install(TARGETS ${refwire_exported_targets}
  EXPORT refwireTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(EXPORT refwireTargets NAMESPACE refwire:: DESTINATION ${refwire_cmake_dir})

# refwire_dependency_code, pasted into refwireConfig.cmake (find_dependency
# must be called from the config file itself): how a consumer finds again the third-party
# targets the exported ones link (a static library's private dependencies are
# link dependencies of its users). Debian ships no CMake config for lz4,
# xxhash or protobuf, so each family of imported target is mapped to the call
# that recreates it. The list is derived from the targets' link libraries, so
# a component that links a new dependency needs no change here unless the
# dependency is of an unknown family, which fails the configure step loudly.
set(refwire_dependency_code "")
set(refwire_seen_dependencies "")
function(refwire_add_dependency_code code)
  if(NOT code IN_LIST refwire_seen_dependencies)
    list(APPEND refwire_seen_dependencies "${code}")
    set(refwire_seen_dependencies "${refwire_seen_dependencies}" PARENT_SCOPE)
    string(APPEND refwire_dependency_code "${code}\n")
    set(refwire_dependency_code "${refwire_dependency_code}" PARENT_SCOPE)
  endif()
endfunction()

foreach(target IN LISTS refwire_exported_targets)
  get_target_property(type ${target} TYPE)
  get_target_property(libs ${target} INTERFACE_LINK_LIBRARIES)
  if(NOT libs)
    set(libs "")
  endif()
  if(type STREQUAL "STATIC_LIBRARY")
    get_target_property(private_libs ${target} LINK_LIBRARIES)
    if(private_libs)
      list(APPEND libs ${private_libs})
    endif()
  endif()
  foreach(lib IN LISTS libs)
    while(lib MATCHES "^\\$<(LINK_ONLY|INSTALL_INTERFACE):(.*)>$")
      set(lib "${CMAKE_MATCH_2}")
    endwhile()
    if(lib STREQUAL "" OR lib MATCHES "^\\$<BUILD_INTERFACE:" OR lib MATCHES "^(refwire::|refwire_)"
       OR lib STREQUAL "refwire")
      continue()
    endif()
    if(lib MATCHES "^\\$<")
      message(WARNING "refwireInstall: ${target} links '${lib}'; the installed package does not re-find it")
    elseif(lib MATCHES "^Boost::")
      refwire_add_dependency_code("find_dependency(Boost ${REFWIRE_BOOST_MIN_VERSION} CONFIG)")
    elseif(lib MATCHES "^simdjson::")
      refwire_add_dependency_code("find_dependency(simdjson CONFIG)")
    elseif(lib MATCHES "^protobuf::")
      refwire_add_dependency_code("find_dependency(Protobuf)")
    elseif(lib MATCHES "^Threads::")
      refwire_add_dependency_code("find_dependency(Threads)")
    elseif(lib MATCHES "^OpenSSL::")
      refwire_add_dependency_code("find_dependency(OpenSSL)")
    elseif(lib MATCHES "^PkgConfig::(.+)$")
      set(prefix "${CMAKE_MATCH_1}")
      set(module "$CACHE{${prefix}_MODULE_NAME}")
      if(NOT module)
        set(module "${prefix}")
      endif()
      refwire_add_dependency_code("find_dependency(PkgConfig)")
      refwire_add_dependency_code("refwire_find_pkg_config(${prefix} ${module})")
    elseif(lib MATCHES "::")
      message(FATAL_ERROR "refwireInstall: ${target} links ${lib}; teach cmake/refwireInstall.cmake "
        "how a consumer of the installed package finds it again")
    endif()
    # A plain library name (pthread, dl, ...) is passed to the linker as -l<name>.
  endforeach()
endforeach()
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/refwireConfig.cmake.in
  ${PROJECT_BINARY_DIR}/refwireConfig.cmake
  INSTALL_DESTINATION ${refwire_cmake_dir})
# 0.x: a minor version may break the API, so only the same 0.MINOR is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/refwireConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/refwireConfig.cmake ${PROJECT_BINARY_DIR}/refwireConfigVersion.cmake
  DESTINATION ${refwire_cmake_dir})
