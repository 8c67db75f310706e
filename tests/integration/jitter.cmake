# `flyprof jitter` with its exports read by the real programs: HdrHistogram's Java
# HistogramLogReader and HistogramLogProcessor (Debian libhdrhistogram-java) and InfluxDB
# (Debian influxdb, started by the test on loopback). It needs no agent, but JDK 17 runs the
# HdrHistogram oracle: one ctest, not one per JDK. Without the packages it is skipped (exit 77),
# and fails under CI=true. RUN_SERIAL: it spins on two CPUs.
add_test(NAME int_jitter
    COMMAND ${_int_python} ${CMAKE_CURRENT_LIST_DIR}/test_jitter.py
        --build ${CMAKE_BINARY_DIR} --java /usr/lib/jvm/java-17-openjdk-amd64/bin/java
        --agent ${CMAKE_BINARY_DIR}/lib/libflyprof.so
        --cli ${CMAKE_BINARY_DIR}/bin/flyprof
        --jar ${CMAKE_BINARY_DIR}/lib/flyprof.jar)
set_tests_properties(int_jitter PROPERTIES LABELS integration TIMEOUT 300 RUN_SERIAL TRUE
    SKIP_RETURN_CODE 77 ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
