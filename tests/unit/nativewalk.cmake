# test_nativewalk: agent/nativewalk.c, agent/cfitab.c and agent/symbols.c outside any JVM: a
# signal handler walks a known chain of native frames of the test program (libunwind, libdl).
flyprof_unit_test(test_nativewalk
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_nativewalk.c
        ${CMAKE_SOURCE_DIR}/agent/nativewalk.c ${CMAKE_SOURCE_DIR}/agent/cfitab.c
        ${CMAKE_SOURCE_DIR}/agent/symbols.c ${CMAKE_SOURCE_DIR}/agent/bigmem.c
    LIBS PkgConfig::UNWIND dl
    SANITIZE address undefined)
foreach(_t test_nativewalk test_nativewalk-asan)
    if(TARGET ${_t})
        target_compile_definitions(${_t} PRIVATE _GNU_SOURCE) # as the agent's objects
        target_include_directories(${_t} SYSTEM PRIVATE ${JNI_INCLUDE}) # sample.h needs jni.h
    endif()
endforeach()
