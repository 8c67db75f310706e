# test_tasks: the per-thread CPU samplers' table (agent/engines/tasks.c) with the cputimer engine on a
# burning thread: armed, disarmed by a ThreadEnd, armed again when the thread runs on detached.
flyprof_unit_test(test_tasks
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_tasks.c ${CMAKE_SOURCE_DIR}/agent/engines/tasks.c
        ${CMAKE_SOURCE_DIR}/agent/engines/cputimer.c
    LIBS rt
    SANITIZE address undefined JNI)
# test_tasks_reuse: a thread started on the tid of a thread that ended unseen (the kernel made
# to reuse it through ns_last_pid, as root) is armed by its ThreadStart. Skipped (77) when not
# root.
flyprof_unit_test(test_tasks_reuse
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_tasks_reuse.c ${CMAKE_SOURCE_DIR}/agent/engines/tasks.c
        ${CMAKE_SOURCE_DIR}/agent/engines/cputimer.c
    LIBS rt
    SANITIZE address undefined JNI)
foreach(_t test_tasks_reuse test_tasks_reuse-asan)
    if(TEST ${_t})
        set_tests_properties(${_t} PROPERTIES SKIP_RETURN_CODE 77)
    endif()
endforeach()
