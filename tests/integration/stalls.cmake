# Hiccup mode on real JVMs (test_hiccups.py): GC pauses, a CPU hog and a quiet JVM, with
# -agentpath and attached; one ctest per JDK, int_hiccups_<jdk> (flyprof_int_tests,
# tests/CMakeLists.txt). The hog part pins busy loops to one CPU.
flyprof_int_tests(TESTS hiccups LABELS integration attach TIMEOUT 600)
