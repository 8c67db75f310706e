# test_hiccup_probes: the hiccup probes' lifecycle across sessions (agent/engines/hiccup.c) with a fake
# JVM, a Java probe blocked past the stop's grace included. Needs the JDK's jni.h / jvmti.h.
flyprof_unit_test(test_hiccup_probes
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_hiccup_probes.c ${CMAKE_SOURCE_DIR}/agent/engines/hiccup.c
        ${CMAKE_SOURCE_DIR}/agent/sigsafe/tsc.c ${CMAKE_SOURCE_DIR}/collector/model/hdr.c
        ${CMAKE_SOURCE_DIR}/collector/format/fpl_chunk.c
    LIBS ZLIB::ZLIB m
    SANITIZE address undefined thread JNI)
