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
/// Keeps the shared object holding `address` mapped for the rest of the process
/// (RTLD_NODELETE), so that a registry entry pointing into a custom-op library
/// stays valid after the library is dlclose'd. Never loads anything; a no-op
/// for libpopart itself and for addresses outside any shared object.
void keepResident(const void *address);
/// Called inside a catch block handling an exception that is not a
/// popart::error (thrown by user code: a custom op, a callback): its type and
/// message, e.g. "std::out_of_range: bad index" or "an exception of type int
/// (not a std::exception)". Rethrows std::bad_alloc, which has its own class.
std::string describeForeignException();

} // namespace popart
