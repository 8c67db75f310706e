# Wall-clock, thread filter, thread churn and Java API integration tests (issue 4):
# tests/integration/test_{wall_states,wall_contention,filter_marked,wall_parked,churn,api}.py,
# one ctest per (test, JDK) like integration.cmake's -- int_<test>_<jdk> -- on the same JDKs, label
# `integration`, RUN_SERIAL (they measure shares and counts over wall-clock time, and
# test_churn watches the JVM's memory from outside). Plus int_wall_fpl, the self-test of the
# tests' own .fpl reader (test_wall_fpl.py), which needs no JVM.
# Registered by flyprof_int_tests (tests/CMakeLists.txt); _int_python comes from integration.cmake
# (included before this file: fragments are sorted).

add_test(NAME int_wall_fpl COMMAND ${_int_python} ${CMAKE_CURRENT_LIST_DIR}/test_wall_fpl.py)
set_tests_properties(int_wall_fpl PROPERTIES LABELS integration TIMEOUT 60
    ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)

# test name and its timeout in seconds: the JVM runs it makes (a few seconds each, the churn
# ~17 s and ~10 s) with room for a loaded machine
set(_wall_tests wall_states:300 wall_contention:240 filter_marked:300 wall_parked:300 churn:420
    api:300)
flyprof_int_tests(TESTS ${_wall_tests})
