# Integration tests: real JVMs run the workloads of flyprof.jar under the agent, and the profile
# is checked against what the workload measured (tests/integration/test_*.py, stdlib Python 3).
# One ctest per (test, JDK) -- int_<test>_<jdk> -- so that a failure names the JDK. JDKs: JDK 17
# always, then every other JDK >= 11 under /usr/lib/jvm with a bin/java (symlinks deduplicated
# by real path); or exactly the list in FLYPROF_TEST_JDKS. They need the whole tree built
# (agent, CLI, jar). Run them with `ctest -L integration`.

# The system Python (the tests use the standard library only); any Python 3 where it is absent.
if(EXISTS /usr/bin/python3)
    set(_int_python /usr/bin/python3)
else()
    find_package(Python3 REQUIRED COMPONENTS Interpreter)
    set(_int_python ${Python3_EXECUTABLE})
endif()

set(FLYPROF_TEST_JDKS "" CACHE STRING
    "JDK homes the integration tests run on (default: JDK 17 and every JDK in /usr/lib/jvm)")
if(FLYPROF_TEST_JDKS)
    set(_int_candidates ${FLYPROF_TEST_JDKS})
else()
    file(GLOB _int_found LIST_DIRECTORIES true /usr/lib/jvm/*)
    list(SORT _int_found)
    set(_int_candidates /usr/lib/jvm/java-17-openjdk-amd64 ${_int_found})
    if(NOT EXISTS /usr/lib/jvm/java-17-openjdk-amd64/bin/java)
        message(WARNING "flyprof: no JDK 17 at /usr/lib/jvm/java-17-openjdk-amd64; "
            "integration tests run on the other JDKs found")
    endif()
endif()

set(_int_jdks "")
set(_int_seen "")
foreach(_jdk IN LISTS _int_candidates)
    if(NOT IS_DIRECTORY "${_jdk}" OR NOT EXISTS "${_jdk}/bin/java")
        continue()
    endif()
    get_filename_component(_real "${_jdk}" REALPATH)
    if(_real IN_LIST _int_seen)
        continue()
    endif()
    # The jar is built for Java 11: skip older JDKs (their release file says 1.8.0_x etc.).
    set(_major 0)
    if(EXISTS "${_real}/release")
        file(STRINGS "${_real}/release" _ver REGEX "^JAVA_VERSION=")
        if(_ver MATCHES "^JAVA_VERSION=\"1\\.")
            set(_major 1)
        elseif(_ver MATCHES "^JAVA_VERSION=\"([0-9]+)")
            set(_major ${CMAKE_MATCH_1})
        endif()
    endif()
    if(_major LESS 11)
        message(STATUS "flyprof: integration tests skip ${_jdk} (not a JDK >= 11)")
        continue()
    endif()
    list(APPEND _int_seen "${_real}")
    list(APPEND _int_jdks "${_jdk}")
endforeach()

set(_int_tests split123 two_threads counted_loop thread_names failure_markers bad_option
    record clock_duration dict_bound perf_engine units killed_render)
foreach(_jdk IN LISTS _int_jdks)
    # A short, readable label: java-17-openjdk-amd64 -> 17-openjdk, temurin-25-jdk-amd64 ->
    # temurin-25-jdk.
    get_filename_component(_label "${_jdk}" NAME)
    string(REGEX REPLACE "^java-" "" _label "${_label}")
    string(REGEX REPLACE "-(amd64|x64|x86_64|arm64|aarch64)$" "" _label "${_label}")
    string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" _label "${_label}")
    message(STATUS "flyprof: integration tests on ${_jdk} (${_label})")
    foreach(_t IN LISTS _int_tests)
        add_test(NAME int_${_t}_${_label}
            COMMAND ${_int_python} ${CMAKE_CURRENT_LIST_DIR}/test_${_t}.py
                --build ${CMAKE_BINARY_DIR} --java ${_jdk}/bin/java
                --agent ${CMAKE_BINARY_DIR}/lib/libflyprof.so
                --cli ${CMAKE_BINARY_DIR}/bin/flyprof
                --jar ${CMAKE_BINARY_DIR}/lib/flyprof.jar)
        # RUN_SERIAL: the workloads are timed by the wall clock, so two tests sharing the two
        # cores would each get fewer samples than the tolerances were sized for.
        # SKIP_RETURN_CODE: a test whose tool is missing (perf_event_open refused) exits 77;
        # under CI=true it fails instead (flyprof_test.skip)
        set_tests_properties(int_${_t}_${_label} PROPERTIES LABELS integration TIMEOUT 240
            RUN_SERIAL TRUE SKIP_RETURN_CODE 77 ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
    endforeach()
endforeach()

# skip_ci: the harnesses' skip() exits 77 (ctest: skipped) but fails under CI=true, and no test
# exits 77 by hand. No JVM.
add_test(NAME skip_ci COMMAND ${_int_python} ${CMAKE_CURRENT_LIST_DIR}/test_skip_ci.py)
set_tests_properties(skip_ci PROPERTIES LABELS unit TIMEOUT 60
    ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
