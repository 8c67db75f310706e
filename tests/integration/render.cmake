# Render integration tests (tests/integration/test_names.py, test_lambda_diff.py,
# test_summary_json.py): real JVMs
# produce frame names of every shape (non-ASCII, lambdas, hidden classes...) and the rendered
# outputs must hold them in a form the tools people use can parse, the same in every run. One ctest per (test, JDK) -- int_<test>_<jdk> -- on the
# JDKs integration.cmake chose (included before this file: the fragments are sorted).
if(NOT DEFINED _int_jdks OR NOT DEFINED _int_python)
    message(WARNING "flyprof: render integration tests need integration.cmake's JDK list; "
        "skipped")
    return()
endif()

set(_rnd_int_tests names lambda_diff summary_json)
foreach(_jdk IN LISTS _int_jdks)
    get_filename_component(_label "${_jdk}" NAME)
    string(REGEX REPLACE "^java-" "" _label "${_label}")
    string(REGEX REPLACE "-(amd64|x64|x86_64|arm64|aarch64)$" "" _label "${_label}")
    string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" _label "${_label}")
    foreach(_t IN LISTS _rnd_int_tests)
        add_test(NAME int_${_t}_${_label}
            COMMAND ${_int_python} ${CMAKE_CURRENT_LIST_DIR}/test_${_t}.py
                --build ${CMAKE_BINARY_DIR} --java ${_jdk}/bin/java
                --agent ${CMAKE_BINARY_DIR}/lib/libflyprof.so
                --cli ${CMAKE_BINARY_DIR}/bin/flyprof
                --jar ${CMAKE_BINARY_DIR}/lib/flyprof.jar)
        # RUN_SERIAL: the workloads count CPU samples; see integration.cmake.
        set_tests_properties(int_${_t}_${_label} PROPERTIES LABELS integration TIMEOUT 240
            RUN_SERIAL TRUE ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1;PYTHONIOENCODING=utf-8")
    endforeach()
endforeach()
