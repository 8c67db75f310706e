# JFR output read back by the JDK's own reader: converted (test_jfr.py), written by the agent
# at stop (test_jfr_agent.py), alloc, lock and live events (test_jfr_kinds.py); jfr_common.py
# and java/JfrCheck.java are the oracles; on every JDK (flyprof_int_tests, tests/CMakeLists.txt).
flyprof_int_tests(TESTS jfr jfr_agent jfr_context jfr_hiccups jfr_read jfr_frames jfr_kinds
                  TIMEOUT 300)
