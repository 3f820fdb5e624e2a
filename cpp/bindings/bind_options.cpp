// SessionOptions, its settings classes and enums, Patterns.
#include "bindings.hpp"
#include "popart/patterns.hpp"
#include "popart/sessionoptions.hpp"
#include <pybind11/stl.h>
#include <utility>

namespace popart::bindings {
namespace {

using NamedValue = std::pair<const char *, int>;

/// Binds enum E with PopART's Python member names (which differ from the C++
/// ones where those are Python keywords: RecomputationType.NoRecompute, ...).
template <class E> void bindEnum(py::module_ &m, const char *name, std::initializer_list<NamedValue> values) {
  py::enum_<E> e(m, name);
  for (const auto &[n, v] : values) e.value(n, static_cast<E>(v));
}

void bindOptionEnums(py::module_ &m) {
  bindEnum<RecomputationType>(m, "RecomputationType",
                              {{"NoRecompute", 0}, {"Standard", 1}, {"NormOnly", 2}, {"RecomputeAll", 3}, {"Pipeline", 4}});
  bindEnum<VirtualGraphMode>(m, "VirtualGraphMode", {{"Off", 0}, {"Manual", 1}, {"Auto", 2}, {"ExecutionPhases", 3}});
  bindEnum<SyntheticDataMode>(m, "SyntheticDataMode",
                              {{"Off", 0}, {"Zeros", 1}, {"RandomNormal", 2}, {"RandomUniform", 3}});
  bindEnum<ReductionType>(m, "ReductionType", {{"Sum", 0}, {"Mean", 1}, {"NoReduction", 2}});
  bindEnum<MeanReductionStrategy>(m, "MeanReductionStrategy", {{"Running", 0}, {"Post", 1}, {"PostAndLoss", 2}});
  bindEnum<MergeVarUpdateType>(m, "MergeVarUpdateType", {{"Off", 0}, {"All", 1}, {"AutoTight", 2}, {"AutoLoose", 3}});
  bindEnum<IrSerializationFormat>(m, "IrSerializationFormat", {{"JSON", 0}});
  bindEnum<Instrumentation>(m, "Instrumentation", {{"Outer", 0}, {"Inner", 1}});
  bindEnum<SubgraphCopyingStrategy>(m, "SubgraphCopyingStrategy", {{"OnEnterAndExit", 0}, {"JustInTime", 1}});
  bindEnum<AccumulateOuterFragmentSchedule>(
      m, "AccumulateOuterFragmentSchedule",
      {{"Scheduler", 0}, {"Serial", 1}, {"OverlapCycleOptimized", 2}, {"OverlapMemoryOptimized", 3}});
  bindEnum<BatchSerializationTransformContext>(m, "BatchSerializationTransformContext",
                                               {{"Fwd", 0}, {"Bwd", 1}, {"Forward", 0}, {"Backward", 1}});
  bindEnum<BatchSerializationMethod>(m, "BatchSerializationMethod",
                                     {{"UnrollDynamic", 0}, {"UnrollStatic", 1}, {"Loop", 2}});
  bindEnum<BatchSerializationBatchSchedule>(
      m, "BatchSerializationBatchSchedule",
      {{"Scheduler", 0}, {"Isomorphic", 1}, {"OverlapOnIo", 2}, {"OverlapOnCompute", 3}});
  bindEnum<ExecutionPhaseIOSchedule>(m, "ExecutionPhaseIOSchedule", {{"Preload", 0}, {"OnDemand", 1}});
  bindEnum<ExecutionPhaseSchedule>(m, "ExecutionPhaseSchedule",
                                   {{"Interleaving", 0}, {"Batch", 1}, {"BatchClusteredIO", 2}});
  bindEnum<AutodiffStitchStrategy>(
      m, "AutodiffStitchStrategy",
      {{"RecomputeMinimal", 0}, {"RecomputeAllNonInputs", 1}, {"AddFwdOutputs", 2}, {"SafeAddFwdOutputs", 3}});
  bindEnum<GradientTensorTrackingMethod>(
      m, "GradientTensorTrackingMethod",
      {{"ConvAndMatmulGradients", 0}, {"AllNonViewChangingGradientTensors", 1}, {"GradientsOfUserSpecifiedTensors", 2}});
}

void bindSettingsClasses(py::module_ &m) {
  using AOF = AccumulateOuterFragmentSettings;
  py::class_<AOF>(m, "AccumulateOuterFragmentSettings")
      .def(py::init<>())
      .def(py::init<AccumulateOuterFragmentSchedule, std::vector<int>>(), py::arg("schedule"),
           py::arg("excludedVirtualGraphs") = std::vector<int>{})
      .def_readwrite("schedule", &AOF::schedule)
      .def_readwrite("excludedVirtualGraphs", &AOF::excludedVirtualGraphs);

  using BSS = BatchSerializationSettings;
  py::class_<BSS>(m, "BatchSerializationSettings")
      .def(py::init<>())
      .def(py::init<int, bool, bool, bool, BatchSerializationTransformContext, BatchSerializationMethod,
                    BatchSerializationBatchSchedule>(),
           py::arg("factor"), py::arg("concatOnVirtualGraphChange") = true,
           py::arg("concatOnExecutionPhaseChange") = true, py::arg("concatOnPipelineStageChange") = true,
           py::arg("transformContext") = BatchSerializationTransformContext::Fwd,
           py::arg("method") = BatchSerializationMethod::UnrollDynamic,
           py::arg("batchSchedule") = BatchSerializationBatchSchedule::Isomorphic)
      .def_readwrite("factor", &BSS::factor)
      .def_readwrite("concatOnVirtualGraphChange", &BSS::concatOnVirtualGraphChange)
      .def_readwrite("concatOnExecutionPhaseChange", &BSS::concatOnExecutionPhaseChange)
      .def_readwrite("concatOnPipelineStageChange", &BSS::concatOnPipelineStageChange)
      .def_readwrite("transformContext", &BSS::transformContext)
      .def_readwrite("method", &BSS::method)
      .def_readwrite("batchSchedule", &BSS::batchSchedule);

  using EPS = ExecutionPhaseSettings;
  using IOS = ExecutionPhaseIOSchedule;
  py::class_<EPS>(m, "ExecutionPhaseSettings")
      .def(py::init<>())
      .def(py::init<int, int, IOS, IOS, IOS, IOS, ExecutionPhaseSchedule>(), py::arg("phases"),
           py::arg("stages") = 2, py::arg("weightIOSchedule") = IOS::Preload,
           py::arg("activationIOSchedule") = IOS::Preload, py::arg("optimizerStateIOSchedule") = IOS::OnDemand,
           py::arg("accumulatorIOSchedule") = IOS::Preload, py::arg("schedule") = ExecutionPhaseSchedule::Interleaving)
      .def_readwrite("phases", &EPS::phases)
      .def_readwrite("stages", &EPS::stages)
      .def_readwrite("weightIOSchedule", &EPS::weightIOSchedule)
      .def_readwrite("activationIOSchedule", &EPS::activationIOSchedule)
      .def_readwrite("optimizerStateIOSchedule", &EPS::optimizerStateIOSchedule)
      .def_readwrite("accumulatorIOSchedule", &EPS::accumulatorIOSchedule)
      .def_readwrite("schedule", &EPS::schedule);

  using TLS = TensorLocationSettings;
  py::class_<TLS>(m, "TensorLocationSettings")
      .def(py::init<>())
      .def(py::init<TensorLocation, int, int>(), py::arg("location"), py::arg("minElementsForOffChip") = 2,
           py::arg("minElementsForReplicatedTensorSharding") = 8192)
      .def(py::init<TensorStorage, int, int>(), py::arg("storage"), py::arg("minElementsForOffChip") = 2,
           py::arg("minElementsForReplicatedTensorSharding") = 8192)
      .def_readwrite("location", &TLS::location)
      .def_readwrite("minElementsForOffChip", &TLS::minElementsForOffChip)
      .def_readwrite("minElementsForReplicatedTensorSharding", &TLS::minElementsForReplicatedTensorSharding);

  using ALS = AutomaticLossScalingSettings;
  py::class_<ALS>(m, "AutomaticLossScalingSettings")
      .def(py::init<>())
      .def(py::init<bool, const std::optional<std::vector<TensorId>> &, float, float, int,
                    GradientTensorTrackingMethod>(),
           py::arg("enabled"), py::arg("toTrackTensors") = std::optional<std::vector<TensorId>>(),
           py::arg("binEdgeLocation") = 0.125f, py::arg("thresholdUpperCountProportion") = 1e-7f,
           py::arg("updatePeriod") = 1,
           py::arg("gradientTensorTrackingMethod") = GradientTensorTrackingMethod::AllNonViewChangingGradientTensors)
      .def_readwrite("enabled", &ALS::enabled)
      .def_readwrite("binEdgeLocation", &ALS::binEdgeLocation)
      .def_readwrite("thresholdUpperCountProportion", &ALS::thresholdUpperCountProportion)
      .def_readwrite("toTrackTensors", &ALS::toTrackTensors)
      .def_readwrite("updatePeriod", &ALS::updatePeriod)
      .def_readwrite("gradientTensorTrackingMethod", &ALS::gradientTensorTrackingMethod);

  py::class_<AutodiffSettings>(m, "AutodiffSettings")
      .def(py::init<>())
      .def(py::init<AutodiffStitchStrategy>(), py::arg("stitchStrategy"))
      .def_readwrite("stitchStrategy", &AutodiffSettings::stitchStrategy);

  using RCS = ReplicatedCollectivesSettings;
  py::class_<RCS>(m, "ReplicatedCollectivesSettings")
      .def(py::init<>())
      .def(py::init<bool, bool, bool, bool>(), py::arg("prepareScheduleForMergingCollectives") = false,
           py::arg("mergeAllReduceCollectives") = false, py::arg("mergeReduceScatterCollectives") = false,
           py::arg("mergeAllGatherCollectives") = false)
      .def_readwrite("prepareScheduleForMergingCollectives", &RCS::prepareScheduleForMergingCollectives)
      .def_readwrite("mergeAllReduceCollectives", &RCS::mergeAllReduceCollectives)
      .def_readwrite("mergeReduceScatterCollectives", &RCS::mergeReduceScatterCollectives)
      .def_readwrite("mergeAllGatherCollectives", &RCS::mergeAllGatherCollectives);
}

// One def_readwrite per option; the member name is the Python name.
#define POPART_OPTION(NAME) c.def_readwrite(#NAME, &SessionOptions::NAME)

void bindSessionOptions(py::module_ &m) {
  py::class_<ExperimentalSettings>(m, "ExperimentalSettings")
      .def(py::init<>())
      .def_readwrite("customTransformApplierSettings", &ExperimentalSettings::customTransformApplierSettings);
  py::class_<SessionOptions> c(m, "SessionOptions");
  c.def(py::init<>())
      .def("__copy__", [](const SessionOptions &o) { return SessionOptions(o); })
      .def("__deepcopy__", [](const SessionOptions &o, py::dict) { return SessionOptions(o); }, py::arg("memo"))
      .def("enableExplicitIR", &SessionOptions::enableExplicitIR, py::arg("enable"))
      .def("autoRecomputationEnabled", &SessionOptions::autoRecomputationEnabled)
      .def("explicitPipeliningEnabled", &SessionOptions::explicitPipeliningEnabled)
      .def("implicitPipeliningEnabled", &SessionOptions::implicitPipeliningEnabled)
      .def("getPrefetchBufferingDepth", &SessionOptions::getPrefetchBufferingDepth, py::arg("id"),
           py::arg("rearrangedDefault"))
      .def("getGlobalReplicationFactor", &SessionOptions::getGlobalReplicationFactor)
      .def("getAccumulationFactor", &SessionOptions::getAccumulationFactor);
  // One line per option; sessionoptions.hpp says which ones the CPU reads.
  POPART_OPTION(enableGradientAccumulation);
  POPART_OPTION(accumulationFactor);
  POPART_OPTION(accumulationAndReplicationReductionType);
  POPART_OPTION(meanAccumulationAndReplicationReductionStrategy);
  POPART_OPTION(enableReplicatedGraphs);
  POPART_OPTION(replicatedGraphCount);
  POPART_OPTION(enableDistributedReplicatedGraphs);
  POPART_OPTION(globalReplicationFactor);
  POPART_OPTION(globalReplicaOffset);
  POPART_OPTION(enablePipelining);
  POPART_OPTION(virtualGraphMode);
  POPART_OPTION(virtualGraphSplitRatios);
  POPART_OPTION(autoRecomputation);
  POPART_OPTION(explicitRecomputation);
  POPART_OPTION(enableExplicitMainLoops);
  POPART_OPTION(hostAllReduce);
  POPART_OPTION(useHostCopyOps);
  POPART_OPTION(enableStochasticRounding);
  POPART_OPTION(enableLoadAndOffloadRNGState);
  POPART_OPTION(enableNonStableSoftmax);
  POPART_OPTION(enableStableNorm);
  POPART_OPTION(enableFloatingPointChecks);
  POPART_OPTION(ensureFp32LossScaleTensor);
  POPART_OPTION(enableSupportedDataTypeCasting);
  POPART_OPTION(decomposeGradSum);
  POPART_OPTION(enableConstantFoldingOfMultipleConsumers);
  POPART_OPTION(delayVarUpdates);
  POPART_OPTION(scheduleNonWeightUpdateGradientConsumersEarly);
  POPART_OPTION(mergeVarUpdate);
  POPART_OPTION(mergeVarUpdateMemThreshold);
  POPART_OPTION(looseThresholdAtPeak);
  POPART_OPTION(strictOpVersions);
  POPART_OPTION(constantWeights);
  POPART_OPTION(partialsTypeMatMuls);
  POPART_OPTION(automaticLossScalingSettings);
  POPART_OPTION(autodiffSettings);
  POPART_OPTION(syntheticDataMode);
  // stored for the IPU toolchain
  POPART_OPTION(enableOutlining);
  POPART_OPTION(enableOutliningCopyCostPruning);
  POPART_OPTION(outlineThreshold);
  POPART_OPTION(outlineSequenceBreakCost);
  POPART_OPTION(enableFullyConnectedPass);
  POPART_OPTION(enableSerializedMatmuls);
  POPART_OPTION(aliasZeroCopy);
  POPART_OPTION(opxAliasChecking);
  POPART_OPTION(opxModifyChecking);
  POPART_OPTION(kahnTieBreaker);
  POPART_OPTION(timeLimitScheduler);
  POPART_OPTION(swapLimitScheduler);
  POPART_OPTION(transitiveClosureOptimizationThreshold);
  POPART_OPTION(compileEngine);
  POPART_OPTION(enableEngineCaching);
  POPART_OPTION(cachePath);
  POPART_OPTION(enableVariablesCaching);
  POPART_OPTION(instrumentWithHardwareCycleCounter);
  POPART_OPTION(hardwareInstrumentations);
  POPART_OPTION(rearrangeAnchorsOnHost);
  POPART_OPTION(rearrangeStreamsOnHost);
  POPART_OPTION(groupHostSync);
  POPART_OPTION(enablePrefetchDatastreams);
  POPART_OPTION(defaultPrefetchBufferingDepth);
  POPART_OPTION(prefetchBufferingDepthMap);
  // PopART 3's names of the two options above
  c.def_property("defaultBufferingDepth", [](const SessionOptions &o) { return o.defaultPrefetchBufferingDepth; },
                 [](SessionOptions &o, int64_t v) { o.defaultPrefetchBufferingDepth = v; });
  c.def_property("bufferingDepthMap", [](const SessionOptions &o) { return o.prefetchBufferingDepthMap; },
                 [](SessionOptions &o, const std::map<TensorId, int64_t> &v) { o.prefetchBufferingDepthMap = v; });
  POPART_OPTION(disableGradAccumulationTensorStreams);
  POPART_OPTION(disableOptimizerStateTensorStreams);
  POPART_OPTION(createImplicitPipeliningFwdOnlyProgram);
  POPART_OPTION(stashAllTensorsInferencePipeline);
  POPART_OPTION(numIOTiles);
  POPART_OPTION(enableMergeExchange);
  POPART_OPTION(enableEfficientOverlapIOTopoCons);
  POPART_OPTION(useLoopCandidateCreator);
  POPART_OPTION(subgraphCopyingStrategy);
  POPART_OPTION(throwIfLog2ScaleTensorNotInRange);
  POPART_OPTION(groupNormStridedChannelGrouping);
  POPART_OPTION(compilationProgressTotal);
  POPART_OPTION(updatableNamedBuffers);
  POPART_OPTION(customCodelets);
  POPART_OPTION(customCodeletCompileFlags);
  POPART_OPTION(separateCallOpPdfs);
  POPART_OPTION(serializedPoprithmsShiftGraphsDir);
  POPART_OPTION(serializedPoprithmsAnnealGraphsDir);
  POPART_OPTION(exportPoplarComputationGraph);
  POPART_OPTION(exportPoplarVertexGraph);
  POPART_OPTION(accumulateOuterFragmentSettings);
  POPART_OPTION(batchSerializationSettings);
  POPART_OPTION(executionPhaseSettings);
  POPART_OPTION(replicatedCollectivesSettings);
  POPART_OPTION(activationTensorLocationSettings);
  POPART_OPTION(weightTensorLocationSettings);
  POPART_OPTION(optimizerStateTensorLocationSettings);
  POPART_OPTION(accumulatorTensorLocationSettings);
  POPART_OPTION(tensorLocationSettingsOverride);
  POPART_OPTION(engineOptions);
  POPART_OPTION(convolutionOptions);
  POPART_OPTION(lstmOptions);
  POPART_OPTION(matmulOptions);
  POPART_OPTION(reportOptions);
  POPART_OPTION(gclOptions);
  // diagnostics
  POPART_OPTION(dotChecks);
  POPART_OPTION(experimentalSettings);
  POPART_OPTION(logDir);
  POPART_OPTION(dotOpNames);
  POPART_OPTION(firstDotOp);
  POPART_OPTION(finalDotOp);
}

#undef POPART_OPTION

namespace {
/// PopART's attribute spellings that differ from the pattern names.
std::string patternAlias(const std::string &name) {
  if (name == "SoftMaxGradDirect") return "SoftmaxGradDirect";
  if (name == "NlllWithSoftMaxGradDirect") return "NlllWithSoftmaxGradDirect";
  return name;
}
} // namespace

void bindPatterns(py::module_ &m) {
  py::enum_<PatternsLevel>(m, "PatternsLevel")
      .value("NoPatterns", PatternsLevel::NoPatterns)
      .value("Minimal", PatternsLevel::Minimal)
      .value("Default", PatternsLevel::Default)
      .value("All", PatternsLevel::All);
  py::class_<Patterns>(m, "Patterns")
      .def(py::init<>())
      .def(py::init<PatternsLevel>(), py::arg("level"))
      .def(py::init<const std::vector<std::string> &>(), py::arg("patterns"))
      .def_static("create", &Patterns::create)
      .def("enablePattern", [](Patterns &p, const std::string &t, bool e) -> Patterns & {
             return p.enablePattern(patternAlias(t), e); }, py::arg("type"), py::arg("enable"),
           py::return_value_policy::reference_internal)
      .def("isPatternEnabled", [](const Patterns &p, const std::string &t) { return p.isPatternEnabled(patternAlias(t)); },
           py::arg("type"))
      .def("getAllPatternNames", &Patterns::getAllPatternNames)
      .def("getEnabledPatternNames", &Patterns::getEnabledPatternNames)
      .def_property("InPlace", &Patterns::isInPlaceEnabled, [](Patterns &p, bool v) { p.enableInPlace(v); })
      .def_property("UpdateInplacePrioritiesForIpu", &Patterns::isUpdateInplacePrioritiesForIpuEnabled,
                    [](Patterns &p, bool v) { p.enableUpdateInplacePrioritiesForIpu(v); })
      .def("enableInPlace", &Patterns::enableInPlace, py::return_value_policy::reference_internal)
      .def("isInPlaceEnabled", &Patterns::isInPlaceEnabled)
      .def("enableUpdateInplacePrioritiesForIpu", &Patterns::enableUpdateInplacePrioritiesForIpu,
           py::return_value_policy::reference_internal)
      .def("enableRuntimeAsserts", &Patterns::enableRuntimeAsserts, py::return_value_policy::reference_internal)
      .def("getRuntimeAssertsOn", &Patterns::getRuntimeAssertsOn)
      .def_property_readonly("level", &Patterns::level)
      // PopART exposes each pattern as an attribute: `patterns.PreUniRepl`, `patterns.InPlace = False`.
      .def("__getattr__",
           [](const Patterns &p, const std::string &name) {
             std::string n = patternAlias(name);
             if (!Patterns::isPattern(n)) throw py::attribute_error("Patterns has no attribute or pattern '" + name + "'");
             return p.isPatternEnabled(n);
           })
      .def("__setattr__",
           [](Patterns &p, const std::string &name, bool enable) {
             std::string n = patternAlias(name);
             if (!Patterns::isPattern(n)) throw py::attribute_error("Patterns has no attribute or pattern '" + name + "'");
             p.enablePattern(n, enable);
           })
      .def("__dir__", [](const Patterns &p) {
        std::vector<std::string> names = p.getAllPatternNames();
        names.insert(names.end(), {"InPlace", "UpdateInplacePrioritiesForIpu", "enablePattern", "isPatternEnabled",
                                   "enableRuntimeAsserts", "getRuntimeAssertsOn", "getAllPatternNames",
                                   "getEnabledPatternNames", "enableInPlace", "isInPlaceEnabled", "level"});
        return names;
      })
      .def("__eq__", &Patterns::operator==)
      .def("__repr__", [](const Patterns &p) {
        std::string s = "Patterns([";
        for (const auto &n : p.getEnabledPatternNames()) s += "'" + n + "', ";
        if (p.isInPlaceEnabled()) s += "'InPlace', ";
        if (s.back() == ' ') s.resize(s.size() - 2);
        return s + "])";
      });
}

} // namespace

void bindOptions(py::module_ &m) {
  bindOptionEnums(m);
  bindSettingsClasses(m);
  bindSessionOptions(m);
  bindPatterns(m);
}

} // namespace popart::bindings
