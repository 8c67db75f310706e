# The pprof writer and its protobuf encoder (test_pprof.c). Like the other collector tests, the
# collector's sources are compiled into the test (not linked from flyprof_render), so the
# -asan variant checks the writer itself under ASan/UBSan.
flyprof_unit_test(test_pprof
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_pprof.c ${CMAKE_SOURCE_DIR}/tests/unit/fplgen.c
        ${CMAKE_SOURCE_DIR}/tests/unit/golden_log.c ${FLYPROF_COLLECTOR_SOURCES}
    LIBS ZLIB::ZLIB m SANITIZE address undefined)
