# SPDX-License-Identifier: Apache-2.0
#
# mxc_add_model(<target> MODEL <file> [PARAMS <file>] [INPUTS name=shape...]
#               [TARGET cpu|cuda] [TRAIN] [STATIC] [WEIGHTS_FILE]
#               [NAME <prefix>] [OPTIONS <mxc option>...])
#
# Compiles a model with mxc at build time into a library target <target>
# that apps link (target_link_libraries(app PRIVATE <target>)): its
# generated header <prefix>.h (NAME, default <target>) is on the include
# path, the runtime comes with it (mxc::runtime, or mxc::runtime_static
# with STATIC: the model is linked into the app, no file beside it). The
# model is compiled again exactly when the model file, the params file or
# mxc change (mxc -MD writes what it read for Ninja and Make). With
# WEIGHTS_FILE (shared libraries only) the weights go in lib<prefix>.weights
# beside the library (mxc --weights=file), which the app must ship with it:
# the target's MXC_WEIGHTS_FILE property names it.
include_guard(GLOBAL)

function(mxc_add_model target)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "TRAIN;STATIC;WEIGHTS_FILE"
    "MODEL;PARAMS;TARGET;NAME"
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
  if(ARG_STATIC AND ARG_WEIGHTS_FILE)
    message(FATAL_ERROR "mxc_add_model(${target}): WEIGHTS_FILE needs a "
      "shared library (a STATIC model embeds its weights)")
  endif()
  set(weights "")
  if(ARG_WEIGHTS_FILE)
    set(weights "${dir}/lib/lib${name}.weights")
  endif()
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
  # A cross build compiles the model for its target's triple (the
  # toolchain's; cmake/toolchains/) against that target's runtime.
  if(CMAKE_CROSSCOMPILING AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
    list(APPEND args --triple=aarch64-linux-gnu)
    if(NOT ARG_STATIC)
      get_target_property(runtime mxc::runtime LOCATION)
      get_filename_component(runtime_dir "${runtime}" DIRECTORY)
      list(APPEND args "--runtime-dir=${runtime_dir}")
    endif()
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
  set(library_args "")
  set(byproducts "")
  if(ARG_WEIGHTS_FILE)
    set(library_args --weights=file)
    set(byproducts BYPRODUCTS "${weights}")
  endif()
  add_custom_command(
    OUTPUT "${library}" ${byproducts}
    COMMAND mxc::mxc ${args} ${library_args} -o "${library}" -MD -MF "${library}.d"
    DEPENDS mxc::mxc "${model}" ${params}
    DEPFILE "${library}.d"
    COMMENT "mxc: compiling model ${target} (${ARG_MODEL})"
    VERBATIM)
  add_custom_target(${target}_mxc DEPENDS "${library}" "${header}")
  add_library(${target} INTERFACE)
  add_dependencies(${target} ${target}_mxc)
  target_include_directories(${target} INTERFACE "${dir}/include")
  if(ARG_WEIGHTS_FILE)
    set_target_properties(${target} PROPERTIES MXC_WEIGHTS_FILE "${weights}")
  endif()
  if(ARG_STATIC)
    target_link_libraries(${target} INTERFACE "${library}" mxc::runtime_static)
  else()
    target_link_libraries(${target} INTERFACE "${library}" mxc::runtime)
  endif()
endfunction()
