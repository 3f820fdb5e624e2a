// PopART's popart/popx/opxmanager.hpp: OpxManager and OpxCreator (custom-op kernels register with these), defined in popart/popx/opx.hpp.
#pragma once
#include "popart/popx/opx.hpp"
