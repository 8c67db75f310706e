# Signal hygiene, wall-sampling cost and exact-weight tests (issue 9: signals, itimer weights):
# tests/integration/test_<name>.py for each name in _sig_tests below, one ctest per (test, JDK)
# -- int_<test>_<jdk> -- on the JDKs integration.cmake found, label `integration`, RUN_SERIAL (they
# compare sampled CPU and signal counts with what the JVM's threads measured over wall-clock
# time). Each test runs its feature both with -agentpath and attached to a running JVM.
#
# Fragments are included in sorted order, so integration.cmake has set _int_jdks and
# _int_python by now.

set(_sig_tests itimer_weights:300 signal_hygiene:300 handler_nesting:240 perf_fds:240
    handler_busy:240
    wall_blocked:240 writer_wakeups:240)
flyprof_int_tests(TESTS ${_sig_tests} PROPERTIES SKIP_RETURN_CODE 77)
