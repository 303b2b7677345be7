# ctest install/consumer: installs this build into a fresh prefix, checks
# what is there, then configures, builds and runs examples/cpp against it
# the way a project of its own would (find_package(tessera)), and builds
# its C program through pkg-config when pkg-config is installed.
#
#   cmake -DBUILD=<build dir> -DSOURCE=<examples/cpp> -DWORK=<scratch dir>
#         -DGENERATOR=<generator> [-DCC=<C compiler>] -P install_consumer.cmake
cmake_minimum_required(VERSION 3.20)

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "failed (${rc}): ${cmd}\n${out}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE "${WORK}")
set(prefix "${WORK}/prefix")
run(${CMAKE_COMMAND} --install "${BUILD}" --prefix "${prefix}")

# What an installed Tessera holds.
file(GLOB config "${prefix}/lib*/cmake/tessera/tesseraConfig.cmake"
     "${prefix}/lib/*/cmake/tessera/tesseraConfig.cmake")
file(GLOB version "${prefix}/lib*/cmake/tessera/tesseraConfigVersion.cmake"
     "${prefix}/lib/*/cmake/tessera/tesseraConfigVersion.cmake")
file(GLOB pc "${prefix}/lib*/pkgconfig/tessera.pc" "${prefix}/lib/*/pkgconfig/tessera.pc")
file(GLOB lib "${prefix}/lib*/libtessera.*" "${prefix}/lib/*/libtessera.*")
foreach(what config version pc lib)
  if(NOT ${what})
    message(FATAL_ERROR "the install has no ${what} file under ${prefix}")
  endif()
endforeach()
foreach(f include/tessera/tessera.h include/tessera/capi.h include/tessera/export.h
          bin/tesserac bin/tessera-opt)
  if(NOT EXISTS "${prefix}/${f}")
    message(FATAL_ERROR "the install has no ${f}")
  endif()
endforeach()
file(GLOB_RECURSE python_module "${prefix}/*_C*.so")
if(python_module)
  message(FATAL_ERROR "a plain install carries the Python module: ${python_module}")
endif()
run("${prefix}/bin/tesserac" --version)

# A shared libtessera exports the API only: the C ABI's tessera_* and the C++
# API's tessera:: names (hidden visibility plus cmake/tessera.map).
find_program(NM nm)
file(GLOB shared "${prefix}/lib*/libtessera.so" "${prefix}/lib/*/libtessera.so")
if(NM AND shared)
  run(${NM} -DC --defined-only ${shared})
  string(REGEX MATCHALL "[^\n]+" symbols "${last_output}")
  list(LENGTH symbols count)
  list(FILTER symbols EXCLUDE REGEX " (tessera_[a-z0-9_]+|(typeinfo for |typeinfo name for |vtable for )?tessera::[A-Za-z]+.*)$")
  if(symbols OR count GREATER 100)
    string(REPLACE ";" "\n" symbols "${symbols}")
    message(FATAL_ERROR "libtessera.so exports ${count} symbols, these outside the API:\n${symbols}")
  endif()
  message(STATUS "libtessera.so exports ${count} symbols, all of the API")
endif()

# A consumer project, configured against the prefix only.
run(${CMAKE_COMMAND} -S "${SOURCE}" -B "${WORK}/build" -G "${GENERATOR}"
    "-DCMAKE_PREFIX_PATH=${prefix}" -DCMAKE_BUILD_TYPE=Release)
run(${CMAKE_COMMAND} --build "${WORK}/build")
foreach(exe scale_cpp scale_c)
  run("${WORK}/build/${exe}")
  message(STATUS "${last_output}")
endforeach()

# The same C program through pkg-config (a build without CMake).
find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG AND CC)
  list(GET pc 0 pc)
  get_filename_component(pcdir "${pc}" DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} "${pcdir}")
  # --static: Libs.private too, which a static libtessera needs.
  run(${PKG_CONFIG} --static --cflags --libs tessera)
  string(STRIP "${last_output}" flags)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  list(GET lib 0 lib)
  get_filename_component(libdir "${lib}" DIRECTORY)
  run(${CC} "${SOURCE}/scale.c" ${flags} "-Wl,-rpath,${libdir}" -o "${WORK}/scale_c_pkgconfig")
  run("${WORK}/scale_c_pkgconfig")
  message(STATUS "pkg-config: ${last_output}")
else()
  message(STATUS "pkg-config or a C compiler not found: the pkg-config build is skipped")
endif()
