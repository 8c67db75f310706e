# flyprof push into a real clickhouse-server (issue 20): tests/integration/test_push.py, one
# ctest per JDK (the JDK only runs the workload that makes the logs). Reports SKIP (77) when
# the server is not installed (scripts/setup installs it with the test tools).
flyprof_int_tests(TESTS push LABELS integration TIMEOUT 300 PROPERTIES SKIP_RETURN_CODE 77)
