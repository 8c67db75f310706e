# A JVM under a seccomp filter that refuses process_vm_readv or kills for it
# (test_seccomp.py): profiled, -agentpath and attached, and alive. One ctest per JDK
# (flyprof_int_tests, tests/CMakeLists.txt). Its JNI library, built here:
# libflyprof_seccomp.so (tests/jni/seccomp_jni.c, tests/jni/seccomp_filter.h).
flyprof_jni_library(flyprof_seccomp_jni flyprof_seccomp
    ${CMAKE_SOURCE_DIR}/tests/jni/seccomp_jni.c)

flyprof_int_tests(TESTS seccomp LABELS integration attach)
