# test_tasks: the per-thread CPU samplers' table (agent/tasks.c) with the cputimer engine on a
# burning thread: armed, disarmed by a ThreadEnd, armed again when the thread runs on detached.
flyprof_unit_test(test_tasks
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_tasks.c ${CMAKE_SOURCE_DIR}/agent/tasks.c
        ${CMAKE_SOURCE_DIR}/agent/cputimer.c
    LIBS rt
    SANITIZE address undefined JNI)
