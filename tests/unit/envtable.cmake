# test_envtable: agent/sigsafe/envtable.c alone (the adopted threads' tid -> JNIEnv table and its
# check against HotSpot's thread-local, played by fake threads). Needs the JDK's jni.h.
flyprof_unit_test(test_envtable
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_envtable.c ${CMAKE_SOURCE_DIR}/agent/sigsafe/envtable.c
    SANITIZE address undefined thread JNI)
