# test_select: the k smallest of an array (collector/model/select.c), right on every k and
# bounded against an adversary that defeats the median of three.
flyprof_unit_test(test_select
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_select.c
        ${CMAKE_SOURCE_DIR}/collector/model/select.c
    SANITIZE address undefined)
