# test_context: agent/sigsafe/context.c alone, the per-slot trace context that signal handlers and the
# wall sampler read without locks: never a torn pair, on the thread itself and from another.
flyprof_unit_test(test_context
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_context.c ${CMAKE_SOURCE_DIR}/agent/sigsafe/context.c
    LIBS Threads::Threads
    SANITIZE address undefined thread JNI)
