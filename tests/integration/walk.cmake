# Stack-walker integration tests (issue 8): tests/integration/test_walk_*.py, each run with
# -agentpath and attached to an already running JVM (walk_common.py), one ctest per (test, JDK)
# like integration.cmake's -- int_<test>_<jdk> -- on the same JDKs, label `integration`,
# RUN_SERIAL (they measure shares over wall-clock time).
#
# The JDK list and the Python come from integration.cmake, included before this file (fragments
# are included in sorted order, from the same scope): _int_jdks and _int_python.

if(NOT DEFINED _int_python OR NOT DEFINED _int_jdks)
    message(WARNING "flyprof: walk.cmake found no JDK list from integration.cmake; "
        "stack-walker integration tests run on JDK 17 only")
    find_package(Python3 REQUIRED COMPONENTS Interpreter)
    set(_walk_python ${Python3_EXECUTABLE})
    set(_walk_jdks /usr/lib/jvm/java-17-openjdk-amd64)
else()
    set(_walk_python ${_int_python})
    set(_walk_jdks ${_int_jdks})
endif()

# test name and its timeout in seconds: JVM runs paced by the workers' CPU seconds (3-9 s each,
# two to four runs), with room for a loaded machine
set(_walk_tests walk_faults:420 walk_arraycopy:420 walk_dispatch:600 walk_intrinsics:420
    walk_javac:600)
foreach(_jdk IN LISTS _walk_jdks)
    if(NOT EXISTS "${_jdk}/bin/java")
        continue()
    endif()
    get_filename_component(_label "${_jdk}" NAME)
    string(REGEX REPLACE "^java-" "" _label "${_label}")
    string(REGEX REPLACE "-(amd64|x64|x86_64|arm64|aarch64)$" "" _label "${_label}")
    string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" _label "${_label}")
    foreach(_tt IN LISTS _walk_tests)
        string(REPLACE ":" ";" _tt "${_tt}")
        list(GET _tt 0 _t)
        list(GET _tt 1 _timeout)
        add_test(NAME int_${_t}_${_label}
            COMMAND ${_walk_python} ${CMAKE_CURRENT_LIST_DIR}/test_${_t}.py
                --build ${CMAKE_BINARY_DIR} --java ${_jdk}/bin/java
                --agent ${CMAKE_BINARY_DIR}/lib/libflyprof.so
                --cli ${CMAKE_BINARY_DIR}/bin/flyprof
                --jar ${CMAKE_BINARY_DIR}/lib/flyprof.jar)
        set_tests_properties(int_${_t}_${_label} PROPERTIES LABELS integration
            TIMEOUT ${_timeout} RUN_SERIAL TRUE ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
    endforeach()
endforeach()
