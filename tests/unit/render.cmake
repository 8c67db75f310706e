# Render tests: the shared render layer (call trees, selection, text report, folded output
# with filters), time windows, atomic output files, and the CLI's convert / diff options. Like
# the collector tests they link the collector's sources compiled for their variant, so the
# -asan variants check the render code itself under ASan/UBSan.
set(_rnd_dir ${CMAKE_SOURCE_DIR}/collector)
set(_rnd_tests ${CMAKE_SOURCE_DIR}/tests/unit)
set(_rnd_helpers ${_rnd_tests}/fplgen.c ${_rnd_tests}/golden_log.c)

foreach(_rnd_t test_render test_render_window test_render_file)
    flyprof_unit_test(${_rnd_t} SOURCES ${_rnd_tests}/${_rnd_t}.c ${_rnd_helpers} COLLECTOR
        LIBS ZLIB::ZLIB m SANITIZE address undefined)
endforeach()

# The CLI test drives a flyprof binary given on its command line: the normal one, and the
# sanitizer build collector.cmake makes from the same sources.
add_executable(test_render_cli ${_rnd_tests}/test_render_cli.c ${_rnd_tests}/cli_run.c
    ${_rnd_helpers}
    ${_rnd_dir}/format/fpl_chunk.c)
set_target_properties(test_render_cli PROPERTIES RUNTIME_OUTPUT_DIRECTORY
    ${CMAKE_BINARY_DIR}/tests)
target_compile_options(test_render_cli PRIVATE ${FLYPROF_WARNINGS})
target_compile_definitions(test_render_cli PRIVATE _GNU_SOURCE)
target_include_directories(test_render_cli PRIVATE ${FLYPROF_COLLECTOR_INCLUDES} ${_rnd_tests})
target_link_libraries(test_render_cli PRIVATE ZLIB::ZLIB)
add_test(NAME test_render_cli COMMAND test_render_cli $<TARGET_FILE:flyprof_cli>)
set_tests_properties(test_render_cli PROPERTIES LABELS unit TIMEOUT 300)
add_dependencies(test_render_cli flyprof_cli)
if(TARGET flyprof_cli-asan)
    add_test(NAME test_render_cli-asan COMMAND test_render_cli $<TARGET_FILE:flyprof_cli-asan>)
    set_tests_properties(test_render_cli-asan PROPERTIES LABELS unit TIMEOUT 300)
    add_dependencies(test_render_cli flyprof_cli-asan)
endif()
