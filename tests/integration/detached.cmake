# A JNI worker thread that detaches from the JVM and runs on in C (test_detached.py): its CPU is
# still sampled. One ctest per JDK (flyprof_int_tests, tests/CMakeLists.txt), -agentpath and
# attached. Its JNI library, built here: libflyprof_detached.so (tests/jni/detached_worker.c).
flyprof_jni_library(flyprof_detached_jni flyprof_detached
    ${CMAKE_SOURCE_DIR}/tests/jni/detached_worker.c)

flyprof_int_tests(TESTS detached LABELS integration attach native)
