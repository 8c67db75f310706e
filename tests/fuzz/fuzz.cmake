# Fuzz targets (tests/fuzz/): libFuzzer with Debian's clang (packages clang and
# libclang-rt-14-dev, installed by scripts/setup), compiled with AddressSanitizer and
# UndefinedBehaviorSanitizer. The rest of the tree is built by the project's C compiler, so
# the fuzzers are compiled here by custom commands calling clang, one object per source
# (rebuilt only when a source changes):
#   fuzz_log  the log reader and every output writer (fuzz_log.c, fuzz_mutator.c)
#   fuzz_cli  the command line (fuzz_cli.c; cli/main.c compiled with main renamed)
#   fuzz_elf  the agent's ELF symbol readers and demangler (fuzz_elf.c includes symbols.c)
#   fuzz_jfr  the JFR reader (read/jfr_import.c) and the profile it feeds (fuzz_jfr.c)
# fuzz_seeds (built normally) writes their seed logs at test time. The ctest `fuzz` (label
# fuzz) runs tests/fuzz/run_fuzz.py: regressions first (tests/fuzz/regressions/<target>/*.hex),
# then 70 s of fuzzing in all. Without clang's libFuzzer the fuzzers are not built and the test
# reports SKIP (77), a failure under CI=true.

set(_fz_dir ${CMAKE_SOURCE_DIR}/tests/fuzz)
set(_fz_out ${CMAKE_BINARY_DIR}/tests/fuzz)

add_executable(fuzz_seeds ${_fz_dir}/fuzz_seeds.c ${CMAKE_SOURCE_DIR}/tests/unit/fplgen.c
    ${CMAKE_SOURCE_DIR}/tests/unit/golden_log.c ${CMAKE_SOURCE_DIR}/collector/format/fpl_chunk.c)
set_target_properties(fuzz_seeds PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
target_compile_options(fuzz_seeds PRIVATE ${FLYPROF_WARNINGS})
target_compile_definitions(fuzz_seeds PRIVATE _GNU_SOURCE)
target_include_directories(fuzz_seeds PRIVATE ${FLYPROF_COLLECTOR_INCLUDES}
    ${CMAKE_SOURCE_DIR}/tests/unit)
target_link_libraries(fuzz_seeds PRIVATE ZLIB::ZLIB)

find_program(FLYPROF_CLANG NAMES clang clang-14)
set(_fz_ok FALSE)
if(FLYPROF_CLANG)
    # libFuzzer present? (libclang-rt-14-dev)
    set(_fz_probe ${CMAKE_BINARY_DIR}/CMakeFiles/fuzz_probe)
    file(WRITE ${_fz_probe}.c
        "#include <stddef.h>\n#include <stdint.h>\n"
        "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\n"
        "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n")
    execute_process(COMMAND ${FLYPROF_CLANG} -fsanitize=fuzzer,address ${_fz_probe}.c
        -o ${_fz_probe} RESULT_VARIABLE _fz_rc OUTPUT_QUIET ERROR_QUIET)
    if(_fz_rc EQUAL 0)
        set(_fz_ok TRUE)
    endif()
endif()
if(NOT _fz_ok)
    message(STATUS "flyprof: no clang with libFuzzer (apt-get install clang libclang-rt-14-dev): "
        "fuzz targets not built")
endif()

# flyprof_fuzz_target(NAME SOURCES src... [DEFINES -D...] [INCLUDES dir...])
function(flyprof_fuzz_target name)
    cmake_parse_arguments(F "" "" "SOURCES;DEFINES;INCLUDES" ${ARGN})
    set(_flags -g -O1 -std=gnu11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined
        -fno-sanitize-recover=undefined -fno-omit-frame-pointer -Wall ${F_DEFINES})
    set(_incs "")
    foreach(d ${F_INCLUDES} ${FLYPROF_COLLECTOR_INCLUDES} ${CMAKE_SOURCE_DIR}/tests/unit
            ${_fz_dir})
        list(APPEND _incs -I${d})
    endforeach()
    set(_objs "")
    foreach(src ${F_SOURCES})
        get_filename_component(_base ${src} NAME_WE)
        string(MD5 _h ${src})
        string(SUBSTRING ${_h} 0 8 _h)
        set(_obj ${_fz_out}/${name}.objs/${_base}-${_h}.o)
        add_custom_command(OUTPUT ${_obj}
            COMMAND ${CMAKE_COMMAND} -E make_directory ${_fz_out}/${name}.objs
            COMMAND ${FLYPROF_CLANG} ${_flags} ${_incs} -MD -MF ${_obj}.d -c ${src} -o ${_obj}
            DEPENDS ${src}
            # the headers it includes, as the compiler saw them (IMPLICIT_DEPENDS scanned with
            # the directory's include path, not the -I above, and missed the collector's)
            DEPFILE ${_obj}.d
            VERBATIM)
        list(APPEND _objs ${_obj})
    endforeach()
    add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/tests/${name}
        COMMAND ${FLYPROF_CLANG} -fsanitize=fuzzer,address,undefined ${_objs} -lz -lm
            -o ${CMAKE_BINARY_DIR}/tests/${name}
        DEPENDS ${_objs}
        VERBATIM)
    add_custom_target(${name} ALL DEPENDS ${CMAKE_BINARY_DIR}/tests/${name})
    add_dependencies(${name} flyprof_render) # the generated HTML page sources
endfunction()

if(_fz_ok)
    flyprof_fuzz_target(fuzz_log SOURCES ${_fz_dir}/fuzz_log.c ${_fz_dir}/fuzz_mutator.c
        ${FLYPROF_COLLECTOR_SOURCES})
    flyprof_fuzz_target(fuzz_cli SOURCES ${_fz_dir}/fuzz_cli.c ${FLYPROF_COLLECTOR_SOURCES}
        ${CMAKE_SOURCE_DIR}/collector/cli/main.c ${CMAKE_SOURCE_DIR}/tests/unit/fplgen.c
        ${CMAKE_SOURCE_DIR}/tests/unit/golden_log.c
        DEFINES -Dmain=flyprof_cli_main)
    flyprof_fuzz_target(fuzz_jfr SOURCES ${_fz_dir}/fuzz_jfr.c ${FLYPROF_COLLECTOR_SOURCES})
    flyprof_fuzz_target(fuzz_elf SOURCES ${_fz_dir}/fuzz_elf.c ${CMAKE_SOURCE_DIR}/agent/writer/bigmem.c
        INCLUDES ${FLYPROF_AGENT_INCLUDES})
endif()

if(DEFINED _int_python)
    set(_fz_python ${_int_python})
else()
    set(_fz_python python3)
endif()
add_test(NAME fuzz COMMAND ${_fz_python} ${_fz_dir}/run_fuzz.py --build ${CMAKE_BINARY_DIR}
    --seconds 70)
set_tests_properties(fuzz PROPERTIES LABELS fuzz TIMEOUT 600 SKIP_RETURN_CODE 77
    ENVIRONMENT PYTHONDONTWRITEBYTECODE=1)
