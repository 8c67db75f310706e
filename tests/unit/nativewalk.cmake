# test_nativewalk: agent/sigsafe/nativewalk.c, agent/writer/cfitab.c and agent/writer/symbols.c outside any JVM: a
# signal handler walks a known chain of native frames of the test program (libunwind, libdl);
# then the loader churns (two small libraries, dlopen / dlclose) past the snapshot bound, and
# a library is unloaded during its table's build (the crash guard, agent/sigsafe/crashguard.c).
foreach(_l a b)
    add_library(flyprof_churn_${_l} SHARED ${CMAKE_SOURCE_DIR}/tests/unit/churn_lib.c)
    set_target_properties(flyprof_churn_${_l} PROPERTIES OUTPUT_NAME flyprof_churn_${_l}
        LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
endforeach()
target_compile_definitions(flyprof_churn_b PRIVATE CHURN_PAD)
# fpchain.c keeps frame pointers whatever the build type: the walk by frame pointer is tested
# on it (before any unwind table is built)
set_source_files_properties(${CMAKE_SOURCE_DIR}/tests/unit/fpchain.c PROPERTIES
    COMPILE_OPTIONS "-O2;-fno-omit-frame-pointer;-mno-omit-leaf-frame-pointer")
flyprof_unit_test(test_nativewalk
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_nativewalk.c ${CMAKE_SOURCE_DIR}/tests/unit/fpchain.c
        ${CMAKE_SOURCE_DIR}/agent/sigsafe/nativewalk.c ${CMAKE_SOURCE_DIR}/agent/writer/cfitab.c
        ${CMAKE_SOURCE_DIR}/agent/writer/ehframe.c
        ${CMAKE_SOURCE_DIR}/agent/writer/symbols.c ${CMAKE_SOURCE_DIR}/agent/writer/bigmem.c
        ${CMAKE_SOURCE_DIR}/agent/sigsafe/crashguard.c
    LIBS PkgConfig::UNWIND dl
    SANITIZE address undefined
    DEFINES CHURN_DIR="${CMAKE_BINARY_DIR}/tests"
    JNI) # sample.h needs jni.h
foreach(_t test_nativewalk test_nativewalk-asan)
    if(TARGET ${_t})
        add_dependencies(${_t} flyprof_churn_a flyprof_churn_b)
    endif()
endforeach()

# test_ehframe: agent/writer/ehframe.c's rules against libunwind's, step for step, on every FDE
# of this program's modules and of the JDK's libjvm (loaded without a JVM)
flyprof_unit_test(test_ehframe
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_ehframe.c ${CMAKE_SOURCE_DIR}/agent/writer/ehframe.c
        ${CMAKE_SOURCE_DIR}/agent/sigsafe/nativewalk.c
    LIBS PkgConfig::UNWIND dl
    SANITIZE address undefined
    DEFINES LIBJVM="${FLYPROF_JDK}/lib/server/libjvm.so"
    JNI)
