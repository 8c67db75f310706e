# The jitter report's bins and a short run of the spin threads (also under ThreadSanitizer:
# the slot hand-over between the spin threads and the reader is lock-free). The stall test is
# tests/integration/test_jitter.py.
flyprof_unit_test(test_jitter SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_jitter.c
    ${CMAKE_SOURCE_DIR}/collector/jitter/jitter.c ${CMAKE_SOURCE_DIR}/collector/jitter/jclock.c
    ${CMAKE_SOURCE_DIR}/collector/jitter/jitter_report.c ${CMAKE_SOURCE_DIR}/collector/model/hdr.c
    LIBS m SANITIZE address undefined thread)
