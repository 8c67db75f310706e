# The HTML flame graph's embedded data (test_html.c); the same executable writes the pages
# the browser test opens (tests/browser/).
flyprof_collector_test(test_html)
