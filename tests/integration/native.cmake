# Native frames and every thread's CPU (issue 8 items 3, 4): tests/integration/test_native_*.py
# on every JDK (flyprof_int_tests, tests/CMakeLists.txt). Each test also attaches to a
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

# CPU coverage and shares need the cores (RUN_SERIAL, as every flyprof_int_tests test)
flyprof_int_tests(TESTS native_frames native_gc native_nolock LABELS integration native)
