# The torture test (tests/integration/test_torture.py): a minute of thread churn, class
# unloading, a signal-blocking JNI thread and Java API start/stop cycles on a real JVM, then
# timers, fds, RSS, queued signals and threads checked flat. One ctest per JDK,
# int_torture_<jdk>, labelled `torture` as well as `integration`: `ctest -LE torture` leaves it
# out of quick runs; scripts/test and CI run everything. Its JNI library, built here:
# libflyprof_torture.so (tests/jni/torture_blocker.c).
# Included before integration.cmake (fragments are sorted): the tests are added at the end of
# the directory, once its JDK list and Python are known.

flyprof_jni_library(flyprof_torture_jni flyprof_torture
    ${CMAKE_SOURCE_DIR}/tests/jni/torture_blocker.c)

flyprof_int_tests(TESTS torture LABELS integration torture TIMEOUT 600)
