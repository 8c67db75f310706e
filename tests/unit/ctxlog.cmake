# test_ctxlog: agent/writer/ctxlog.c, the writer's endpoint names: each written once, requests
# by id, the cache's slots taken in turn, names written again after a lost chunk.
flyprof_unit_test(test_ctxlog
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_ctxlog.c ${CMAKE_SOURCE_DIR}/agent/writer/ctxlog.c
    ${CMAKE_SOURCE_DIR}/agent/sigsafe/counters.c
    LIBS Threads::Threads
    SANITIZE address undefined)
