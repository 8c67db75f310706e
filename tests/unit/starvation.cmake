# CPU starvation (collector/model/starvation.c) on synthetic logs: the arithmetic, the wall
# tick period, the selection hook, and the summary's text and JSON.
flyprof_collector_test(test_starvation)
