# Collector tests. They link the collector's sources compiled for their variant (COLLECTOR; not
# flyprof_render) so the -asan variants check the collector itself under ASan/UBSan.
set(_col_dir ${CMAKE_SOURCE_DIR}/collector)
set(_col_tests ${CMAKE_SOURCE_DIR}/tests/unit)
set(_col_helpers ${_col_tests}/fplgen.c ${_col_tests}/golden_log.c)

function(flyprof_collector_test name)
    flyprof_unit_test(${name} SOURCES ${_col_tests}/${name}.c ${_col_helpers} COLLECTOR
        LIBS ZLIB::ZLIB m SANITIZE address undefined)
endfunction()

flyprof_collector_test(test_collector_reader)
flyprof_collector_test(test_collector_profile)
flyprof_collector_test(test_collector_damage)
flyprof_collector_test(test_collector_context)

# The CLI test drives a flyprof binary given on its command line: the normal one, and one
# built with sanitizers from the same sources.
add_executable(test_collector_cli ${_col_tests}/test_collector_cli.c ${_col_tests}/cli_run.c
    ${_col_helpers}
    ${_col_dir}/format/fpl_chunk.c)
set_target_properties(test_collector_cli PROPERTIES RUNTIME_OUTPUT_DIRECTORY
    ${CMAKE_BINARY_DIR}/tests)
target_compile_options(test_collector_cli PRIVATE ${FLYPROF_WARNINGS})
target_compile_definitions(test_collector_cli PRIVATE _GNU_SOURCE)
target_include_directories(test_collector_cli PRIVATE ${FLYPROF_COLLECTOR_INCLUDES} ${_col_tests})
target_link_libraries(test_collector_cli PRIVATE ZLIB::ZLIB)
add_test(NAME test_collector_cli COMMAND test_collector_cli $<TARGET_FILE:flyprof_cli>)
set_tests_properties(test_collector_cli PROPERTIES LABELS unit TIMEOUT 300)
add_dependencies(test_collector_cli flyprof_cli)

if(FLYPROF_SANITIZE)
    set(_san -fsanitize=address,undefined -fno-sanitize-recover=undefined
        -fno-omit-frame-pointer)
    add_executable(flyprof_cli-asan ${_col_dir}/cli/main.c)
    _flyprof_collector_objects(asan "${_san}")
    target_link_libraries(flyprof_cli-asan PRIVATE flyprof_collector_objs-asan)
    set_target_properties(flyprof_cli-asan PROPERTIES OUTPUT_NAME flyprof-asan
        RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
    target_compile_options(flyprof_cli-asan PRIVATE ${FLYPROF_WARNINGS} ${_san})
    target_link_options(flyprof_cli-asan PRIVATE ${_san})
    target_compile_definitions(flyprof_cli-asan PRIVATE _GNU_SOURCE)
    target_include_directories(flyprof_cli-asan PRIVATE ${FLYPROF_COLLECTOR_INCLUDES})
    target_link_libraries(flyprof_cli-asan PRIVATE ZLIB::ZLIB m)
    add_test(NAME test_collector_cli-asan
        COMMAND test_collector_cli $<TARGET_FILE:flyprof_cli-asan>)
    set_tests_properties(test_collector_cli-asan PROPERTIES LABELS unit TIMEOUT 300)
    add_dependencies(test_collector_cli flyprof_cli-asan)
endif()

# EVENTS records (dev.flyprof.Events): reader, counts, the events model and its outputs.
flyprof_collector_test(test_collector_events)
