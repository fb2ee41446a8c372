# StrataTargets.cmake: the runtime and the generator of this install as
# imported targets (StrataConfig.cmake includes it, and adds Strata::live,
# and Strata::json and Strata::inspect when their libraries are found). The
# install's prefix is found from this file's place, so an install tree can
# be moved.
get_filename_component(_strata_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)

if(NOT TARGET Strata::strata)
  # A Debug build links the debug runtime (-O0 -g, asserts on); every other
  # configuration the release one (-O2, asserts off), the first listed.
  add_library(Strata::strata STATIC IMPORTED)
  set_target_properties(Strata::strata PROPERTIES
    IMPORTED_CONFIGURATIONS "RELEASE;DEBUG"
    IMPORTED_LOCATION_RELEASE "${_strata_prefix}/lib/libstrata.a"
    IMPORTED_LOCATION_DEBUG "${_strata_prefix}/lib/libstrata_debug.a"
    IMPORTED_LINK_INTERFACE_LANGUAGES "C"
    INTERFACE_INCLUDE_DIRECTORIES "${_strata_prefix}/include"
    INTERFACE_COMPILE_FEATURES c_std_11)
endif()

if(NOT TARGET Strata::gen)
  add_executable(Strata::gen IMPORTED)
  set_target_properties(Strata::gen PROPERTIES IMPORTED_LOCATION "${_strata_prefix}/bin/strata-gen")
endif()
