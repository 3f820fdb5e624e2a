// Human-readable views of the IR: JSON (POPART_IR_DUMP, getSerializedGraph)
// and Graphviz DOT at check points (dotChecks / POPART_DOT_CHECKS).
#include "popart/error.hpp"
#include "popart/graph.hpp"
#include "popart/ir.hpp"
#include "popart/logging.hpp"
#include "popart/sessionoptions.hpp"
#include "popart/tensor.hpp"
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace popart {
namespace {

std::string jsonEscape(const std::string &s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out;
}

class JsonAttributes : public OpSerialiserBase {
public:
  using OpSerialiserBase::appendAttribute;
  void appendAttribute(const std::string &name, const std::string &value) override {
    text += std::string(text.empty() ? "" : ",") + "\"" + jsonEscape(name) + "\":\"" + jsonEscape(value) + "\"";
  }
  std::string text;
};

std::string tensorList(const TensorIndexMap &m) {
  std::string s;
  for (const auto &[i, t] : m.tensorMap())
    s += std::string(s.empty() ? "" : ",") + "{\"index\":" + std::to_string(i) + ",\"name\":\"" +
         jsonEscape(t->id) + "\",\"id\":\"" + jsonEscape(t->id) + "\",\"type\":\"" + t->info.data_type() + "\",\"shape\":\"" +
         t->info.shapeString() + "\"}";
  return s;
}

std::set<std::string> enabledChecks(const SessionOptions &o) {
  std::set<std::string> checks = o.dotChecks;
  if (const char *env = std::getenv("POPART_DOT_CHECKS")) {
    std::stringstream ss(env);
    std::string item;
    while (std::getline(ss, item, ':'))
      if (!item.empty()) checks.insert(item);
  }
  return checks;
}

} // namespace

std::string Ir::serialise() const {
  std::ostringstream os;
  os << "{";
  bool firstGraph = true;
  for (Graph *g : getAllGraphs()) {
    os << (firstGraph ? "" : ",") << "\"" << jsonEscape(g->isMainGraph() ? "maingraph" : g->id) << "\":[";
    firstGraph = false;
    bool firstOp = true;
    for (Op *op : g->getOpSchedule()) {
      JsonAttributes attrs;
      op->appendAttributes(attrs);
      os << (firstOp ? "" : ",") << "{\"type\":\"" << op->opid.type << "\",\"domain\":\"" << op->opid.domain
         << "\",\"version\":\"" << op->opid.version << "\",\"name\":\"" << jsonEscape(op->name())
         << "\",\"id\":" << op->id << ",\"inputs\":[" << tensorList(*op->input) << "],\"outputs\":["
         << tensorList(*op->output) << "],\"attributes\":{" << attrs.text << "}}";
      firstOp = false;
    }
    os << "]";
  }
  os << "}";
  return os.str();
}

void Ir::dotCheckpoint(const std::string &name) const {
  auto checks = enabledChecks(getSessionOptions());
  if (!checks.count(name) && !checks.count("ALL")) return;
  std::string path = getSessionOptions().logDir + "/" + name + ".dot";
  std::ofstream f(path);
  if (!f) throw error("dotChecks: cannot write '{}' (check SessionOptions.logDir)", path);
  f << "digraph " << name << " {\n  node [shape=box, fontsize=10];\n";
  for (Graph *g : getAllGraphs()) {
    int n = 0;
    for (Op *op : g->getOpSchedule()) {
      if (n < getSessionOptions().firstDotOp || n >= getSessionOptions().finalDotOp) { ++n; continue; }
      ++n;
      std::string label = op->opid.type + (getSessionOptions().dotOpNames ? "\\n" + op->name() : "");
      f << "  op" << op->id << " [label=\"" << jsonEscape(label) << "\"];\n";
      for (const auto &[i, t] : op->output->tensorMap()) {
        f << "  \"" << jsonEscape(g->id + "/" + t->id) << "\" [shape=ellipse, label=\"" << jsonEscape(t->id)
          << "\\n" << t->info.toString() << "\"];\n";
        f << "  op" << op->id << " -> \"" << jsonEscape(g->id + "/" + t->id) << "\";\n";
      }
      for (const auto &[i, t] : op->input->tensorMap())
        f << "  \"" << jsonEscape(g->id + "/" + t->id) << "\" -> op" << op->id << ";\n";
    }
  }
  f << "}\n";
  logging::ir::info("wrote DOT check point {} to {}", name, path);
}

} // namespace popart
