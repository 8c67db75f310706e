# The objects that run in signal handlers may import only async-signal-safe functions (plus
# the setup calls listed in check_sigsafe.sh). A malloc, a lock, stdio or lazy TLS
# (__tls_get_addr) sneaking into them fails this test.
add_test(NAME sigsafe_imports
    COMMAND sh ${CMAKE_SOURCE_DIR}/tests/unit/check_sigsafe.sh
            "$<TARGET_OBJECTS:flyprof_sigsafe>")
set_tests_properties(sigsafe_imports PROPERTIES LABELS unit)
