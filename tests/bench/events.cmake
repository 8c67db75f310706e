# The events benchmark's JNI floor (tests/bench/bench.py, part "events"): a library with one
# empty static native, loaded by dev.flyprof.bench.EventCost. Built with the tests, into
# BUILD/tests; never run by ctest.
add_library(flyprof_jnifloor SHARED ${CMAKE_CURRENT_LIST_DIR}/jnifloor.c)
set_target_properties(flyprof_jnifloor PROPERTIES LIBRARY_OUTPUT_DIRECTORY
    ${CMAKE_BINARY_DIR}/tests)
target_compile_options(flyprof_jnifloor PRIVATE ${FLYPROF_WARNINGS})
# the JDK headers are not warning-clean under -Wstrict-prototypes
target_include_directories(flyprof_jnifloor SYSTEM PRIVATE ${JNI_INCLUDE})
