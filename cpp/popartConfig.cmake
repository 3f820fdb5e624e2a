# CMake package of popart-cpu: find_package(popart CONFIG) gives popart::popart (also as `popart`),
# the shared core library every custom-op library and C++ program links.
# Locate it with: cmake -Dpopart_DIR=$(python -m popart --cmakedir)
include(${CMAKE_CURRENT_LIST_DIR}/popartTargets.cmake)

# libpopart.so needs oneDNN's libdnnl.so.3 (PyPI package onednn-cpu-gomp).
# Tell the linker (and the programs' RUNPATH) where it is, so executables link
# and run without LD_LIBRARY_PATH even when oneDNN sits in another prefix
# (e.g. a venv created with --system-site-packages).
get_target_property(_popart_lib popart::popart IMPORTED_LOCATION_RELEASE)
if(NOT _popart_lib)
  get_target_property(_popart_lib popart::popart IMPORTED_LOCATION_NOCONFIG)
endif()
set(_popart_dnnl_hints)
if(_popart_lib)
  get_filename_component(_popart_libdir "${_popart_lib}" DIRECTORY)
  list(APPEND _popart_dnnl_hints "${_popart_libdir}/../../.." "${_popart_libdir}")
endif()
find_package(Python3 QUIET COMPONENTS Interpreter)
if(Python3_Interpreter_FOUND)
  execute_process(COMMAND ${Python3_EXECUTABLE} -c "import sys; print(sys.prefix + '/lib;' + sys.base_prefix + '/lib')"
                  OUTPUT_VARIABLE _popart_py_libs OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  list(APPEND _popart_dnnl_hints ${_popart_py_libs})
endif()
find_library(POPART_DNNL_LIBRARY NAMES libdnnl.so.3 dnnl HINTS ${_popart_dnnl_hints} NO_DEFAULT_PATH)
if(POPART_DNNL_LIBRARY)
  get_filename_component(_popart_dnnl_dir "${POPART_DNNL_LIBRARY}" DIRECTORY)
  set_property(TARGET popart::popart APPEND PROPERTY INTERFACE_LINK_OPTIONS
               "LINKER:-rpath-link,${_popart_dnnl_dir}" "LINKER:-rpath,${_popart_dnnl_dir}"
               "LINKER:--disable-new-dtags")  # DT_RPATH also serves libpopart's own lookups
endif()
# PopART's own package exports the target as `popart`; programs written for it link that name.
if(NOT TARGET popart)
  add_library(popart INTERFACE IMPORTED)
  set_target_properties(popart PROPERTIES INTERFACE_LINK_LIBRARIES popart::popart)
endif()
set(popart_FOUND TRUE)
