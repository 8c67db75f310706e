# The attach client (collector/attach/attach.c) without a JVM: parsers, the protocol exchange, a fake
# JVM's socket and reply files, and the guards that keep SIGQUIT from processes it could kill.
flyprof_unit_test(test_attach SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_attach.c
    ${CMAKE_SOURCE_DIR}/collector/attach/attach.c SANITIZE address undefined)
