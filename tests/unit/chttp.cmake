# ClickHouse's HTTP interface as flyprof push uses it (collector/fleet/chttp.c): URLs, quoting.
flyprof_unit_test(test_chttp SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_chttp.c
    ${CMAKE_SOURCE_DIR}/collector/fleet/chttp.c INCLUDES ${CMAKE_SOURCE_DIR}/collector/fleet
    SANITIZE address undefined)
