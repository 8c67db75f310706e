# test_saferead: agent/jvm/saferead.c's three ways of reading memory that may be unmapped, each
# case in a child process, with real seccomp filters (tests/jni/seccomp_filter.h) that refuse
# or kill for the system calls they use. No JVM; no root needed (no_new_privs).
flyprof_unit_test(test_saferead
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_saferead.c ${CMAKE_SOURCE_DIR}/agent/jvm/saferead.c
    INCLUDES ${CMAKE_SOURCE_DIR}/tests/jni
    SANITIZE address undefined)
