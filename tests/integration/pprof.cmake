# The pprof output read by `go tool pprof` (test_pprof.py), on every JDK the other integration
# tests run on (_int_jdks and _int_python come from integration.cmake, included before this
# file). Without `go` the test exits 77, which ctest reports as skipped.
foreach(_jdk IN LISTS _int_jdks)
    get_filename_component(_label "${_jdk}" NAME)
    string(REGEX REPLACE "^java-" "" _label "${_label}")
    string(REGEX REPLACE "-(amd64|x64|x86_64|arm64|aarch64)$" "" _label "${_label}")
    string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" _label "${_label}")
    add_test(NAME int_pprof_${_label}
        COMMAND ${_int_python} ${CMAKE_CURRENT_LIST_DIR}/test_pprof.py
            --build ${CMAKE_BINARY_DIR} --java ${_jdk}/bin/java
            --agent ${CMAKE_BINARY_DIR}/lib/libflyprof.so
            --cli ${CMAKE_BINARY_DIR}/bin/flyprof
            --jar ${CMAKE_BINARY_DIR}/lib/flyprof.jar)
    # RUN_SERIAL: the workload's shares need the cores to itself, as in integration.cmake
    set_tests_properties(int_pprof_${_label} PROPERTIES LABELS integration TIMEOUT 240
        RUN_SERIAL TRUE SKIP_RETURN_CODE 77 ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
endforeach()
