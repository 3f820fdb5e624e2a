// PopART's popart/operatoridentifier.hpp: OperatorIdentifier, defined in popart/names.hpp.
#pragma once
#include "popart/names.hpp"
