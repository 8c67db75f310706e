# JFR output read back by the JDK's own reader (test_jfr.py, jfr_common.py, java/JfrCheck.java),
# on every JDK (flyprof_int_tests, tests/CMakeLists.txt).
flyprof_int_tests(TESTS jfr TIMEOUT 300)
