# A full file system under the log (issue 23): tests/integration/test_disk_full.py, one ctest per
# JDK -- int_disk_full_<jdk> -- on the JDKs integration.cmake found, both with -agentpath and
# attached. It mounts a small tmpfs of its own, so it needs root; it reports SKIP (77)
# otherwise. RUN_SERIAL like every integration test: it times the file system's filling against
# the workload's phases by the wall clock.
flyprof_int_tests(TESTS disk_full LABELS integration attach TIMEOUT 240
    PROPERTIES SKIP_RETURN_CODE 77)
