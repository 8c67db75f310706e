# test_context: agent/context.c alone, the per-slot trace context that signal handlers and the
# wall sampler read without locks: never a torn pair, on the thread itself and from another.
flyprof_unit_test(test_context
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_context.c ${CMAKE_SOURCE_DIR}/agent/context.c
    LIBS Threads::Threads
    SANITIZE address undefined thread)
foreach(_t test_context test_context-asan test_context-tsan)
    if(TARGET ${_t})
        target_include_directories(${_t} SYSTEM PRIVATE ${JNI_INCLUDE})
        target_compile_definitions(${_t} PRIVATE _GNU_SOURCE)
    endif()
endforeach()
