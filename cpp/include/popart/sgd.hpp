// PopART's popart/sgd.hpp: SGD and ConstSGD, defined in popart/optimizer.hpp.
#pragma once
#include "popart/optimizer.hpp"
