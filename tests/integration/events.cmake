# dev.flyprof.Events integration tests (issue 13): tests/integration/test_events.py
# (-agentpath: four threads' events, a burst into a small buffer, events=0, no agent) and
# test_attach_events.py (the API starts recording after `flyprof attach`). One ctest per
# (test, JDK), int_<test>_<jdk>, on the JDKs integration.cmake found; RUN_SERIAL like the others
# (the burst and the intervals are sensitive to other load).
# Added at the end of the directory (cmake_language DEFER), once integration.cmake, included
# after this fragment, has set _int_jdks and _int_python.

set(_events_dir ${CMAKE_CURRENT_LIST_DIR})

function(_flyprof_events_tests)
    if(NOT DEFINED _int_jdks OR NOT DEFINED _int_python)
        message(WARNING "flyprof: events tests not added: integration.cmake's JDK list "
            "(_int_jdks, _int_python) is missing")
        return()
    endif()
    foreach(_jdk IN LISTS _int_jdks)
        get_filename_component(_label "${_jdk}" NAME)
        string(REGEX REPLACE "^java-" "" _label "${_label}")
        string(REGEX REPLACE "-(amd64|x64|x86_64|arm64|aarch64)$" "" _label "${_label}")
        string(REGEX REPLACE "[^A-Za-z0-9._-]" "_" _label "${_label}")
        foreach(_t events attach_events)
            add_test(NAME int_${_t}_${_label}
                COMMAND ${_int_python} ${_events_dir}/test_${_t}.py
                    --build ${CMAKE_BINARY_DIR} --java ${_jdk}/bin/java
                    --agent ${CMAKE_BINARY_DIR}/lib/libflyprof.so
                    --cli ${CMAKE_BINARY_DIR}/bin/flyprof
                    --jar ${CMAKE_BINARY_DIR}/lib/flyprof.jar)
            set_tests_properties(int_${_t}_${_label} PROPERTIES LABELS integration
                TIMEOUT 300 RUN_SERIAL TRUE ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
        endforeach()
    endforeach()
endfunction()

cmake_language(DEFER DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} CALL _flyprof_events_tests)
