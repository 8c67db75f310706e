# Render-at-stop budget test (tests/integration/test_render_budget.py): -agentpath, attach and
# the Java API on real JVMs. One ctest per JDK, int_render_budget_<jdk>, on the JDKs
# integration.cmake found; this fragment is included before integration.cmake (fragments are
# sorted), so, as attach.cmake does, it adds its tests at the end of the directory.

# RUN_SERIAL: the workloads run on the wall clock (see integration.cmake)
flyprof_int_tests(TESTS render_budget LABELS integration attach)
