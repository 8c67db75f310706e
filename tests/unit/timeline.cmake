# The samples' times for the HTML page's timeline (test_timeline.c): the model's bins exact
# and capped, and the page's per-bin data; the same executable writes the log the browser
# test of the timeline opens (tests/browser/test_html_timeline.py).
flyprof_collector_test(test_timeline)
