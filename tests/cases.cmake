# cases.cmake - read by ctest (a TEST_INCLUDE_FILES of tests/CMakeLists.txt,
# cuplug_add_cases): an entry for each case a test program listed when it
# was built, one "SUITE.CASE NEED..." a line.  The entry PREFIX + SUITE.CASE
# (unit.options.names) runs PROGRAM SUITE.CASE.  Set by the including file:
# CASES_LIST, CASES_TARGET, CASES_PREFIX, CASES_PROGRAM, and the entries'
# CASES_ENV, CASES_LABELS, CASES_TIMEOUT (0: ctest's), CASES_SKIP, CASES_DIR,
# and CASES_HIDE: what a case that needs neither the toolkit nor a GPU
# adds to its environment (CUDA hidden), or nothing.
if(NOT EXISTS "${CASES_LIST}")
  # not built yet: an entry that fails and says so, rather than none
  add_test("${CASES_TARGET}.NOT_BUILT" sh -c "echo 'no ${CASES_LIST}: build the tests'; exit 1")
  set_tests_properties("${CASES_TARGET}.NOT_BUILT" PROPERTIES LABELS "${CASES_LABELS}")
  return()
endif()
file(STRINGS "${CASES_LIST}" cases_lines)
foreach(cases_line IN LISTS cases_lines)
  string(REGEX MATCH "^[^ ]+" cases_id "${cases_line}")
  set(cases_name "${CASES_PREFIX}${cases_id}")
  set(cases_env "${CASES_ENV}")
  if(CASES_HIDE AND NOT " ${cases_line} " MATCHES " (nvvm|nvrtc|nvjitlink|gpu) ")
    list(APPEND cases_env ${CASES_HIDE})
  endif()
  add_test("${cases_name}" "${CASES_PROGRAM}" "${cases_id}")
  set_tests_properties("${cases_name}" PROPERTIES ENVIRONMENT "${cases_env}"
                       LABELS "${CASES_LABELS}" SKIP_RETURN_CODE "${CASES_SKIP}"
                       WORKING_DIRECTORY "${CASES_DIR}")
  if(CASES_TIMEOUT GREATER 0)
    set_tests_properties("${cases_name}" PROPERTIES TIMEOUT "${CASES_TIMEOUT}")
  endif()
endforeach()
