# Frame name normalization (collector/model/names.c): generated class names of every JDK.
flyprof_unit_test(test_names SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_names.c
    ${CMAKE_SOURCE_DIR}/collector/model/names.c SANITIZE address undefined)
