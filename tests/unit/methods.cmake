# test_methods: methods_stale of agent/methods.c against fake HotSpot metadata, with a test
# double of vmstructs.c (in the test) and a fake JVMTI. Needs the JDK's jni.h and jvmti.h.
flyprof_unit_test(test_methods
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_methods.c ${CMAKE_SOURCE_DIR}/agent/methods.c
    SANITIZE address undefined)
foreach(_t test_methods test_methods-asan)
    if(TARGET ${_t})
        target_include_directories(${_t} SYSTEM PRIVATE ${JNI_INCLUDE})
        target_compile_definitions(${_t} PRIVATE _GNU_SOURCE)
    endif()
endforeach()
