// The op registry: ops register by OperatorIdentifier with an OpDefinition and
// a factory; the ONNX importer, the Builder checks, patterns and PopXL create
// ops through it, resolving the version from the model's opset.
#pragma once
#include "popart/op.hpp"
#include "popart/opidentifiers.hpp"
#include <functional>
#include <type_traits>
#include <typeinfo>
#include <map>
#include <vector>

namespace popart {

/// Declared inputs, outputs and attributes of an op, checked when a model uses it.
struct OpDefinition {
  using DataTypes = std::vector<DataType>;
  struct Input {
    std::string name;
    std::vector<DataType> supportedTensors;  // empty: any type
    bool constant = false;                   // value must be known at compile time
  };
  struct Output {
    std::string name;
    std::vector<DataType> supportedTensors;
  };
  struct Attribute {
    std::string supportedValuesRegex;  // e.g. "*" or "[0-9]+"; matched against the text value
  };
  using Inputs = std::vector<Input>;
  using Outputs = std::vector<Output>;
  using Attributes = std::map<std::string, Attribute>;

  OpDefinition() = default;
  OpDefinition(Inputs i, Outputs o, Attributes a)
      : inputs(std::move(i)), outputs(std::move(o)), attributes(std::move(a)) {}
  Inputs inputs;
  Outputs outputs;
  Attributes attributes;
  bool hasGradient = false;  // the op class defines getGradOps (set by the registrars)
};
using OpDefinitions = std::map<OperatorIdentifier, OpDefinition>;

/// What a factory receives when asked for an op.
struct OpCreatorInfo {
  OpCreatorInfo(const OperatorIdentifier &opid_, const Op::Settings &settings_,
                const Attributes &attributes_)
      : opid(opid_), settings(settings_), attributes(attributes_) {}
  const OperatorIdentifier &opid;
  const Op::Settings &settings;
  const Attributes &attributes;
};

class OpManager {
public:
  using OpFactoryFunc = std::function<std::unique_ptr<Op>(const OpCreatorInfo &)>;

  /// Registering an identifier again with the same `opClass` (a library loaded
  /// twice) is ignored. Another class from another library (a custom op reusing
  /// a built-in identifier) is logged and makes creating that op throw an error
  /// naming both: registrars run while a library loads, where throwing would abort.
  static void registerOp(const OperatorIdentifier &id, const OpDefinition &def, bool isPublic,
                         OpFactoryFunc factory, const std::type_info *opClass = nullptr);
  /// Creates the op for `domain.type` at the newest registered version <=
  /// `opsetVersion` (an exact identifier when opsetVersion < 0 uses id.version).
  static std::unique_ptr<Op> createOp(const OpDomain &domain, const OpType &type, int64_t opsetVersion,
                                      const Op::Settings &settings, const Attributes &attrs);
  static std::unique_ptr<Op> createOp(const OperatorIdentifier &id, const Op::Settings &settings,
                                      const Attributes &attrs);
  /// The identifier createOp would use, or nullptr when none is registered.
  static const OperatorIdentifier *resolve(const OpDomain &domain, const OpType &type,
                                           int64_t opsetVersion);
  static const OpDefinition *getDefinition(const OperatorIdentifier &id);
  static std::vector<OperatorIdentifier> getSupportedOperations(bool includePrivate);
  static OpDefinitions getSupportedOperationsDefinition(bool includePrivate);
  static bool isPublic(const OperatorIdentifier &id);
};

namespace detail {
/// True when OP, or a class between it and Op, overrides Op::getGradOps.
/// Specialised for ops that autodiff differentiates another way (sub-graph ops).
template <class OP>
struct DefinesGradient
    : std::bool_constant<!std::is_same_v<decltype(&OP::getGradOps), std::vector<std::unique_ptr<Op>> (Op::*)()>> {};
template <class OP> OpDefinition withGradientFlag(OpDefinition def) {
  def.hasGradient = DefinesGradient<OP>::value;
  return def;
}
} // namespace detail

/// Static registrar: `static OpCreator<MyOp> reg({{myOpId, myOpDef}}, factory, true);`
template <class OP> class OpCreator {
public:
  OpCreator(const OpDefinitions &defs, OpManager::OpFactoryFunc factory, bool isPublic = true) {
    for (const auto &[id, def] : defs)
      OpManager::registerOp(id, detail::withGradientFlag<OP>(def), isPublic, factory, &typeid(OP));
  }
  /// For ops constructible from (opid, settings). Takes exactly a bool, so that
  /// (defs, lambda) picks the factory constructor instead of converting the lambda.
  template <class B = bool, std::enable_if_t<std::is_same_v<B, bool>, int> = 0>
  explicit OpCreator(const OpDefinitions &defs, B isPublic = true)
      : OpCreator(defs, [](const OpCreatorInfo &info) -> std::unique_ptr<Op> {
          return std::make_unique<OP>(info.opid, info.settings);
        }, isPublic) {}
};

/// Definitions for each id of `ids`, input 0 restricted to `types` (empty: any).
OpDefinitions makeDefinitions(const OpIds &ids, std::vector<DataType> types = {});

namespace detail {
/// Throws: grad ops are made by their forward op's getGradOps(), not by id.
std::unique_ptr<Op> notCreatable(const OpCreatorInfo &info);
template <class OP> struct BuiltinOpRegistrar {
  BuiltinOpRegistrar(const OpIds &ids, std::vector<DataType> types = {}) {
    OpManager::OpFactoryFunc factory;
    if constexpr (std::is_constructible_v<OP, const OperatorIdentifier &, const Op::Settings &>)
      factory = [](const OpCreatorInfo &info) -> std::unique_ptr<Op> {
        return std::make_unique<OP>(info.opid, info.settings);
      };
    else
      factory = [](const OpCreatorInfo &info) -> std::unique_ptr<Op> { return notCreatable(info); };
    for (const auto &[id, def] : makeDefinitions(ids, std::move(types)))
      OpManager::registerOp(id, withGradientFlag<OP>(def), ids.isPublic, factory, &typeid(OP));
  }
};
} // namespace detail

/// Registers op class CLASS under the identifiers IDS (onnxOp(...), internalOp(...)).
#define POPART_REGISTER_OP(CLASS, ...)                                                              \
  static ::popart::detail::BuiltinOpRegistrar<CLASS> POPART_UNIQUE_NAME(popartOpRegistrar_)(__VA_ARGS__)

} // namespace popart
