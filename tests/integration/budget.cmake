# Render-at-stop budget test (tests/integration/test_render_budget.py): -agentpath, attach and
# the Java API on real JVMs. One ctest per JDK, int_render_budget_<jdk>, on the JDKs
# integration.cmake found; this fragment is included before integration.cmake (fragments are
# sorted), so, as attach.cmake does, it adds its tests at the end of the directory.

set(_budget_dir ${CMAKE_CURRENT_LIST_DIR}) # the deferred call runs with another list dir

function(_flyprof_budget_tests)
    if(NOT DEFINED _int_jdks OR NOT DEFINED _int_python)
        message(WARNING "flyprof: render budget test not added: integration.cmake's JDK list "
            "is missing")
        return()
    endif()
    foreach(_jdk IN LISTS _int_jdks)
        get_filename_component(_label "${_jdk}" NAME)
        string(REGEX REPLACE "^java-" "" _label "${_label}")
        string(REGEX REPLACE "-(amd64|x64|x86_64|arm64|aarch64)$" "" _label "${_label}")
        string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" _label "${_label}")
        add_test(NAME int_render_budget_${_label}
            COMMAND ${_int_python} ${_budget_dir}/test_render_budget.py
                --build ${CMAKE_BINARY_DIR} --java ${_jdk}/bin/java
                --agent ${CMAKE_BINARY_DIR}/lib/libflyprof.so
                --cli ${CMAKE_BINARY_DIR}/bin/flyprof
                --jar ${CMAKE_BINARY_DIR}/lib/flyprof.jar)
        # RUN_SERIAL: the workloads run on the wall clock (see integration.cmake)
        set_tests_properties(int_render_budget_${_label} PROPERTIES
            LABELS "integration;attach" TIMEOUT 300 RUN_SERIAL TRUE
            ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
    endforeach()
endfunction()

cmake_language(DEFER DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} CALL _flyprof_budget_tests)
