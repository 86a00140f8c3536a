# SPDX-License-Identifier: Apache-2.0
#
# mxc_add_model(<target> MODEL <file> [PARAMS <file>] [INPUTS name=shape...]
#               [TARGET cpu|cuda] [TRAIN] [STATIC] [NAME <prefix>]
#               [OPTIONS <mxc option>...])
#
# Compiles a model with mxc at build time into a library target <target>
# that apps link (target_link_libraries(app PRIVATE <target>)): its
# generated header <prefix>.h (NAME, default <target>) is on the include
# path, the runtime comes with it (mxc::runtime, or mxc::runtime_static
# with STATIC: the model is linked into the app, no file beside it). The
# model is compiled again exactly when the model file, the params file or
# mxc change (mxc -MD writes what it read for Ninja and Make).
include_guard(GLOBAL)

function(mxc_add_model target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "TRAIN;STATIC" "MODEL;PARAMS;TARGET;NAME"
    "INPUTS;OPTIONS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mxc_add_model(${target}): unknown arguments "
      "${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_MODEL)
    message(FATAL_ERROR "mxc_add_model(${target}): MODEL <file> is required")
  endif()
  get_filename_component(model "${ARG_MODEL}" ABSOLUTE)
  set(name "${target}")
  if(ARG_NAME)
    set(name "${ARG_NAME}")
  endif()
  set(dir "${CMAKE_CURRENT_BINARY_DIR}/mxc_${target}")
  file(MAKE_DIRECTORY "${dir}/include" "${dir}/lib")
  if(ARG_STATIC)
    set(library "${dir}/lib/lib${name}.a")
  else()
    set(library "${dir}/lib/lib${name}.so")
  endif()
  set(header "${dir}/include/${name}.h")
  set(args "${model}" --name "${name}")
  if(ARG_PARAMS)
    get_filename_component(params "${ARG_PARAMS}" ABSOLUTE)
    list(APPEND args --params "${params}")
  endif()
  foreach(input IN LISTS ARG_INPUTS)
    list(APPEND args --input "${input}")
  endforeach()
  if(ARG_TARGET)
    list(APPEND args "--target=${ARG_TARGET}")
  endif()
  if(ARG_TRAIN)
    list(APPEND args --train)
  endif()
  list(APPEND args ${ARG_OPTIONS})
  # The header on its own step, which new weights do not rerun: the app's
  # sources that include it are rebuilt only when the model's interface
  # can change (the model file, mxc). (mxc leaves an unchanged header as
  # it is, for the steps that do rerun.)
  add_custom_command(
    OUTPUT "${header}"
    COMMAND mxc::mxc ${args} --emit=header -o "${header}"
    DEPENDS mxc::mxc "${model}"
    COMMENT "mxc: header of model ${target}"
    VERBATIM)
  add_custom_command(
    OUTPUT "${library}"
    COMMAND mxc::mxc ${args} -o "${library}" -MD -MF "${library}.d"
    DEPENDS mxc::mxc "${model}" ${params}
    DEPFILE "${library}.d"
    COMMENT "mxc: compiling model ${target} (${ARG_MODEL})"
    VERBATIM)
  add_custom_target(${target}_mxc DEPENDS "${library}" "${header}")
  add_library(${target} INTERFACE)
  add_dependencies(${target} ${target}_mxc)
  target_include_directories(${target} INTERFACE "${dir}/include")
  if(ARG_STATIC)
    target_link_libraries(${target} INTERFACE "${library}" mxc::runtime_static)
  else()
    target_link_libraries(${target} INTERFACE "${library}" mxc::runtime)
  endif()
endfunction()
