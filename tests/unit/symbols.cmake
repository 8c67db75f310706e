# test_symbols: agent/writer/symbols.c alone (native pc -> function name, the demangler), looking up
# functions of the test process itself and of libc. Links libdl for dlopen/dlsym.
flyprof_unit_test(test_symbols
    SOURCES ${CMAKE_SOURCE_DIR}/tests/unit/test_symbols.c ${CMAKE_SOURCE_DIR}/agent/writer/symbols.c
        ${CMAKE_SOURCE_DIR}/agent/writer/bigmem.c
    LIBS dl
    SANITIZE address undefined)

# Four copies of tests/unit/symdbg_lib.c in symdbg/, stripped after the build with their
# symbols moved into symdbg/.debug/<lib>.debug and a .gnu_debuglink naming it (as Debian's -dbg
# packages and `objcopy --only-keep-debug` leave them): `id` has a build id, `noid` none (the
# CRC in the link must match); in `wrongid` and `wrongcrc` the debug file is another copy's,
# which the reader must refuse. test_symbols gets the directory as its argument.
set(_symdbg_dir ${CMAKE_BINARY_DIR}/tests/symdbg)
find_program(FLYPROF_OBJCOPY objcopy REQUIRED)
find_program(FLYPROF_STRIP strip REQUIRED)
set(_symdbg_libs)
foreach(_v id noid wrongid wrongcrc)
    set(_lib symdbg_${_v})
    add_library(${_lib} SHARED ${CMAKE_CURRENT_LIST_DIR}/symdbg_lib.c)
    string(LENGTH "${_v}" _factor) # a different body per copy: different build ids
    target_compile_definitions(${_lib} PRIVATE SYMDBG_VARIANT=${_v} SYMDBG_FACTOR=${_factor})
    target_compile_options(${_lib} PRIVATE -g -O1)
    set_target_properties(${_lib} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${_symdbg_dir})
    if(_v MATCHES "noid|wrongcrc")
        target_link_options(${_lib} PRIVATE -Wl,--build-id=none)
    else()
        target_link_options(${_lib} PRIVATE -Wl,--build-id)
    endif()
    set(_so ${_symdbg_dir}/lib${_lib}.so)
    set(_dbg ${_symdbg_dir}/.debug/lib${_lib}.so.debug)
    add_custom_command(TARGET ${_lib} POST_BUILD
        COMMAND ${CMAKE_COMMAND} -E make_directory ${_symdbg_dir}/.debug
        COMMAND ${FLYPROF_OBJCOPY} --only-keep-debug ${_so} ${_dbg}
        COMMAND ${FLYPROF_STRIP} --strip-all ${_so}
        COMMAND ${FLYPROF_OBJCOPY} --add-gnu-debuglink=${_dbg} ${_so}
        VERBATIM)
    list(APPEND _symdbg_libs ${_lib})
endforeach()
# the wrong copies' debug files: another copy's of the same kind (build id / none)
add_custom_target(symdbg_wrong ALL
    COMMAND ${CMAKE_COMMAND} -E copy ${_symdbg_dir}/.debug/libsymdbg_id.so.debug
        ${_symdbg_dir}/.debug/libsymdbg_wrongid.so.debug
    COMMAND ${CMAKE_COMMAND} -E copy ${_symdbg_dir}/.debug/libsymdbg_noid.so.debug
        ${_symdbg_dir}/.debug/libsymdbg_wrongcrc.so.debug
    DEPENDS ${_symdbg_libs}
    VERBATIM)
foreach(_t test_symbols test_symbols-asan)
    if(TARGET ${_t})
        add_dependencies(${_t} symdbg_wrong)
        set_tests_properties(${_t} PROPERTIES
            ENVIRONMENT "FLYPROF_SYMDBG_DIR=${_symdbg_dir}")
    endif()
endforeach()
