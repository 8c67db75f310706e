# scripts/demo as a new user's first run (tests/integration/test_demo.py): the build in a
# directory of its own, then a 3 s profile of the demo service on the JDK in PATH. One ctest,
# not one per JDK; long (a whole build of the agent, the CLI and the jar). RUN_SERIAL: it
# builds on every core, then times a workload.
add_test(NAME int_demo
    COMMAND ${_int_python} ${CMAKE_CURRENT_LIST_DIR}/test_demo.py
        --build ${CMAKE_BINARY_DIR} --java /usr/lib/jvm/java-17-openjdk-amd64/bin/java
        --agent ${CMAKE_BINARY_DIR}/lib/libflyprof.so
        --cli ${CMAKE_BINARY_DIR}/bin/flyprof
        --jar ${CMAKE_BINARY_DIR}/lib/flyprof.jar)
set_tests_properties(int_demo PROPERTIES LABELS "integration;demo" TIMEOUT 1800 RUN_SERIAL TRUE
    ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
