# test_classlog: agent/writer/classlog.c, the writer's METHOD2 records: each class once as
# CLASS_NAME, the cache's slots taken in turn, classes written again after a lost chunk,
# METHOD records where METHOD2 cannot serve.
flyprof_unit_test(test_classlog
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_classlog.c
    ${CMAKE_SOURCE_DIR}/agent/writer/classlog.c
    JNI SANITIZE address undefined)
