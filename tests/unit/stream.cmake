# test_collector_stream: the reader reads chunk by chunk. Its reader is built with tiny windows
# (READER_READ_MIN, READER_SCAN) so every read straddles a window boundary.
# test_collector_stream_rss runs the CLI on a synthetic log of a few hundred MB (fplsynth,
# tests/bench) and checks its peak RSS. The files go to BUILD/tests and are removed.
flyprof_unit_test(test_collector_stream
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_collector_stream.c
        ${CMAKE_SOURCE_DIR}/tests/unit/fplgen.c ${CMAKE_SOURCE_DIR}/collector/read/reader.c
    ${CMAKE_SOURCE_DIR}/collector/read/namedict.c ${CMAKE_SOURCE_DIR}/collector/format/fpl_stackring.c
        ${CMAKE_SOURCE_DIR}/collector/format/fpl_chunk.c
    LIBS ZLIB::ZLIB SANITIZE address undefined DEFINES READER_READ_MIN=64 READER_SCAN=16)
foreach(_v test_collector_stream test_collector_stream-asan)
    if(TARGET ${_v})
        set_tests_properties(${_v} PROPERTIES WORKING_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
    endif()
endforeach()
add_test(NAME test_collector_stream_rss COMMAND test_collector_stream $<TARGET_FILE:flyprof_cli>
    $<TARGET_FILE:fplsynth>)
set_tests_properties(test_collector_stream_rss PROPERTIES LABELS unit TIMEOUT 300
    WORKING_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
add_dependencies(test_collector_stream flyprof_cli fplsynth)
