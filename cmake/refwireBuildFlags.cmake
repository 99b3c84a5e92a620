# Flags for what this project builds itself (library sources, tests, examples,
# benchmarks). Consumers of the installed package never see them.
add_library(refwire_build_flags INTERFACE)
target_compile_features(refwire_build_flags INTERFACE cxx_std_20)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  target_compile_options(refwire_build_flags INTERFACE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
    -Wsign-conversion -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Woverloaded-virtual)
  # Two g++ checks that depend on the optimizer and fire falsely at -O2/-O3 on
  # code refwire cannot change: -Wrestrict on `"literal" + std::string` (g++ 12,
  # GCC bug 105329), and -Wmaybe-uninitialized inside libstdc++'s std::variant
  # and on out-parameters filled by a bool-returning reader. clang's
  # -Wuninitialized (CI builds everything with clang too) still checks the latter.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    target_compile_options(refwire_build_flags INTERFACE -Wno-maybe-uninitialized)
    if(CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
      target_compile_options(refwire_build_flags INTERFACE -Wno-restrict)
    endif()
  endif()
  if(REFWIRE_WERROR)
    target_compile_options(refwire_build_flags INTERFACE -Werror)
  endif()
endif()
if(REFWIRE_SANITIZE AND REFWIRE_SANITIZE_THREAD)
  message(FATAL_ERROR "REFWIRE_SANITIZE (ASan+UBSan) and REFWIRE_SANITIZE_THREAD (TSan) cannot be combined")
endif()
if(REFWIRE_SANITIZE_THREAD)
  target_compile_options(refwire_build_flags INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(refwire_build_flags INTERFACE -fsanitize=thread)
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
