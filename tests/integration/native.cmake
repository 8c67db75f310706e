# Native frames and every thread's CPU (issue 8 items 3, 4): tests/integration/test_native_*.py
# on every JDK integration.cmake found (_int_jdks and _int_python; this fragment is included
# after it: fragments are sorted and "native" > "integration"). Each test also attaches to a
# running JVM. native_nolock preloads nolock_shim.so, built here, into the JVMs and runs
# nolock_control (its negative controls).
add_library(nolock_shim MODULE ${CMAKE_CURRENT_LIST_DIR}/nolock_shim.c)
set_target_properties(nolock_shim PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests
    PREFIX lib)
target_compile_options(nolock_shim PRIVATE ${FLYPROF_WARNINGS})
target_link_libraries(nolock_shim PRIVATE dl Threads::Threads)
add_executable(nolock_control ${CMAKE_CURRENT_LIST_DIR}/nolock_control.c)
set_target_properties(nolock_control PROPERTIES RUNTIME_OUTPUT_DIRECTORY
    ${CMAKE_BINARY_DIR}/tests)
target_compile_options(nolock_control PRIVATE ${FLYPROF_WARNINGS})
target_link_libraries(nolock_control PRIVATE PkgConfig::UNWIND)

foreach(_jdk IN LISTS _int_jdks)
    get_filename_component(_label "${_jdk}" NAME)
    string(REGEX REPLACE "^java-" "" _label "${_label}")
    string(REGEX REPLACE "-(amd64|x64|x86_64|arm64|aarch64)$" "" _label "${_label}")
    string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" _label "${_label}")
    foreach(_t native_frames native_gc native_nolock)
        add_test(NAME int_${_t}_${_label}
            COMMAND ${_int_python} ${CMAKE_CURRENT_LIST_DIR}/test_${_t}.py
                --build ${CMAKE_BINARY_DIR} --java ${_jdk}/bin/java
                --agent ${CMAKE_BINARY_DIR}/lib/libflyprof.so
                --cli ${CMAKE_BINARY_DIR}/bin/flyprof
                --jar ${CMAKE_BINARY_DIR}/lib/flyprof.jar)
        # RUN_SERIAL: CPU coverage and shares need the cores (see integration.cmake)
        set_tests_properties(int_${_t}_${_label} PROPERTIES LABELS "integration;native"
            TIMEOUT 300 RUN_SERIAL TRUE ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
    endforeach()
endforeach()
