# Attach tests: `flyprof attach|start|stop|dump|status|list` against workload JVMs started
# without the agent (tests/integration/test_attach*.py; test_attach_common.py is their shared
# module). One ctest per (test, JDK), int_<test>_<jdk>, on the JDKs integration.cmake found.
# This fragment is included before integration.cmake (fragments are sorted), so the tests are
# added at the end of the directory, once its JDK list and Python are known.
# attach_user needs root (it starts a JVM as nobody); it reports SKIP (77) otherwise.

set(_attach_dir ${CMAKE_CURRENT_LIST_DIR}) # the deferred call runs with another list dir

function(_flyprof_attach_tests)
    if(NOT DEFINED _int_jdks OR NOT DEFINED _int_python)
        message(WARNING "flyprof: attach tests not added: integration.cmake's JDK list "
            "(_int_jdks, _int_python) is missing")
        return()
    endif()
    foreach(_jdk IN LISTS _int_jdks)
        # the same label as integration.cmake's
        get_filename_component(_label "${_jdk}" NAME)
        string(REGEX REPLACE "^java-" "" _label "${_label}")
        string(REGEX REPLACE "-(amd64|x64|x86_64|arm64|aarch64)$" "" _label "${_label}")
        string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" _label "${_label}")
        foreach(_t attach attach_cycles attach_errors attach_user stuck_handler agent_cpu
                attach_churn class_unload)
            add_test(NAME int_${_t}_${_label}
                COMMAND ${_int_python} ${_attach_dir}/test_${_t}.py
                    --build ${CMAKE_BINARY_DIR} --java ${_jdk}/bin/java
                    --agent ${CMAKE_BINARY_DIR}/lib/libflyprof.so
                    --cli ${CMAKE_BINARY_DIR}/bin/flyprof
                    --jar ${CMAKE_BINARY_DIR}/lib/flyprof.jar)
            # RUN_SERIAL: the profiles are timed by the wall clock (see integration.cmake)
            set_tests_properties(int_${_t}_${_label} PROPERTIES LABELS "integration;attach"
                TIMEOUT 240 RUN_SERIAL TRUE SKIP_RETURN_CODE 77
                ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
        endforeach()
    endforeach()
endfunction()

cmake_language(DEFER DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} CALL _flyprof_attach_tests)
