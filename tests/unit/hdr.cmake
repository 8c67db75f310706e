# The HdrHistogram-layout latency histogram.
flyprof_collector_test(test_hdr)
