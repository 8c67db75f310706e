# test_methods: methods_stale of agent/writer/methods.c against fake HotSpot metadata, with a test
# double of vmstructs.c (in the test) and a fake JVMTI; metadata is read through saferead.c.
# Needs the JDK's jni.h and jvmti.h.
flyprof_unit_test(test_methods
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_methods.c ${CMAKE_SOURCE_DIR}/agent/writer/methods.c
        ${CMAKE_SOURCE_DIR}/agent/jvm/saferead.c
    SANITIZE address undefined JNI)
