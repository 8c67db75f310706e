# browser_html_budget (tests/browser/test_html_budget.py): the flame graph's node budget in
# headless chromium, on the logs test_render_bounded --write makes. Label `integration`;
# skipped without chromium.
if(EXISTS /usr/bin/python3)
    set(_budget_python /usr/bin/python3)
else()
    find_package(Python3 REQUIRED COMPONENTS Interpreter)
    set(_budget_python ${Python3_EXECUTABLE})
endif()
add_test(NAME browser_html_budget
    COMMAND ${_budget_python} ${CMAKE_CURRENT_LIST_DIR}/test_html_budget.py
        --build ${CMAKE_BINARY_DIR} --cli ${CMAKE_BINARY_DIR}/bin/flyprof
        --helper $<TARGET_FILE:test_render_bounded>)
# RUN_SERIAL: chromium is heavy on a 2-core machine
set_tests_properties(browser_html_budget PROPERTIES LABELS integration TIMEOUT 300
    RUN_SERIAL TRUE SKIP_RETURN_CODE 77 ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
