# Hiccup mode on real JVMs (test_hiccups.py): GC pauses, a CPU hog and a quiet JVM, with
# -agentpath and attached; one ctest per JDK, int_hiccups_<jdk> (_int_jdks and _int_python
# come from integration.cmake, included before this file). The hog part pins busy loops to one
# CPU: RUN_SERIAL.
foreach(_jdk IN LISTS _int_jdks)
    get_filename_component(_label "${_jdk}" NAME)
    string(REGEX REPLACE "^java-" "" _label "${_label}")
    string(REGEX REPLACE "-(amd64|x64|x86_64|arm64|aarch64)$" "" _label "${_label}")
    string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" _label "${_label}")
    add_test(NAME int_hiccups_${_label}
        COMMAND ${_int_python} ${CMAKE_CURRENT_LIST_DIR}/test_hiccups.py
            --build ${CMAKE_BINARY_DIR} --java ${_jdk}/bin/java
            --agent ${CMAKE_BINARY_DIR}/lib/libflyprof.so
            --cli ${CMAKE_BINARY_DIR}/bin/flyprof
            --jar ${CMAKE_BINARY_DIR}/lib/flyprof.jar)
    set_tests_properties(int_hiccups_${_label} PROPERTIES LABELS "integration;attach"
        TIMEOUT 600 RUN_SERIAL TRUE ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
endforeach()
