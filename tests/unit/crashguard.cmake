# test_crashguard: agent/sigsafe/crashguard.c alone. Faults in the program's own code under an armed
# guard end the walk; faults in another library's code (libflyprof_cgforeign.so, a second
# profiler's signal handler interrupting the walk) reach the handler installed before the guard.
add_library(flyprof_cgforeign SHARED ${CMAKE_SOURCE_DIR}/tests/unit/crashguard_foreign.c)
set_target_properties(flyprof_cgforeign PROPERTIES OUTPUT_NAME flyprof_cgforeign
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
target_compile_options(flyprof_cgforeign PRIVATE ${FLYPROF_WARNINGS})
flyprof_unit_test(test_crashguard
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_crashguard.c ${CMAKE_SOURCE_DIR}/agent/sigsafe/crashguard.c
    LIBS flyprof_cgforeign dl)
