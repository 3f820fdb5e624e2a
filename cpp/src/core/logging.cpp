// Logging state: one level per module, one destination, a mutex around writes.
#include "popart/logging.hpp"
#include "popart/error.hpp"
#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>

namespace popart::logging {
namespace {

constexpr std::array<const char *, static_cast<size_t>(Module::N)> moduleNames{
    "popart", "session", "ir", "devicex", "transform", "pattern",
    "builder", "op", "opx", "ces", "python", "none"};
constexpr std::array<const char *, static_cast<size_t>(Level::N)> levelNames{
    "trace", "debug", "info", "warn", "err", "critical", "off"};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// Minimal reader for the flat {"module": "level"} object of POPART_LOG_CONFIG.
std::vector<std::pair<std::string, std::string>> readFlatJson(const std::string &text) {
  std::vector<std::string> strings;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '"') continue;
    size_t j = text.find('"', i + 1);
    if (j == std::string::npos) throw error("POPART_LOG_CONFIG: unterminated string");
    strings.push_back(text.substr(i + 1, j - i - 1));
    i = j;
  }
  if (strings.size() % 2) throw error("POPART_LOG_CONFIG: expected pairs of \"module\": \"level\"");
  std::vector<std::pair<std::string, std::string>> pairs;
  for (size_t i = 0; i < strings.size(); i += 2) pairs.emplace_back(strings[i], strings[i + 1]);
  return pairs;
}

class Logger {
public:
  Logger() {
    Level initial = Level::Off;
    if (const char *l = std::getenv("POPART_LOG_LEVEL")) initial = levelFromString(l);
    for (auto &l : levels_) l = initial;
    if (const char *d = std::getenv("POPART_LOG_DEST")) setDest(d);
    if (const char *c = std::getenv("POPART_LOG_CONFIG")) readConfig(c);
  }
  std::array<std::atomic<Level>, static_cast<size_t>(Module::N)> levels_;

  void write(Module m, Level l, const std::string &msg) {
    using namespace std::chrono;
    auto now = system_clock::now();
    auto t = system_clock::to_time_t(now);
    auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm tm{};
    localtime_r(&t, &tm);
    char stamp[32];
    std::snprintf(stamp, sizeof(stamp), "%02d:%02d:%02d.%03d", tm.tm_hour, tm.tm_min, tm.tm_sec,
                  static_cast<int>(ms));
    std::lock_guard<std::mutex> lock(mutex_);
    std::fprintf(out_, "[%s] [popart:%s] [%s] %s\n", stamp, moduleToString(m).c_str(),
                 levelToString(l).c_str(), msg.c_str());
    if (l >= Level::Warn) std::fflush(out_);
  }
  void flush() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::fflush(out_);
  }

private:
  void setDest(const std::string &d) {
    std::string ld = lower(d);
    if (ld == "stdout") out_ = stdout;
    else if (ld == "stderr") out_ = stderr;
    else if (FILE *f = std::fopen(d.c_str(), "a")) out_ = f;
    else throw error("POPART_LOG_DEST: cannot open log file '{}'", d);
  }
  void readConfig(const std::string &path) {
    std::ifstream in(path);
    if (!in) throw error("POPART_LOG_CONFIG: cannot read '{}'", path);
    std::stringstream ss;
    ss << in.rdbuf();
    for (auto &[mod, lev] : readFlatJson(ss.str()))
      levels_[static_cast<size_t>(moduleFromString(mod))] = levelFromString(lev);
  }
  std::mutex mutex_;
  FILE *out_ = stderr;
};

Logger &logger() {
  static Logger instance;
  return instance;
}

} // namespace

bool shouldLog(Module m, Level l) {
  return l != Level::Off && l >= logger().levels_[static_cast<size_t>(m)].load(std::memory_order_relaxed);
}
void log(Module m, Level l, const std::string &msg) { logger().write(m, l, msg); }
void setLogLevel(Module m, Level l) { logger().levels_[static_cast<size_t>(m)] = l; }
Level getLogLevel(Module m) { return logger().levels_[static_cast<size_t>(m)]; }
void flush(Module) { logger().flush(); }

Level levelFromString(const std::string &name) {
  std::string n = lower(name);
  if (n == "warning") n = "warn";
  if (n == "error") n = "err";
  for (size_t i = 0; i < levelNames.size(); ++i)
    if (n == levelNames[i]) return static_cast<Level>(i);
  throw error("unknown log level '{}' (expected TRACE, DEBUG, INFO, WARN, ERR, CRITICAL or OFF)", name);
}
std::string levelToString(Level l) { return levelNames.at(static_cast<size_t>(l)); }

Module moduleFromString(const std::string &name) {
  std::string n = lower(name);
  for (size_t i = 0; i < moduleNames.size(); ++i)
    if (n == moduleNames[i]) return static_cast<Module>(i);
  throw error("unknown log module '{}' (expected popart, session, ir, devicex, transform, pattern, "
              "builder, op, opx, ces or python)", name);
}
std::string moduleToString(Module m) { return moduleNames.at(static_cast<size_t>(m)); }

} // namespace popart::logging
