# The agent's per-thread event buffers (agent/events.c) against a fake JNIEnv: producers and a
# draining consumer, the log read back with the collector's reader; -tsan races them for real.
flyprof_unit_test(test_events SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_events.c
    ${CMAKE_SOURCE_DIR}/agent/events.c ${CMAKE_SOURCE_DIR}/agent/tls.c
    ${CMAKE_SOURCE_DIR}/agent/tsc.c ${CMAKE_SOURCE_DIR}/tests/unit/fplgen.c
    ${CMAKE_SOURCE_DIR}/collector/format/fpl_chunk.c ${CMAKE_SOURCE_DIR}/collector/read/reader.c
    LIBS ZLIB::ZLIB SANITIZE address undefined thread)
foreach(t test_events test_events-asan test_events-tsan)
    if(TARGET ${t})
        target_compile_definitions(${t} PRIVATE _GNU_SOURCE)
        # the JDK headers are not warning-clean under -Wstrict-prototypes
        target_include_directories(${t} SYSTEM PRIVATE ${JNI_INCLUDE})
    endif()
endforeach()
