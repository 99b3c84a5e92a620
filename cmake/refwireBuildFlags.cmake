# Flags for what this project builds itself (library sources, tests, examples,
# benchmarks). Consumers of the installed package never see them.
add_library(refwire_build_flags INTERFACE)
target_compile_features(refwire_build_flags INTERFACE cxx_std_20)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(refwire_build_flags INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wsign-conversion -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual)
  # g++ 12 warns falsely on `"literal" + std::string` (-Wrestrict, GCC PR 105329,
  # fixed in 13): the check is off for that compiler only.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(refwire_build_flags INTERFACE -Wno-restrict)
  endif()
  if(REFWIRE_WERROR)
    target_compile_options(refwire_build_flags INTERFACE -Werror)
  endif()
endif()
if(REFWIRE_SANITIZE)
  target_compile_options(refwire_build_flags INTERFACE -fsanitize=address,undefined
    -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(refwire_build_flags INTERFACE -fsanitize=address,undefined)
endif()

# refwire_target_defaults(<target>): C++20, warnings and sanitizers on a target we build.
function(refwire_target_defaults target)
  target_link_libraries(${target} PRIVATE $<BUILD_INTERFACE:refwire_build_flags>)
endfunction()
