# A second profiler in the JVM (test_foreign_faults.py): its SIGPROF handler faults on purpose
# in its own code while flyprof's crash guard may be armed, and its own SIGSEGV handler must get
# those faults. One ctest per JDK, -agentpath and attached. Its agent library, built here:
# libflyprof_foreign.so (tests/jni/foreign_profiler.c).
flyprof_jni_library(flyprof_foreign_jni flyprof_foreign
    ${CMAKE_SOURCE_DIR}/tests/jni/foreign_profiler.c)

flyprof_int_tests(TESTS foreign_faults LABELS integration attach TIMEOUT 240)
