# An idle agent makes no jmethodIDs under class-loader churn, and a later session names the
# classes loaded meanwhile (test_idle_methods.py), -agentpath=idle and attached. One ctest
# per JDK.
flyprof_int_tests(TESTS idle_methods LABELS integration attach)
