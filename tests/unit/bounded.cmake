# test_render_bounded: outputs in bounded memory (folded lines streamed in order, the flame
# graph's node budget). Like the other render tests it links the collector's sources compiled
# for its variant, so the -asan variant checks them under ASan/UBSan.
flyprof_unit_test(test_render_bounded
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_render_bounded.c
        ${CMAKE_SOURCE_DIR}/tests/unit/fplgen.c COLLECTOR
    LIBS ZLIB::ZLIB m SANITIZE address undefined)
