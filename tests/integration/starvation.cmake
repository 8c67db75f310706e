# CPU starvation in the summary on real JVMs (test_starvation.py): 8 busy threads on 2 CPUs and
# 1 busy thread, with -agentpath and attached, checked against the kernel's schedstat; one
# ctest per JDK, int_starvation_<jdk> (_int_jdks and _int_python come from integration.cmake,
# included before this file). It pins busy threads to CPUs 0 and 1: RUN_SERIAL.
foreach(_jdk IN LISTS _int_jdks)
    get_filename_component(_label "${_jdk}" NAME)
    string(REGEX REPLACE "^java-" "" _label "${_label}")
    string(REGEX REPLACE "-(amd64|x64|x86_64|arm64|aarch64)$" "" _label "${_label}")
    string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" _label "${_label}")
    add_test(NAME int_starvation_${_label}
        COMMAND ${_int_python} ${CMAKE_CURRENT_LIST_DIR}/test_starvation.py
            --build ${CMAKE_BINARY_DIR} --java ${_jdk}/bin/java
            --agent ${CMAKE_BINARY_DIR}/lib/libflyprof.so
            --cli ${CMAKE_BINARY_DIR}/bin/flyprof
            --jar ${CMAKE_BINARY_DIR}/lib/flyprof.jar)
    set_tests_properties(int_starvation_${_label} PROPERTIES LABELS "integration;attach"
        TIMEOUT 300 RUN_SERIAL TRUE ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
endforeach()
