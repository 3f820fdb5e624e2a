// PopART's popart/opserialiser.hpp: OpSerialiserBase (custom ops' appendAttributes), defined in popart/op.hpp.
#pragma once
#include "popart/op.hpp"
