# CPU starvation in the summary on real JVMs (test_starvation.py): 8 busy threads on 2 CPUs and
# 1 busy thread, with -agentpath and attached, checked against the kernel's schedstat; one
# ctest per JDK (flyprof_int_tests, tests/CMakeLists.txt). It pins busy threads to CPUs 0 and 1.
flyprof_int_tests(TESTS starvation LABELS integration attach)
