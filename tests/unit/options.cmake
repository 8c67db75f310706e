flyprof_unit_test(test_options SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_options.c
    ${CMAKE_SOURCE_DIR}/agent/options.c ${CMAKE_SOURCE_DIR}/agent/loopfiles.c
    ${CMAKE_SOURCE_DIR}/collector/format/fpl_optval.c
    SANITIZE address undefined)
