# StrataWorld.cmake: strata_add_world, as protobuf_generate adds generated
# sources to a target (StrataConfig.cmake includes it).
#
#   strata_add_world(<target> <schema.yaml> [OUTPUT_DIR <dir>])
#
# Runs the install's strata-gen on the schema at build time (again when the
# schema, or through its depfile a template, changes), adds the generated
# <world>.c to the target's sources, the directory of <world>.h to its
# include path, and Strata::strata to its libraries. <world> is the schema's
# `world:`; the files go to OUTPUT_DIR (default: strata/ in the current
# binary directory). strata-gen rewrites them only when their bytes change,
# so touching the schema recompiles nothing. Editing it re-runs CMake's
# configure step too, in case `world:` changed.
function(strata_add_world target schema)
  cmake_parse_arguments(PARSE_ARGV 2 _strata "" "OUTPUT_DIR" "")
  if(_strata_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "strata_add_world: unknown arguments: ${_strata_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "strata_add_world: no target '${target}' (add_executable or add_library it first)")
  endif()
  get_filename_component(schema "${schema}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${schema}")
    message(FATAL_ERROR "strata_add_world: no schema ${schema}")
  endif()
  file(STRINGS "${schema}" _world_line REGEX "^world:" LIMIT_COUNT 1)
  string(REGEX REPLACE "^world:[ \t]*[\"']?([A-Za-z_][A-Za-z0-9_]*).*$" "\\1" world "${_world_line}")
  if(NOT world MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "strata_add_world: ${schema} has no 'world: NAME' line")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${schema}")

  set(out "${CMAKE_CURRENT_BINARY_DIR}/strata")
  if(_strata_OUTPUT_DIR)
    get_filename_component(out "${_strata_OUTPUT_DIR}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  # The stamp is the command's output: Make has no restat, so an unchanged
  # header that was not rewritten would otherwise rerun the generator on
  # every build. The depfile names the schema and every template read.
  add_custom_command(
    OUTPUT "${out}/${world}.stamp"
    BYPRODUCTS "${out}/${world}.h" "${out}/${world}.c" "${out}/${world}_schedule.txt" "${out}/${world}_schedule.dot"
    COMMAND Strata::gen "${schema}" -o "${out}" --depfile "${out}/${world}.d" --stamp "${out}/${world}.stamp"
    DEPENDS "${schema}"
    DEPFILE "${out}/${world}.d"
    COMMENT "strata-gen ${schema}"
    VERBATIM)
  # The stamp among the sources makes the target run the command before compiling.
  target_sources(${target} PRIVATE "${out}/${world}.c" "${out}/${world}.stamp")
  target_include_directories(${target} PRIVATE "${out}")
  target_link_libraries(${target} PRIVATE Strata::strata)
endfunction()
