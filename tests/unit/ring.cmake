flyprof_unit_test(test_ring SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_ring.c ${CMAKE_SOURCE_DIR}/agent/sigsafe/ring.c SANITIZE address undefined thread)
