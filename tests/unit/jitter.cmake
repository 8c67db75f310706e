# The jitter report's bins (the spin threads run in tests/integration/test_jitter.py).
flyprof_collector_test(test_jitter)
