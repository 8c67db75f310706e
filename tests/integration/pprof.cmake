# The pprof output read by `go tool pprof` (test_pprof.py), on every JDK (flyprof_int_tests,
# tests/CMakeLists.txt). Without `go` the test exits 77, which ctest reports as skipped.
flyprof_int_tests(TESTS pprof TIMEOUT 240 PROPERTIES SKIP_RETURN_CODE 77)
