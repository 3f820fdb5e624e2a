// Names of registering classes and the shared objects they come from (dladdr).
#include "core/registrant.hpp"
#include <cxxabi.h>
#include <dlfcn.h>
#include <cstdlib>
#include <memory>

namespace popart {

std::string sharedObjectOf(const void *address) {
  Dl_info info{};
  if (address && dladdr(address, &info) && info.dli_fname) return info.dli_fname;
  return "";
}

std::uintptr_t offsetInObject(const void *address) {
  Dl_info info{};
  if (address && dladdr(address, &info) && info.dli_fbase)
    return reinterpret_cast<std::uintptr_t>(address) - reinterpret_cast<std::uintptr_t>(info.dli_fbase);
  return reinterpret_cast<std::uintptr_t>(address);
}

std::string demangle(const char *mangledName) {
  int status = 0;
  std::unique_ptr<char, void (*)(void *)> name(abi::__cxa_demangle(mangledName, nullptr, nullptr, &status),
                                               std::free);
  return status == 0 && name ? name.get() : mangledName;
}

std::string describeRegistrant(const std::type_info &cls) {
  std::string object = sharedObjectOf(&cls);
  return demangle(cls.name()) + (object.empty() ? "" : " (" + object + ")");
}

} // namespace popart
