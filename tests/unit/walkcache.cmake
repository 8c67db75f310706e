# test_walkcache: the stack walker's caches (agent/sigsafe/framecache.c, the jmethodID memo in
# codecache.c) on fake HotSpot structures: hits give back what was stored, an nmethod or a
# Method* replaced at the same address is never taken for the old one, and entries written and
# read by many threads at once are never torn (the -tsan variant checks the sequence locks).
flyprof_unit_test(test_walkcache
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_walkcache.c
    ${CMAKE_SOURCE_DIR}/agent/sigsafe/framecache.c ${CMAKE_SOURCE_DIR}/agent/sigsafe/codecache.c
    JNI SANITIZE address undefined thread)
