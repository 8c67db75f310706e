# Signal hygiene, wall-sampling cost and exact-weight tests (issue 9: signals, itimer weights):
# tests/integration/test_<name>.py for each name in _sig_tests below, one ctest per (test, JDK)
# -- int_<test>_<jdk> -- on the JDKs integration.cmake found, label `integration`, RUN_SERIAL (they
# compare sampled CPU and signal counts with what the JVM's threads measured over wall-clock
# time). Each test runs its feature both with -agentpath and attached to a running JVM.
#
# Fragments are included in sorted order, so integration.cmake has set _int_jdks and
# _int_python by now.

if(NOT DEFINED _int_python OR NOT DEFINED _int_jdks)
    message(WARNING "flyprof: signals.cmake found no JDK list from integration.cmake; "
        "signal integration tests not added")
    return()
endif()

# test name and its timeout in seconds
set(_sig_tests itimer_weights:300 signal_hygiene:300 handler_nesting:240 perf_fds:240
    wall_blocked:240 writer_wakeups:240)
foreach(_jdk IN LISTS _int_jdks)
    get_filename_component(_label "${_jdk}" NAME)
    string(REGEX REPLACE "^java-" "" _label "${_label}")
    string(REGEX REPLACE "-(amd64|x64|x86_64|arm64|aarch64)$" "" _label "${_label}")
    string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" _label "${_label}")
    foreach(_tt IN LISTS _sig_tests)
        string(REPLACE ":" ";" _tt "${_tt}")
        list(GET _tt 0 _t)
        list(GET _tt 1 _timeout)
        add_test(NAME int_${_t}_${_label}
            COMMAND ${_int_python} ${CMAKE_CURRENT_LIST_DIR}/test_${_t}.py
                --build ${CMAKE_BINARY_DIR} --java ${_jdk}/bin/java
                --agent ${CMAKE_BINARY_DIR}/lib/libflyprof.so
                --cli ${CMAKE_BINARY_DIR}/bin/flyprof
                --jar ${CMAKE_BINARY_DIR}/lib/flyprof.jar)
        set_tests_properties(int_${_t}_${_label} PROPERTIES LABELS integration
            TIMEOUT ${_timeout} RUN_SERIAL TRUE SKIP_RETURN_CODE 77
            ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
    endforeach()
endforeach()
