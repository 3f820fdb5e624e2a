# CMake package of popart-cpu: find_package(popart CONFIG) gives popart::popart,
# the shared core library every custom-op library and C++ program links.
# Locate it with: cmake -Dpopart_DIR=$(python -m popart --cmakedir)
include(${CMAKE_CURRENT_LIST_DIR}/popartTargets.cmake)
set(popart_FOUND TRUE)
