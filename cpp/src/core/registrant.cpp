// Names of registering classes and the shared objects they come from (dladdr).
#include "core/registrant.hpp"
#include <cxxabi.h>
#include <dlfcn.h>
#include <cstdlib>
#include <memory>
#include <new>
#include <stdexcept>
#include <mutex>
#include <set>

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

void keepResident(const void *address) {
  static std::mutex mutex;
  static std::set<const void *> pinned;  // bases of objects already made resident
  Dl_info info{}, self{};
  if (!address || !dladdr(address, &info) || !info.dli_fname || !info.dli_fbase) return;
  if (dladdr(reinterpret_cast<const void *>(&keepResident), &self) && self.dli_fbase == info.dli_fbase) return;
  std::lock_guard<std::mutex> lock(mutex);
  if (!pinned.insert(info.dli_fbase).second) return;
  // The handle is kept on purpose: with RTLD_NODELETE (and this extra
  // reference) a later dlclose by the user leaves the library mapped.
  dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
}

std::string describeForeignException() {
  try {
    throw;
  } catch (const std::bad_alloc &) {
    throw;
  } catch (const std::exception &e) {
    return demangle(typeid(e).name()) + ": " + e.what();
  } catch (...) {
    const std::type_info *t = abi::__cxa_current_exception_type();
    return "an exception of type " + (t ? demangle(t->name()) : std::string("unknown")) +
           " (not a std::exception)";
  }
}

std::string describeRegistrant(const std::type_info &cls) {
  std::string object = sharedObjectOf(&cls);
  return demangle(cls.name()) + (object.empty() ? "" : " (" + object + ")");
}

} // namespace popart
