# The agent's per-thread event buffers (agent/events.c) against a fake JNIEnv: producers and a
# draining consumer, the log read back with the collector's reader; -tsan races them for real.
flyprof_unit_test(test_events SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_events.c
    ${CMAKE_SOURCE_DIR}/agent/events.c ${CMAKE_SOURCE_DIR}/agent/tls.c
    ${CMAKE_SOURCE_DIR}/agent/tsc.c ${CMAKE_SOURCE_DIR}/tests/unit/fplgen.c
    ${CMAKE_SOURCE_DIR}/collector/format/fpl_chunk.c ${CMAKE_SOURCE_DIR}/collector/read/reader.c
    LIBS ZLIB::ZLIB SANITIZE address undefined thread JNI)
