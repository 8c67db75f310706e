# Wall-clock, thread filter, thread churn and Java API integration tests (issue 4):
# tests/integration/test_{wall_states,wall_contention,filter_marked,wall_parked,churn,api}.py,
# one ctest per (test, JDK) like integration.cmake's -- int_<test>_<jdk> -- on the same JDKs, label
# `integration`, RUN_SERIAL (they measure shares and counts over wall-clock time, and
# test_churn watches the JVM's memory from outside). Plus int_wall_fpl, the self-test of the
# tests' own .fpl reader (test_wall_fpl.py), which needs no JVM.
#
# The JDK list and the Python come from integration.cmake, included before this file (fragments
# are included in sorted order, from the same scope): _int_jdks and _int_python.

if(NOT DEFINED _int_python OR NOT DEFINED _int_jdks)
    message(WARNING "flyprof: wall.cmake found no JDK list from integration.cmake; "
        "wall integration tests run on JDK 17 only")
    find_package(Python3 REQUIRED COMPONENTS Interpreter)
    set(_wall_python ${Python3_EXECUTABLE})
    set(_wall_jdks /usr/lib/jvm/java-17-openjdk-amd64)
else()
    set(_wall_python ${_int_python})
    set(_wall_jdks ${_int_jdks})
endif()

add_test(NAME int_wall_fpl COMMAND ${_wall_python} ${CMAKE_CURRENT_LIST_DIR}/test_wall_fpl.py)
set_tests_properties(int_wall_fpl PROPERTIES LABELS integration TIMEOUT 60
    ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)

# test name and its timeout in seconds: the JVM runs it makes (a few seconds each, the churn
# ~17 s and ~10 s) with room for a loaded machine
set(_wall_tests wall_states:300 wall_contention:240 filter_marked:300 wall_parked:300 churn:420
    api:300)
foreach(_jdk IN LISTS _wall_jdks)
    if(NOT EXISTS "${_jdk}/bin/java")
        continue()
    endif()
    get_filename_component(_label "${_jdk}" NAME)
    string(REGEX REPLACE "^java-" "" _label "${_label}")
    string(REGEX REPLACE "-(amd64|x64|x86_64|arm64|aarch64)$" "" _label "${_label}")
    string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" _label "${_label}")
    foreach(_tt IN LISTS _wall_tests)
        string(REPLACE ":" ";" _tt "${_tt}")
        list(GET _tt 0 _t)
        list(GET _tt 1 _timeout)
        add_test(NAME int_${_t}_${_label}
            COMMAND ${_wall_python} ${CMAKE_CURRENT_LIST_DIR}/test_${_t}.py
                --build ${CMAKE_BINARY_DIR} --java ${_jdk}/bin/java
                --agent ${CMAKE_BINARY_DIR}/lib/libflyprof.so
                --cli ${CMAKE_BINARY_DIR}/bin/flyprof
                --jar ${CMAKE_BINARY_DIR}/lib/flyprof.jar)
        set_tests_properties(int_${_t}_${_label} PROPERTIES LABELS integration
            TIMEOUT ${_timeout} RUN_SERIAL TRUE ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
    endforeach()
endforeach()
