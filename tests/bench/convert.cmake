# Converter benchmark tools (tests/bench/convert_bench.py): fplsynth writes synthetic .fpl logs
# (the agent's encoder and chunk framing, nothing of the collector), fplconv converts one with
# the collector library and times reading and writing apart. Built with the tests, into
# BUILD/tests; never run by ctest.
add_executable(fplsynth ${CMAKE_CURRENT_LIST_DIR}/fplsynth.c ${CMAKE_SOURCE_DIR}/collector/format/fpl_chunk.c
    ${CMAKE_SOURCE_DIR}/collector/format/fpl_stackring.c)
add_executable(fplconv ${CMAKE_CURRENT_LIST_DIR}/fplconv.c)
foreach(_t fplsynth fplconv)
    set_target_properties(${_t} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
    target_compile_options(${_t} PRIVATE ${FLYPROF_WARNINGS})
    target_compile_definitions(${_t} PRIVATE _GNU_SOURCE)
endforeach()
target_include_directories(fplsynth PRIVATE ${CMAKE_SOURCE_DIR}/collector/format)
target_link_libraries(fplsynth PRIVATE ZLIB::ZLIB m)
target_link_libraries(fplconv PRIVATE flyprof_render)
# The two encodings fplsynth writes (SAMPLE, SAMPLE2) of one seed convert to the same outputs.
add_test(NAME convert_synth_encodings
    COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/synth_encodings.sh $<TARGET_FILE:fplsynth>
        ${CMAKE_BINARY_DIR}/bin/flyprof ${CMAKE_CURRENT_BINARY_DIR}/synth_encodings)
set_tests_properties(convert_synth_encodings PROPERTIES LABELS unit TIMEOUT 300)
