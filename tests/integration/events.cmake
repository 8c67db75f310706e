# dev.flyprof.Events integration tests (issue 13): tests/integration/test_events.py
# (-agentpath: four threads' events, a burst into a small buffer, events=0, no agent) and
# test_attach_events.py (the API starts recording after `flyprof attach`), on every JDK
# (flyprof_int_tests, tests/CMakeLists.txt); the burst and the intervals are sensitive to other
# load: RUN_SERIAL.
flyprof_int_tests(TESTS events attach_events)
