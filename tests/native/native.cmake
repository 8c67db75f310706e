# Test-only native libraries the integration tests load into their JVMs (never installed):
# - libfptest_other.so: a JVMTI agent standing in for another profiler that owns SIGPROF and
#   ITIMER_PROF (other_profiler.c), for test_signal_hygiene.py.
# Built into BUILD/tests/native/, where the tests look for them (--build BUILD).

set(_native_out ${CMAKE_BINARY_DIR}/tests/native)

add_library(fptest_other SHARED ${CMAKE_CURRENT_LIST_DIR}/other_profiler.c)
set_target_properties(fptest_other PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${_native_out}
    C_VISIBILITY_PRESET hidden)
target_compile_options(fptest_other PRIVATE ${FLYPROF_WARNINGS})
target_compile_definitions(fptest_other PRIVATE _GNU_SOURCE)
target_include_directories(fptest_other SYSTEM PRIVATE ${JNI_INCLUDE})
target_link_libraries(fptest_other PRIVATE Threads::Threads)

# - libfptest_jni.so: natives of dev.flyprof.workload.NativeBlock (blocking.c), for
#   test_wall_blocked.py: threads that block signals, a thread blocked in poll() counting EINTR.
add_library(fptest_jni SHARED ${CMAKE_CURRENT_LIST_DIR}/blocking.c)
set_target_properties(fptest_jni PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${_native_out}
    C_VISIBILITY_PRESET hidden)
target_compile_options(fptest_jni PRIVATE ${FLYPROF_WARNINGS})
target_compile_definitions(fptest_jni PRIVATE _GNU_SOURCE)
target_include_directories(fptest_jni SYSTEM PRIVATE ${JNI_INCLUDE})
target_link_libraries(fptest_jni PRIVATE Threads::Threads)
