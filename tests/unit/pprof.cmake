# The pprof writer and its protobuf encoder (test_pprof.c). Like the other collector tests, it
# links the collector's sources compiled for its variant (not flyprof_render), so the -asan
# variant checks the writer itself under ASan/UBSan.
flyprof_unit_test(test_pprof
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_pprof.c ${CMAKE_SOURCE_DIR}/tests/unit/fplgen.c
        ${CMAKE_SOURCE_DIR}/tests/unit/golden_log.c COLLECTOR
    LIBS ZLIB::ZLIB m SANITIZE address undefined)
