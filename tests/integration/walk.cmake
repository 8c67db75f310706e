# Stack-walker integration tests (issues 8, 24): tests/integration/test_walk_*.py, each run with
# -agentpath and attached to an already running JVM (walk_common.py), one ctest per (test, JDK)
# like integration.cmake's -- int_<test>_<jdk> -- on the same JDKs, label `integration`,
# RUN_SERIAL (they measure shares over wall-clock time).
# Registered by flyprof_int_tests (tests/CMakeLists.txt).

# test name and its timeout in seconds: JVM runs paced by the workers' CPU seconds (3-9 s each,
# two to four runs), with room for a loaded machine
set(_walk_tests walk_faults:420 walk_arraycopy:420 walk_dispatch:600 walk_intrinsics:420
    walk_javac:600 walk_monitor:420 walk_own:900)
flyprof_int_tests(TESTS ${_walk_tests})
