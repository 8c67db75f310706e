# dev.flyprof.Context integration tests (issue 11): tests/integration/test_context.py
# (-agentpath: TracedRequests, selection by endpoint, span and root span, states, pprof labels,
# summary endpoints), test_attach_context.py (the same after `flyprof attach`) and
# test_virtual_context.py (calls from virtual threads ignored), on every JDK
# (flyprof_int_tests, tests/CMakeLists.txt).
flyprof_int_tests(TESTS context attach_context virtual_context)
