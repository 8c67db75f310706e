# loop= and keep= (issue 20): tests/integration/test_rotate.py, one ctest per JDK, -agentpath
# and attached.
flyprof_int_tests(TESTS rotate LABELS integration attach TIMEOUT 240)
