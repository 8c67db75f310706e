# A JNI worker thread that detaches from the JVM and runs on in C (test_detached.py): its CPU is
# still sampled. One ctest per JDK (flyprof_int_tests, tests/CMakeLists.txt), -agentpath and
# attached. Its JNI library, built here: libflyprof_detached.so (tests/jni/detached_worker.c).
add_library(flyprof_detached_jni SHARED ${CMAKE_SOURCE_DIR}/tests/jni/detached_worker.c)
set_target_properties(flyprof_detached_jni PROPERTIES OUTPUT_NAME flyprof_detached
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
target_compile_options(flyprof_detached_jni PRIVATE ${FLYPROF_WARNINGS})
target_include_directories(flyprof_detached_jni SYSTEM PRIVATE ${JNI_INCLUDE})
target_link_libraries(flyprof_detached_jni PRIVATE Threads::Threads)

flyprof_int_tests(TESTS detached LABELS integration attach native)
