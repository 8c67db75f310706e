# The hiccup benchmark's floor (tests/bench/bench.py, part "hiccup"): threads that only sleep,
# to set the probes' cost beside what the kernel charges for a wake-up. Built with the tests,
# into BUILD/tests; never run by ctest.
add_executable(flyprof_sleepfloor ${CMAKE_CURRENT_LIST_DIR}/sleepfloor.c)
set_target_properties(flyprof_sleepfloor PROPERTIES RUNTIME_OUTPUT_DIRECTORY
    ${CMAKE_BINARY_DIR}/tests OUTPUT_NAME sleepfloor)
target_compile_options(flyprof_sleepfloor PRIVATE ${FLYPROF_WARNINGS})
target_link_libraries(flyprof_sleepfloor PRIVATE Threads::Threads)
