# Hiccup-mode records through the reader, the stall causes and the hiccup series.
flyprof_collector_test(test_hiccups)
