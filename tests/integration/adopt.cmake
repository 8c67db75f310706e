# Adoption at attach of a thread whose JavaThread is gone by the time it is read
# (test_attach_unmapped.py, with a test hook): the JVM lives. One ctest per JDK.
flyprof_int_tests(TESTS attach_unmapped LABELS integration attach)
