# test_spill: the samples' temporary file (collector/model/spill.c) gives back every record as
# appended, across its 1 MiB buffer's flushes and refills, and fails by name, never silently.
flyprof_unit_test(test_spill
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_spill.c ${CMAKE_SOURCE_DIR}/collector/model/spill.c
    SANITIZE address undefined)
