# test_alloclock: alloc_weight (agent/engines/alloc.c, the upscaling of FORMAT.md section 10)
# and agent/jvm/classnames.c (class names of the leaf frames: signatures, interning, the bound)
# with a fake JVMTI and stubs for the rest of alloc.c's collaborators. Needs the JDK's headers.
flyprof_unit_test(test_alloclock
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_alloclock.c ${CMAKE_SOURCE_DIR}/agent/engines/alloc.c
        ${CMAKE_SOURCE_DIR}/agent/jvm/classnames.c ${CMAKE_SOURCE_DIR}/agent/sigsafe/counters.c
    LIBS m
    SANITIZE address undefined JNI)
