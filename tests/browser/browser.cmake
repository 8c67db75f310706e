# Browser tests of the HTML flame graph (tests/browser/test_html_*.py, stdlib Python 3): headless
# chromium opens pages made by `flyprof convert` / `flyprof diff` -- from the small logs of
# test_html --write, and from a real JVM run of Split123 under the agent (on the JDK the build
# found). Label `integration`; they need the whole tree built. Without chromium (scripts/setup
# installs it) they report themselves skipped.
if(EXISTS /usr/bin/python3)
    set(_html_python /usr/bin/python3)
else()
    find_package(Python3 REQUIRED COMPONENTS Interpreter)
    set(_html_python ${Python3_EXECUTABLE})
endif()

add_test(NAME browser_html_pages
    COMMAND ${_html_python} ${CMAKE_CURRENT_LIST_DIR}/test_html_pages.py
        --build ${CMAKE_BINARY_DIR} --cli ${CMAKE_BINARY_DIR}/bin/flyprof
        --helper $<TARGET_FILE:test_html>)
add_test(NAME browser_html_real
    COMMAND ${_html_python} ${CMAKE_CURRENT_LIST_DIR}/test_html_real.py
        --build ${CMAKE_BINARY_DIR} --java ${FLYPROF_JDK}/bin/java
        --cli ${CMAKE_BINARY_DIR}/bin/flyprof --agent ${CMAKE_BINARY_DIR}/lib/libflyprof.so
        --jar ${CMAKE_BINARY_DIR}/lib/flyprof.jar)
# frame types: colors and legend of the page, folded --annotate (a log of test_html --write)
add_test(NAME browser_html_types
    COMMAND ${_html_python} ${CMAKE_CURRENT_LIST_DIR}/test_html_types.py
        --build ${CMAKE_BINARY_DIR} --cli ${CMAKE_BINARY_DIR}/bin/flyprof
        --helper $<TARGET_FILE:test_html>)
# the timeline: rows, colors by state, ranges from the URL and by dragging (a log of
# test_timeline --write whose sample times are known)
add_test(NAME browser_html_timeline
    COMMAND ${_html_python} ${CMAKE_CURRENT_LIST_DIR}/test_html_timeline.py
        --build ${CMAKE_BINARY_DIR} --cli ${CMAKE_BINARY_DIR}/bin/flyprof
        --helper $<TARGET_FILE:test_timeline>)
# one request alone: #view=timeline&span=ID and a click on a mark (a log of test_timeline
# --write whose samples carry known trace contexts)
add_test(NAME browser_html_spans
    COMMAND ${_html_python} ${CMAKE_CURRENT_LIST_DIR}/test_html_spans.py
        --build ${CMAKE_BINARY_DIR} --cli ${CMAKE_BINARY_DIR}/bin/flyprof
        --helper $<TARGET_FILE:test_timeline>)
# the page at 1400x900 and 1000x700: footer and title whole, one palette for states in the
# legend, the timeline and the flame graph, lanes in the legend, rows of a minimum height (a
# log of test_timeline --write)
add_test(NAME browser_html_layout
    COMMAND ${_html_python} ${CMAKE_CURRENT_LIST_DIR}/test_html_layout.py
        --build ${CMAKE_BINARY_DIR} --cli ${CMAKE_BINARY_DIR}/bin/flyprof
        --helper $<TARGET_FILE:test_timeline>)
# a diff colors changes beyond sampling noise only: two draws of one distribution, and a real
# 5-point shift (logs of test_html --write)
add_test(NAME browser_html_diff_noise
    COMMAND ${_html_python} ${CMAKE_CURRENT_LIST_DIR}/test_html_diff_noise.py
        --build ${CMAKE_BINARY_DIR} --cli ${CMAKE_BINARY_DIR}/bin/flyprof
        --helper $<TARGET_FILE:test_html>)
# RUN_SERIAL: the real run is timed by the wall clock (as the other integration tests), and
# chromium is heavy on a 2-core machine.
set_tests_properties(browser_html_pages browser_html_real browser_html_types
    browser_html_timeline browser_html_spans browser_html_layout browser_html_diff_noise
    PROPERTIES
    LABELS integration
    TIMEOUT 300 RUN_SERIAL TRUE SKIP_RETURN_CODE 77 ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
