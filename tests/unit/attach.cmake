# The attach client (collector/attach/attach.c) without a JVM: parsers, the protocol exchange, a fake
# JVM's socket and reply files, and the guards that keep SIGQUIT from processes it could kill.
flyprof_unit_test(test_attach SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_attach.c
    ${CMAKE_SOURCE_DIR}/collector/attach/attach.c SANITIZE address undefined)
foreach(_t test_attach test_attach-asan)
    if(TARGET ${_t})
        target_compile_definitions(${_t} PRIVATE _GNU_SOURCE)
    endif()
endforeach()
