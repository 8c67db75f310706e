# Allocation and lock profiling on real JVMs (test_alloc.py, test_lock.py): workloads whose
# truth is known (HotSpot's allocated-bytes counter, the threads' own lock waits), with
# -agentpath and attached; one ctest per JDK (flyprof_int_tests, tests/CMakeLists.txt).
flyprof_int_tests(TESTS alloc lock lock_context live LABELS integration attach)
