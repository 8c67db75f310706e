# test_envtable: agent/envtable.c alone (the adopted threads' tid -> JNIEnv table and its
# check against HotSpot's thread-local, played by fake threads). Needs the JDK's jni.h.
flyprof_unit_test(test_envtable
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_envtable.c ${CMAKE_SOURCE_DIR}/agent/envtable.c
    SANITIZE address undefined thread)
foreach(_t test_envtable test_envtable-asan test_envtable-tsan)
    if(TARGET ${_t})
        target_include_directories(${_t} SYSTEM PRIVATE ${JNI_INCLUDE})
        target_compile_definitions(${_t} PRIVATE _GNU_SOURCE)
    endif()
endforeach()
