# test_keymap: agent/writer/keymap.c alone (the writer's dictionaries and their memory bound).
flyprof_unit_test(test_keymap
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_keymap.c ${CMAKE_SOURCE_DIR}/agent/writer/keymap.c
    SANITIZE address undefined)
