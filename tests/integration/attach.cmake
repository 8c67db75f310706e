# Attach tests: `flyprof attach|start|stop|dump|status|list` against workload JVMs started
# without the agent (or with it loaded idle, test_attach_sessions.py) (tests/integration/test_attach*.py; test_attach_common.py is their shared
# module). One ctest per (test, JDK), int_<test>_<jdk>, on the JDKs integration.cmake found.
# This fragment is included before integration.cmake (fragments are sorted), so the tests are
# added at the end of the directory, once its JDK list and Python are known.
# attach_user needs root (it starts a JVM as nobody); it reports SKIP (77) otherwise.

# RUN_SERIAL: the profiles are timed by the wall clock (see integration.cmake)
flyprof_int_tests(TESTS attach attach_cycles attach_errors attach_user stuck_handler agent_cpu
    attach_churn class_unload attach_sessions stop_races long_thread_names
    LABELS integration attach TIMEOUT 240 PROPERTIES SKIP_RETURN_CODE 77)
