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
template <class E>
void bindEnum(py::module_ &m, const char *name, const char *doc, std::initializer_list<NamedValue> values) {
  py::enum_<E> e(m, name, doc);
  for (const auto &[n, v] : values) e.value(n, static_cast<E>(v));
}

void bindOptionEnums(py::module_ &m) {
  bindEnum<RecomputationType>(m, "RecomputationType",
                              "Which forward activations the backward pass recomputes (SessionOptions.autoRecomputation).",
                              {{"NoRecompute", 0}, {"Standard", 1}, {"NormOnly", 2}, {"RecomputeAll", 3}, {"Pipeline", 4}});
  bindEnum<VirtualGraphMode>(m, "VirtualGraphMode", "How ops are assigned to IPUs (SessionOptions.virtualGraphMode).", {{"Off", 0}, {"Manual", 1}, {"Auto", 2}, {"ExecutionPhases", 3}});
  bindEnum<SyntheticDataMode>(m, "SyntheticDataMode", "What fills the inputs instead of host data (SessionOptions.syntheticDataMode).",
                              {{"Off", 0}, {"Zeros", 1}, {"RandomNormal", 2}, {"RandomUniform", 3}});
  bindEnum<ReductionType>(m, "ReductionType", "How a loss or a set of gradients is reduced: Sum, Mean or NoReduction.", {{"Sum", 0}, {"Mean", 1}, {"NoReduction", 2}});
  bindEnum<MeanReductionStrategy>(m, "MeanReductionStrategy",
                                  "When a Mean reduction over accumulated and replicated gradients divides.", {{"Running", 0}, {"Post", 1}, {"PostAndLoss", 2}});
  bindEnum<MergeVarUpdateType>(m, "MergeVarUpdateType", "Whether and how weight updates are merged (SessionOptions.mergeVarUpdate).", {{"Off", 0}, {"All", 1}, {"AutoTight", 2}, {"AutoLoose", 3}});
  bindEnum<IrSerializationFormat>(m, "IrSerializationFormat", "Format of a serialised IR (only JSON).", {{"JSON", 0}});
  bindEnum<Instrumentation>(m, "Instrumentation", "Which loops cycle counters instrument: the outer or the inner program.", {{"Outer", 0}, {"Inner", 1}});
  bindEnum<SubgraphCopyingStrategy>(m, "SubgraphCopyingStrategy", "When sub-graph inputs and outputs are copied on an IPU.", {{"OnEnterAndExit", 0}, {"JustInTime", 1}});
  bindEnum<AccumulateOuterFragmentSchedule>(
      m, "AccumulateOuterFragmentSchedule", "Schedule of the ops that run once per accumulated batch (stored).",
      {{"Scheduler", 0}, {"Serial", 1}, {"OverlapCycleOptimized", 2}, {"OverlapMemoryOptimized", 3}});
  bindEnum<BatchSerializationTransformContext>(m, "BatchSerializationTransformContext",
                                               "Whether batch serialisation splits the forward or the backward pass.",
                                               {{"Fwd", 0}, {"Bwd", 1}, {"Forward", 0}, {"Backward", 1}});
  bindEnum<BatchSerializationMethod>(m, "BatchSerializationMethod", "How batch serialisation repeats the split ops.",
                                     {{"UnrollDynamic", 0}, {"UnrollStatic", 1}, {"Loop", 2}});
  bindEnum<BatchSerializationBatchSchedule>(
      m, "BatchSerializationBatchSchedule", "Order of the batches of a batch-serialised op.",
      {{"Scheduler", 0}, {"Isomorphic", 1}, {"OverlapOnIo", 2}, {"OverlapOnCompute", 3}});
  bindEnum<ExecutionPhaseIOSchedule>(m, "ExecutionPhaseIOSchedule",
                                     "When tensors of an execution phase are loaded: Preload or OnDemand.", {{"Preload", 0}, {"OnDemand", 1}});
  bindEnum<ExecutionPhaseSchedule>(m, "ExecutionPhaseSchedule", "How execution phases interleave compute and IO.",
                                   {{"Interleaving", 0}, {"Batch", 1}, {"BatchClusteredIO", 2}});
  bindEnum<AutodiffStitchStrategy>(
      m, "AutodiffStitchStrategy", "How autodiff provides forward values that a sub-graph's gradient needs.",
      {{"RecomputeMinimal", 0}, {"RecomputeAllNonInputs", 1}, {"AddFwdOutputs", 2}, {"SafeAddFwdOutputs", 3}});
  bindEnum<GradientTensorTrackingMethod>(
      m, "GradientTensorTrackingMethod", "Which gradients automatic loss scaling takes its statistics from.",
      {{"ConvAndMatmulGradients", 0}, {"AllNonViewChangingGradientTensors", 1}, {"GradientsOfUserSpecifiedTensors", 2}});
}

void bindSettingsClasses(py::module_ &m) {
  using AOF = AccumulateOuterFragmentSettings;
  py::class_<AOF>(m, "AccumulateOuterFragmentSettings",
                  "Schedule of the ops run once per accumulated batch, and virtual graphs excluded from it. "
                  "Stored; no effect on the CPU.")
      .def(py::init<>(), "Default settings: Serial schedule, no virtual graph excluded.")
      .def(py::init<AccumulateOuterFragmentSchedule, std::vector<int>>(), py::arg("schedule"),
           py::arg("excludedVirtualGraphs") = std::vector<int>{}, "Settings with the given schedule and excluded virtual graphs.")
      .def_readwrite("schedule", &AOF::schedule, "The AccumulateOuterFragmentSchedule. Default Serial.")
      .def_readwrite("excludedVirtualGraphs", &AOF::excludedVirtualGraphs, "Virtual graph ids left out. Default [].");

  using BSS = BatchSerializationSettings;
  py::class_<BSS>(m, "BatchSerializationSettings",
                  "Splitting of ops into `factor` smaller batches to save IPU memory. Stored; the CPU computes "
                  "whole micro-batches with the same results.")
      .def(py::init<>(), "Default settings: factor 0 (off).")
      .def(py::init<int, bool, bool, bool, BatchSerializationTransformContext, BatchSerializationMethod,
                    BatchSerializationBatchSchedule>(),
           py::arg("factor"), py::arg("concatOnVirtualGraphChange") = true,
           py::arg("concatOnExecutionPhaseChange") = true, py::arg("concatOnPipelineStageChange") = true,
           py::arg("transformContext") = BatchSerializationTransformContext::Fwd,
           py::arg("method") = BatchSerializationMethod::UnrollDynamic,
           py::arg("batchSchedule") = BatchSerializationBatchSchedule::Isomorphic,
           "Settings with the given factor and options (defaults as the properties say).")
      .def_readwrite("factor", &BSS::factor, "Number of batches each op is split into; 0 or 1 is off. Default 0.")
      .def_readwrite("concatOnVirtualGraphChange", &BSS::concatOnVirtualGraphChange,
                     "Join the batches where the virtual graph changes. Default True.")
      .def_readwrite("concatOnExecutionPhaseChange", &BSS::concatOnExecutionPhaseChange,
                     "Join the batches where the execution phase changes. Default True.")
      .def_readwrite("concatOnPipelineStageChange", &BSS::concatOnPipelineStageChange,
                     "Join the batches where the pipeline stage changes. Default True.")
      .def_readwrite("transformContext", &BSS::transformContext,
                     "Split the forward (Fwd) or the backward (Bwd) pass. Default Fwd.")
      .def_readwrite("method", &BSS::method, "How the split ops are repeated. Default UnrollDynamic.")
      .def_readwrite("batchSchedule", &BSS::batchSchedule, "Order of the batches. Default Isomorphic.");

  using EPS = ExecutionPhaseSettings;
  using IOS = ExecutionPhaseIOSchedule;
  py::class_<EPS>(m, "ExecutionPhaseSettings",
                  "Execution phases: the model split into phases streamed through IPU memory. Stored; the CPU "
                  "keeps every phase in host memory.")
      .def(py::init<>(), "Default settings: 0 phases (off), 2 stages.")
      .def(py::init<int, int, IOS, IOS, IOS, IOS, ExecutionPhaseSchedule>(), py::arg("phases"),
           py::arg("stages") = 2, py::arg("weightIOSchedule") = IOS::Preload,
           py::arg("activationIOSchedule") = IOS::Preload, py::arg("optimizerStateIOSchedule") = IOS::OnDemand,
           py::arg("accumulatorIOSchedule") = IOS::Preload, py::arg("schedule") = ExecutionPhaseSchedule::Interleaving,
           "Settings with the given number of phases and schedules.")
      .def_readwrite("phases", &EPS::phases, "Number of execution phases; 0 or 1 is off. Default 0.")
      .def_readwrite("stages", &EPS::stages, "Number of stages the phases alternate between. Default 2.")
      .def_readwrite("weightIOSchedule", &EPS::weightIOSchedule, "When weights are loaded. Default Preload.")
      .def_readwrite("activationIOSchedule", &EPS::activationIOSchedule, "When activations are loaded. Default Preload.")
      .def_readwrite("optimizerStateIOSchedule", &EPS::optimizerStateIOSchedule,
                     "When optimizer state is loaded. Default OnDemand.")
      .def_readwrite("accumulatorIOSchedule", &EPS::accumulatorIOSchedule,
                     "When gradient accumulators are loaded. Default Preload.")
      .def_readwrite("schedule", &EPS::schedule, "How phases interleave compute and IO. Default Interleaving.");

  using TLS = TensorLocationSettings;
  py::class_<TLS>(m, "TensorLocationSettings",
                  "Default location of one kind of tensor (weights, activations, optimizer state, "
                  "accumulators). Stored; on the CPU every location is host memory.")
      .def(py::init<>(), "Default settings: on chip, thresholds 2 and 8192 elements.")
      .def(py::init<TensorLocation, int, int>(), py::arg("location"), py::arg("minElementsForOffChip") = 2,
           py::arg("minElementsForReplicatedTensorSharding") = 8192,
           "Settings placing tensors at `location` (a TensorLocation) from the given sizes on.")
      .def(py::init<TensorStorage, int, int>(), py::arg("storage"), py::arg("minElementsForOffChip") = 2,
           py::arg("minElementsForReplicatedTensorSharding") = 8192,
           "Settings placing tensors in `storage` (a TensorStorage) from the given sizes on.")
      .def_readwrite("location", &TLS::location, "The TensorLocation used for tensors of this kind.")
      .def_readwrite("minElementsForOffChip", &TLS::minElementsForOffChip,
                     "Smallest tensor (in elements) moved off chip. Default 2.")
      .def_readwrite("minElementsForReplicatedTensorSharding", &TLS::minElementsForReplicatedTensorSharding,
                     "Smallest tensor (in elements) sharded across replicas. Default 8192.");

  using ALS = AutomaticLossScalingSettings;
  py::class_<ALS>(m, "AutomaticLossScalingSettings",
                  "Automatic loss scaling: the training session adjusts the loss-scaling factor from "
                  "histograms of gradient magnitudes.")
      .def(py::init<>(), "Disabled automatic loss scaling.")
      .def(py::init<bool, const std::optional<std::vector<TensorId>> &, float, float, int,
                    GradientTensorTrackingMethod>(),
           py::arg("enabled"), py::arg("toTrackTensors") = std::optional<std::vector<TensorId>>(),
           py::arg("binEdgeLocation") = 0.125f, py::arg("thresholdUpperCountProportion") = 1e-7f,
           py::arg("updatePeriod") = 1,
           py::arg("gradientTensorTrackingMethod") = GradientTensorTrackingMethod::AllNonViewChangingGradientTensors,
           "Settings with the given switch and parameters (defaults as the properties say).")
      .def_readwrite("enabled", &ALS::enabled, "Whether the loss-scaling factor is adjusted. Default False.")
      .def_readwrite("binEdgeLocation", &ALS::binEdgeLocation,
                     "Where, as a fraction of the largest representable value, the upper histogram bin starts. "
                     "Default 0.125.")
      .def_readwrite("thresholdUpperCountProportion", &ALS::thresholdUpperCountProportion,
                     "Share of gradient values in the upper bin above which the factor is halved (else doubled). "
                     "Default 1e-7.")
      .def_readwrite("toTrackTensors", &ALS::toTrackTensors,
                     "Ids of the tensors whose gradients are tracked, or None for the tracking method's choice.")
      .def_readwrite("updatePeriod", &ALS::updatePeriod, "Number of steps between factor updates. Default 1.")
      .def_readwrite("gradientTensorTrackingMethod", &ALS::gradientTensorTrackingMethod,
                     "Which gradients are tracked. Default AllNonViewChangingGradientTensors.");

  py::class_<AutodiffSettings>(m, "AutodiffSettings", "How autodiff treats sub-graphs (used by PopXL).")
      .def(py::init<>(), "Default settings: stitch strategy RecomputeAllNonInputs.")
      .def(py::init<AutodiffStitchStrategy>(), py::arg("stitchStrategy"), "Settings with the given stitch strategy.")
      .def_readwrite("stitchStrategy", &AutodiffSettings::stitchStrategy,
                     "How forward values needed by a sub-graph's gradient are provided (AutodiffStitchStrategy).");

  using RCS = ReplicatedCollectivesSettings;
  py::class_<RCS>(m, "ReplicatedCollectivesSettings",
                  "Merging of replicated collectives. Stored; collectives between CPU replicas run in process.")
      .def(py::init<>(), "Default settings: nothing merged.")
      .def(py::init<bool, bool, bool, bool>(), py::arg("prepareScheduleForMergingCollectives") = false,
           py::arg("mergeAllReduceCollectives") = false, py::arg("mergeReduceScatterCollectives") = false,
           py::arg("mergeAllGatherCollectives") = false, "Settings with the given switches (all default to False).")
      .def_readwrite("prepareScheduleForMergingCollectives", &RCS::prepareScheduleForMergingCollectives,
                     "Schedule collectives next to each other so they can be merged. Default False.")
      .def_readwrite("mergeAllReduceCollectives", &RCS::mergeAllReduceCollectives,
                     "Merge neighbouring all-reduces. Default False.")
      .def_readwrite("mergeReduceScatterCollectives", &RCS::mergeReduceScatterCollectives,
                     "Merge neighbouring reduce-scatters. Default False.")
      .def_readwrite("mergeAllGatherCollectives", &RCS::mergeAllGatherCollectives,
                     "Merge neighbouring all-gathers. Default False.");
}

// One def_readwrite per option; the member name is the Python name.
#define POPART_OPTION(NAME) c.def_readwrite(#NAME, &SessionOptions::NAME, sessionOptionDoc(#NAME))

void bindSessionOptions(py::module_ &m) {
  py::class_<ExperimentalSettings>(m, "ExperimentalSettings",
                                   "Settings of experimental features (SessionOptions.experimentalSettings).")
      .def(py::init<>(), "Default experimental settings.")
      .def_readwrite("customTransformApplierSettings", &ExperimentalSettings::customTransformApplierSettings,
                     "Custom transforms run while the IR is prepared: a dict of checkpoint (Fwd0, Fwd1, Bwd0, PreAlias, "
                     "MainLoops, Final) to the names of registered transforms applied there, in order.");
  py::class_<SessionOptions> c(m, "SessionOptions",
                               "Options of a session, every PopART option with PopART's name and default. Set "
                               "them as attributes before creating the session, which copies them. Each "
                               "option's docstring says whether the CPU implementation reads it; options that "
                               "only steer the IPU toolchain are kept and never change results.");
  c.def(py::init<>(), "Options with every default.")
      .def("__copy__", [](const SessionOptions &o) { return SessionOptions(o); })
      .def("__deepcopy__", [](const SessionOptions &o, py::dict) { return SessionOptions(o); }, py::arg("memo"))
      .def("enableExplicitIR", &SessionOptions::enableExplicitIR, py::arg("enable"),
           "Switch the explicit IR on or off: sets useHostCopyOps, enableExplicitMainLoops and "
           "explicitRecomputation together.")
      .def("autoRecomputationEnabled", &SessionOptions::autoRecomputationEnabled,
           "True when autoRecomputation is not RecomputationType.NoRecompute.")
      .def("explicitPipeliningEnabled", &SessionOptions::explicitPipeliningEnabled,
           "True when pipelining is on together with explicit main loops and host-copy ops.")
      .def("implicitPipeliningEnabled", &SessionOptions::implicitPipeliningEnabled,
           "True when pipelining is on without the explicit IR.")
      .def("getPrefetchBufferingDepth", &SessionOptions::getPrefetchBufferingDepth, py::arg("id"),
           py::arg("rearrangedDefault"),
           "The buffering depth of input stream `id`: its entry in prefetchBufferingDepthMap, else "
           "`rearrangedDefault`.")
      .def("getGlobalReplicationFactor", &SessionOptions::getGlobalReplicationFactor,
           "The number of replicas over all processes: globalReplicationFactor with distributed replication, "
           "else replicatedGraphCount when replication is on, else 1.")
      .def("getAccumulationFactor", &SessionOptions::getAccumulationFactor,
           "accumulationFactor when gradient accumulation is on, else 1.");
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
                 [](SessionOptions &o, int64_t v) { o.defaultPrefetchBufferingDepth = v; },
                 sessionOptionDoc("defaultBufferingDepth"));
  c.def_property("bufferingDepthMap", [](const SessionOptions &o) { return o.prefetchBufferingDepthMap; },
                 [](SessionOptions &o, const std::map<TensorId, int64_t> &v) { o.prefetchBufferingDepthMap = v; },
                 sessionOptionDoc("bufferingDepthMap"));
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
  py::enum_<PatternsLevel>(m, "PatternsLevel",
                           "A preset set of patterns: NoPatterns, Minimal (the mandatory ones), Default, All.")
      .value("NoPatterns", PatternsLevel::NoPatterns)
      .value("Minimal", PatternsLevel::Minimal)
      .value("Default", PatternsLevel::Default)
      .value("All", PatternsLevel::All);
  py::class_<Patterns>(m, "Patterns",
                       "The graph rewrites (patterns) applied while a session prepares its IR. Every PopART "
                       "pattern name is accepted; patterns can be read and switched as attributes "
                       "(patterns.PreUniRepl, patterns.InPlace = False). A session refuses to start with a "
                       "mandatory pattern disabled unless enableRuntimeAsserts(False) was called.")
      .def(py::init<>(), "The Default level.")
      .def(py::init<PatternsLevel>(), py::arg("level"), "The patterns of `level` (a PatternsLevel).")
      .def(py::init<const std::vector<std::string> &>(), py::arg("patterns"),
           "Only the named patterns (starting from NoPatterns); unknown names raise.")
      .def_static("create", &Patterns::create, py::arg("patterns"),
                  "Patterns enabling only the named ones, as Patterns(patterns).")
      .def("enablePattern", [](Patterns &p, const std::string &t, bool e) -> Patterns & {
             return p.enablePattern(patternAlias(t), e); }, py::arg("type"), py::arg("enable"),
           py::return_value_policy::reference_internal,
           "Enable or disable the pattern named `type`; returns self so calls can be chained.")
      .def("isPatternEnabled", [](const Patterns &p, const std::string &t) { return p.isPatternEnabled(patternAlias(t)); },
           py::arg("type"), "Whether the pattern named `type` is enabled.")
      .def("getAllPatternNames", &Patterns::getAllPatternNames, "The names of every known pattern.")
      .def("getEnabledPatternNames", &Patterns::getEnabledPatternNames, "The names of the enabled patterns.")
      .def_property("InPlace", &Patterns::isInPlaceEnabled, [](Patterns &p, bool v) { p.enableInPlace(v); },
                    "Whether ops are replaced by in-place variants where that is safe (saves memory and copies).")
      .def_property("UpdateInplacePrioritiesForIpu", &Patterns::isUpdateInplacePrioritiesForIpuEnabled,
                    [](Patterns &p, bool v) { p.enableUpdateInplacePrioritiesForIpu(v); },
                    "PopART's IPU-specific in-place priority tweak. Stored; no effect on the CPU.")
      .def("enableInPlace", &Patterns::enableInPlace, py::arg("enable"), py::return_value_policy::reference_internal,
           "Enable or disable in-placing; returns self.")
      .def("isInPlaceEnabled", &Patterns::isInPlaceEnabled, "Whether in-placing is enabled.")
      .def("enableUpdateInplacePrioritiesForIpu", &Patterns::enableUpdateInplacePrioritiesForIpu, py::arg("enable"),
           py::return_value_policy::reference_internal,
           "Enable or disable UpdateInplacePrioritiesForIpu (no effect on the CPU); returns self.")
      .def("enableRuntimeAsserts", &Patterns::enableRuntimeAsserts, py::arg("enable"),
           py::return_value_policy::reference_internal,
           "With False, a session accepts these patterns even with a mandatory pattern disabled; returns self.")
      .def("getRuntimeAssertsOn", &Patterns::getRuntimeAssertsOn,
           "Whether sessions check that the mandatory patterns are enabled (default True).")
      .def_property_readonly("level", &Patterns::level, "The PatternsLevel these patterns started from.")
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
