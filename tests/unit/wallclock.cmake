# test_wallclock: agent/engines/wallclock.c alone, with test doubles (in test_wallclock.c) for the
# thread registry, the thread filter, the ring, the counters, the TSC, handler_wall_value and
# JVMTI/JNI, so the sampler's tick runs for real against threads of the test process. Needs the
# JDK's jni.h and jvmti.h (JNI_INCLUDE, as system headers like the agent's: jvmti.h has an
# old-style declaration that -Wstrict-prototypes rejects), _GNU_SOURCE like the agent, and libm.
flyprof_unit_test(test_wallclock
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_wallclock.c ${CMAKE_SOURCE_DIR}/agent/engines/wallclock.c
        ${CMAKE_SOURCE_DIR}/agent/sigsafe/context.c ${CMAKE_SOURCE_DIR}/agent/jvm/saferead.c
    LIBS m
    SANITIZE address undefined JNI)
