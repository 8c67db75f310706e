# The torture test (tests/integration/test_torture.py): a minute of thread churn, class
# unloading, a signal-blocking JNI thread and Java API start/stop cycles on a real JVM, then
# timers, fds, RSS, queued signals and threads checked flat. One ctest per JDK,
# int_torture_<jdk>, labelled `torture` as well as `integration`: `ctest -LE torture` leaves it
# out of quick runs; scripts/test and CI run everything. Its JNI library, built here:
# libflyprof_torture.so (tests/jni/torture_blocker.c).
# Included before integration.cmake (fragments are sorted): the tests are added at the end of
# the directory, once its JDK list and Python are known.

add_library(flyprof_torture_jni SHARED ${CMAKE_SOURCE_DIR}/tests/jni/torture_blocker.c)
set_target_properties(flyprof_torture_jni PROPERTIES OUTPUT_NAME flyprof_torture
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
target_compile_options(flyprof_torture_jni PRIVATE ${FLYPROF_WARNINGS})
target_include_directories(flyprof_torture_jni SYSTEM PRIVATE ${JNI_INCLUDE})
target_link_libraries(flyprof_torture_jni PRIVATE Threads::Threads)

set(_torture_dir ${CMAKE_CURRENT_LIST_DIR})

function(_flyprof_torture_tests)
    if(NOT DEFINED _int_jdks OR NOT DEFINED _int_python)
        message(WARNING "flyprof: torture test not added: integration.cmake's JDK list is "
            "missing")
        return()
    endif()
    foreach(_jdk IN LISTS _int_jdks)
        get_filename_component(_label "${_jdk}" NAME)
        string(REGEX REPLACE "^java-" "" _label "${_label}")
        string(REGEX REPLACE "-(amd64|x64|x86_64|arm64|aarch64)$" "" _label "${_label}")
        string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" _label "${_label}")
        add_test(NAME int_torture_${_label}
            COMMAND ${_int_python} ${_torture_dir}/test_torture.py
                --build ${CMAKE_BINARY_DIR} --java ${_jdk}/bin/java
                --agent ${CMAKE_BINARY_DIR}/lib/libflyprof.so
                --cli ${CMAKE_BINARY_DIR}/bin/flyprof
                --jar ${CMAKE_BINARY_DIR}/lib/flyprof.jar)
        set_tests_properties(int_torture_${_label} PROPERTIES LABELS "integration;torture"
            TIMEOUT 600 RUN_SERIAL TRUE ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
    endforeach()
endfunction()

cmake_language(DEFER DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} CALL _flyprof_torture_tests)
