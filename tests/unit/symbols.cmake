# test_symbols: agent/symbols.c alone (native pc -> function name, the demangler), looking up
# functions of the test process itself and of libc. Links libdl for dlopen/dlsym.
flyprof_unit_test(test_symbols
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_symbols.c ${CMAKE_SOURCE_DIR}/agent/symbols.c
        ${CMAKE_SOURCE_DIR}/agent/bigmem.c
    LIBS dl
    SANITIZE address undefined)
foreach(_t test_symbols test_symbols-asan)
    if(TARGET ${_t})
        target_compile_definitions(${_t} PRIVATE _GNU_SOURCE) # as the agent's objects
    endif()
endforeach()
