# dev.flyprof.Context integration tests (issue 11): tests/integration/test_context.py
# (-agentpath: TracedRequests, selection by endpoint, span and root span, states, pprof labels,
# summary endpoints) and test_attach_context.py (the same after `flyprof attach`), on every JDK
# (flyprof_int_tests, tests/CMakeLists.txt).
flyprof_int_tests(TESTS context attach_context)
