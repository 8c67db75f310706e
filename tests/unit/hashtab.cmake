# test_hashtab: the one hash function (collector/format/fpl_hash.h), also the agent's
# (agent/writer/keymap.c is compiled in to check it hashes with it), and the collector's one hash
# table (collector/model/hashtab.c).
flyprof_unit_test(test_hashtab
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_hashtab.c ${CMAKE_SOURCE_DIR}/agent/writer/keymap.c
        ${CMAKE_SOURCE_DIR}/collector/model/hashtab.c
    SANITIZE address undefined)
