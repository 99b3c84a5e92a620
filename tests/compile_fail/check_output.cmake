# Runs one compile_fail case: cmake -DCASE=<case file> -P check_output.cmake
# The case file (written by refwire_compile_fail* in CMakeLists.txt) sets
# COMPILER, FLAGS, SOURCE, REQUIRE_COUNT and REQUIRE_0... (regexes that must
# all match the compiler's output), FORBID_COUNT and FORBID_0... (regexes that
# must not match) and MAX_ERRORS (the most times "error:" may appear in the
# output; empty: any). One variable per regex, so a regex may hold ; [ ].
include(${CASE})

execute_process(COMMAND ${COMPILER} ${FLAGS} ${SOURCE}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(output "${out}${err}")
set(failed "")
if(status EQUAL 0)
  string(APPEND failed "  the source compiled; it must not\n")
endif()
set(i 0)
while(i LESS REQUIRE_COUNT)
  if(NOT output MATCHES "${REQUIRE_${i}}")
    string(APPEND failed "  missing: ${REQUIRE_${i}}\n")
  endif()
  math(EXPR i "${i} + 1")
endwhile()
set(i 0)
while(i LESS FORBID_COUNT)
  if(output MATCHES "${FORBID_${i}}")
    string(APPEND failed "  present but forbidden: ${FORBID_${i}}\n")
  endif()
  math(EXPR i "${i} + 1")
endwhile()
if(NOT "${MAX_ERRORS}" STREQUAL "")
  string(REGEX MATCHALL "error:" errors "${output}")
  list(LENGTH errors count)
  if(count GREATER MAX_ERRORS)
    string(APPEND failed "  ${count} lines with error:, at most ${MAX_ERRORS} allowed\n")
  endif()
endif()
if(NOT failed STREQUAL "")
  message(FATAL_ERROR "compile_fail ${SOURCE}:\n${failed}--- compiler output ---\n${output}")
endif()
