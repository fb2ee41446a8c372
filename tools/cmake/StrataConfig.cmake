# StrataConfig.cmake: what `find_package(Strata)` reads, installed by
# `ninja install` into $PREFIX/lib/cmake/Strata/ beside StrataTargets.cmake,
# StrataWorld.cmake and StrataConfigVersion.cmake.
#
#   find_package(Strata 0.4 REQUIRED)              # or COMPONENTS json inspect live
#   add_executable(game main.c systems.c)
#   strata_add_world(game game.yaml)               # runs strata-gen, adds game.c and game.h
#   target_link_libraries(game PRIVATE Strata::strata)
#
# Imported targets:
#   Strata::strata   the runtime: libstrata.a, or libstrata_debug.a (asserts
#                    on) in a Debug build; its include directory, C11
#   Strata::json     JSON loading, libstrata_json.a with yajl (component json)
#   Strata::inspect  the live inspector, libstrata_inspect.a with civetweb
#                    (component inspect)
#   Strata::live     live reload's host side, libstrata_live, with the
#                    runtime (Strata::strata's archive) linked whole and
#                    exported for the modules it loads (component live)
#   Strata::gen      the generator, strata-gen, of the same install
# The components are optional unless asked for: Strata::json exists when
# yajl is found, Strata::inspect when civetweb is; Strata::live, which needs
# no other library, always.
cmake_minimum_required(VERSION 3.20)

include(CMakeFindDependencyMacro)
include("${CMAKE_CURRENT_LIST_DIR}/StrataTargets.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/StrataWorld.cmake")

set(Strata_strata_FOUND TRUE)
set(_strata_missing "")

# _strata_component(NAME ARCHIVE LIBRARY PACKAGE [LINK...]): Strata::NAME,
# lib/ARCHIVE of this install linked with the system's LIBRARY (Debian's
# PACKAGE) and LINK, when that library is found.
macro(_strata_component name archive library package)
  find_library(STRATA_${library}_LIBRARY ${library})
  if(STRATA_${library}_LIBRARY AND EXISTS "${_strata_prefix}/lib/${archive}")
    if(NOT TARGET Strata::${name})
      add_library(Strata::${name} STATIC IMPORTED)
      set(_strata_links Strata::strata "${STRATA_${library}_LIBRARY}" ${ARGN})
      set_target_properties(Strata::${name} PROPERTIES
        IMPORTED_LOCATION "${_strata_prefix}/lib/${archive}"
        INTERFACE_LINK_LIBRARIES "${_strata_links}")
      unset(_strata_links)
    endif()
    set(Strata_${name}_FOUND TRUE)
  else()
    set(Strata_${name}_FOUND FALSE)
    string(APPEND _strata_missing " ${name} (needs ${library}: ${package})")
  endif()
endmacro()

# json: libstrata_json parses with yajl.
_strata_component(json libstrata_json.a yajl libyajl-dev)
# inspect: libstrata_inspect serves HTTP with civetweb, on threads.
find_dependency(Threads)
_strata_component(inspect libstrata_inspect.a civetweb libcivetweb-dev Threads::Threads m)

# live: a host links libstrata_live and the whole runtime, exported, so that
# the modules it loads (which link no runtime of their own) call it: the
# flags `pkg-config --libs strata-live` gives, with the runtime Strata::strata
# picks (the debug one in a Debug build).
if(NOT TARGET Strata::live)
  add_library(Strata::live STATIC IMPORTED)
  set_target_properties(Strata::live PROPERTIES
    IMPORTED_LOCATION "${_strata_prefix}/lib/libstrata_live.a"
    IMPORTED_LINK_INTERFACE_LANGUAGES "C"
    INTERFACE_INCLUDE_DIRECTORIES "${_strata_prefix}/include"
    INTERFACE_COMPILE_FEATURES c_std_11
    INTERFACE_LINK_LIBRARIES
      "-Wl,--whole-archive;$<TARGET_FILE:Strata::strata>;-Wl,--no-whole-archive;${CMAKE_DL_LIBS};Threads::Threads"
    INTERFACE_LINK_OPTIONS "-rdynamic")
endif()
set(Strata_live_FOUND TRUE)

foreach(_strata_wanted IN LISTS Strata_FIND_COMPONENTS)
  if(NOT DEFINED Strata_${_strata_wanted}_FOUND)
    set(Strata_FOUND FALSE)
    set(Strata_NOT_FOUND_MESSAGE "no component '${_strata_wanted}' (there are: strata, json, inspect, live)")
  elseif(NOT Strata_${_strata_wanted}_FOUND AND Strata_FIND_REQUIRED_${_strata_wanted})
    set(Strata_FOUND FALSE)
    set(Strata_NOT_FOUND_MESSAGE "missing components:${_strata_missing}")
  endif()
endforeach()
unset(_strata_wanted)
unset(_strata_missing)
