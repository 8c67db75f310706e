# dev.flyprof.Context integration tests (issue 11): tests/integration/test_context.py
# (-agentpath: TracedRequests, selection by endpoint, span and root span, states, pprof labels,
# summary endpoints) and test_attach_context.py (the same after `flyprof attach`). One ctest per
# (test, JDK), int_<test>_<jdk>, on the JDKs integration.cmake found; RUN_SERIAL like the others.
# Added at the end of the directory (cmake_language DEFER), once integration.cmake, included
# after this fragment, has set _int_jdks and _int_python.

set(_context_dir ${CMAKE_CURRENT_LIST_DIR})

function(_flyprof_context_tests)
    if(NOT DEFINED _int_jdks OR NOT DEFINED _int_python)
        message(WARNING "flyprof: context tests not added: integration.cmake's JDK list "
            "(_int_jdks, _int_python) is missing")
        return()
    endif()
    foreach(_jdk IN LISTS _int_jdks)
        get_filename_component(_label "${_jdk}" NAME)
        string(REGEX REPLACE "^java-" "" _label "${_label}")
        string(REGEX REPLACE "-(amd64|x64|x86_64|arm64|aarch64)$" "" _label "${_label}")
        string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" _label "${_label}")
        foreach(_t context attach_context)
            add_test(NAME int_${_t}_${_label}
                COMMAND ${_int_python} ${_context_dir}/test_${_t}.py
                    --build ${CMAKE_BINARY_DIR} --java ${_jdk}/bin/java
                    --agent ${CMAKE_BINARY_DIR}/lib/libflyprof.so
                    --cli ${CMAKE_BINARY_DIR}/bin/flyprof
                    --jar ${CMAKE_BINARY_DIR}/lib/flyprof.jar)
            set_tests_properties(int_${_t}_${_label} PROPERTIES LABELS integration
                TIMEOUT 300 RUN_SERIAL TRUE ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
        endforeach()
    endforeach()
endfunction()

cmake_language(DEFER DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} CALL _flyprof_context_tests)
