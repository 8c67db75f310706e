# The exports of latency time series (.hlog, CSV, InfluxDB lines).
flyprof_collector_test(test_export)
