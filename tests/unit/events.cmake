# The agent's per-thread event buffers (agent/writer/events.c) against a fake JNIEnv: producers and a
# draining consumer, the log read back with the collector's reader; -tsan races them for real.
flyprof_unit_test(test_events SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_events.c
    ${CMAKE_SOURCE_DIR}/agent/writer/events.c ${CMAKE_SOURCE_DIR}/agent/sigsafe/tls.c
    ${CMAKE_SOURCE_DIR}/agent/sigsafe/tsc.c ${CMAKE_SOURCE_DIR}/agent/sigsafe/counters.c
    ${CMAKE_SOURCE_DIR}/tests/unit/fplgen.c
    ${CMAKE_SOURCE_DIR}/collector/format/fpl_chunk.c ${CMAKE_SOURCE_DIR}/collector/read/reader.c
    ${CMAKE_SOURCE_DIR}/collector/read/namedict.c ${CMAKE_SOURCE_DIR}/collector/format/fpl_stackring.c
    LIBS ZLIB::ZLIB SANITIZE address undefined thread JNI)
