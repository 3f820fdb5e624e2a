// Describes who registered an op or an Opx (class name and shared object), so
// that identifier collisions between libpopart and custom-op libraries can be
// reported clearly instead of failing inside a library's static initialisers.
#pragma once
#include <cstdint>
#include <string>
#include <typeinfo>

namespace popart {

/// "LeakyReluOp (libleaky_relu.so)": the demangled class and the file of the
/// shared object holding `cls`'s type information.
std::string describeRegistrant(const std::type_info &cls);
/// The path of the shared object containing `address`, or "" when unknown.
std::string sharedObjectOf(const void *address);
/// Offset of `address` from its shared object's base: equal in two copies of
/// one library, so it identifies a function across copies.
std::uintptr_t offsetInObject(const void *address);
std::string demangle(const char *mangledName);

} // namespace popart
