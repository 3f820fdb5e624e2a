// Options of a session. Every PopART option is present with PopART's type and
// default, readable and writable from Python. SessionOptions below says, group
// by group, which options the CPU implementation reads and which are stored
// only because they steer the IPU toolchain (they never change results).
#pragma once
#include "popart/names.hpp"
#include "popart/tensorlocation.hpp"
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace popart {

// Enum values follow PopART's numbering.
enum class RecomputationType { None = 0, Standard, NormOnly, RecomputeAll, Pipeline, N };
enum class VirtualGraphMode { Off = 0, Manual, Auto, ExecutionPhases, N };
enum class SyntheticDataMode { Off = 0, Zeros, RandomNormal, RandomUniform, N };
enum class ReductionType { Sum = 0, Mean, NoReduction, N };
enum class MeanReductionStrategy { Running = 0, Post, PostAndLoss, N };
enum class MergeVarUpdateType { None = 0, All, AutoTight, AutoLoose, N };
enum class IrSerializationFormat { JSON = 0 };
enum class Instrumentation { Outer = 0, Inner, N };
enum class SubgraphCopyingStrategy { OnEnterAndExit = 0, JustInTime, N };
enum class AccumulateOuterFragmentSchedule { Scheduler = 0, Serial, OverlapCycleOptimized, OverlapMemoryOptimized };
enum class BatchSerializationTransformContext { Fwd = 0, Bwd, N };
enum class BatchSerializationMethod { UnrollDynamic = 0, UnrollStatic, Loop, N };
enum class BatchSerializationBatchSchedule { Scheduler = 0, Isomorphic, OverlapOnIo, OverlapOnCompute, N };
enum class ExecutionPhaseIOSchedule { Preload = 0, OnDemand, N };
enum class ExecutionPhaseSchedule { Interleaving = 0, Batch, BatchClusteredIO, N };
enum class AutodiffStitchStrategy { RecomputeMinimal = 0, RecomputeAllNonInputs, AddFwdOutputs, SafeAddFwdOutputs, N };
enum class GradientTensorTrackingMethod {
  ConvAndMatmulGradients = 0,
  AllNonViewChangingGradientTensors,
  GradientsOfUserSpecifiedTensors,
  N
};

/// How ops of the accumulate outer fragment are scheduled across virtual graphs. No effect on the CPU.
struct AccumulateOuterFragmentSettings {
  AccumulateOuterFragmentSettings() = default;
  AccumulateOuterFragmentSettings(AccumulateOuterFragmentSchedule s, std::vector<int> excluded)
      : schedule(s), excludedVirtualGraphs(std::move(excluded)) {}
  AccumulateOuterFragmentSchedule schedule = AccumulateOuterFragmentSchedule::Serial;
  std::vector<int> excludedVirtualGraphs;
};

/// Batch serialisation (splitting ops into `factor` compute batches). No effect on the
/// CPU: the whole micro-batch is computed at once (results are identical).
struct BatchSerializationSettings {
  BatchSerializationSettings() = default;
  BatchSerializationSettings(int factor_, bool concatOnVirtualGraphChange_, bool concatOnExecutionPhaseChange_,
                             bool concatOnPipelineStageChange_,
                             BatchSerializationTransformContext transformContext_ = BatchSerializationTransformContext::Fwd,
                             BatchSerializationMethod method_ = BatchSerializationMethod::UnrollDynamic,
                             BatchSerializationBatchSchedule batchSchedule_ = BatchSerializationBatchSchedule::Isomorphic)
      : factor(factor_), concatOnVirtualGraphChange(concatOnVirtualGraphChange_),
        concatOnExecutionPhaseChange(concatOnExecutionPhaseChange_),
        concatOnPipelineStageChange(concatOnPipelineStageChange_), transformContext(transformContext_),
        method(method_), batchSchedule(batchSchedule_) {}
  int factor = 0;
  bool concatOnVirtualGraphChange = true;
  bool concatOnExecutionPhaseChange = true;
  bool concatOnPipelineStageChange = true;
  BatchSerializationTransformContext transformContext = BatchSerializationTransformContext::Fwd;
  BatchSerializationMethod method = BatchSerializationMethod::UnrollDynamic;
  BatchSerializationBatchSchedule batchSchedule = BatchSerializationBatchSchedule::Isomorphic;
};

/// Execution phases (model split into phases streamed through IPU memory). Stored; the
/// CPU runs all phases from host memory.
struct ExecutionPhaseSettings {
  ExecutionPhaseSettings() = default;
  ExecutionPhaseSettings(int phases_, int stages_, ExecutionPhaseIOSchedule weightIOSchedule_,
                         ExecutionPhaseIOSchedule activationIOSchedule_,
                         ExecutionPhaseIOSchedule optimizerStateIOSchedule_,
                         ExecutionPhaseIOSchedule accumulatorIOSchedule_, ExecutionPhaseSchedule schedule_)
      : phases(phases_), stages(stages_), weightIOSchedule(weightIOSchedule_),
        activationIOSchedule(activationIOSchedule_), optimizerStateIOSchedule(optimizerStateIOSchedule_),
        accumulatorIOSchedule(accumulatorIOSchedule_), schedule(schedule_) {}
  int phases = 0;
  int stages = 2;
  ExecutionPhaseIOSchedule weightIOSchedule = ExecutionPhaseIOSchedule::Preload;
  ExecutionPhaseIOSchedule activationIOSchedule = ExecutionPhaseIOSchedule::Preload;
  ExecutionPhaseIOSchedule optimizerStateIOSchedule = ExecutionPhaseIOSchedule::OnDemand;
  ExecutionPhaseIOSchedule accumulatorIOSchedule = ExecutionPhaseIOSchedule::Preload;
  ExecutionPhaseSchedule schedule = ExecutionPhaseSchedule::Interleaving;
};

/// Default location of one kind of tensor (weights, activations, ...). On the CPU every
/// location is host memory, so this has no effect on placement.
struct TensorLocationSettings {
  TensorLocationSettings() = default;
  explicit TensorLocationSettings(TensorLocation location_, int minElementsForOffChip_ = 2,
                                  int minElementsForReplicatedTensorSharding_ = 8192)
      : location(location_), minElementsForOffChip(minElementsForOffChip_),
        minElementsForReplicatedTensorSharding(minElementsForReplicatedTensorSharding_) {}
  explicit TensorLocationSettings(TensorStorage storage, int minElementsForOffChip_ = 2,
                                  int minElementsForReplicatedTensorSharding_ = 8192)
      : TensorLocationSettings(TensorLocation(storage), minElementsForOffChip_,
                               minElementsForReplicatedTensorSharding_) {}
  TensorLocation location;
  int minElementsForOffChip = 2;
  int minElementsForReplicatedTensorSharding = 8192;
};

/// Automatic loss scaling (training). Stored for the training session, which reads it.
struct AutomaticLossScalingSettings {
  AutomaticLossScalingSettings() = default;
  AutomaticLossScalingSettings(bool enabled_, const std::optional<std::vector<TensorId>> &toTrackTensors_ = {},
                               float binEdgeLocation_ = 0.125f, float thresholdUpperCountProportion_ = 1e-7f,
                               int updatePeriod_ = 1,
                               GradientTensorTrackingMethod method_ =
                                   GradientTensorTrackingMethod::AllNonViewChangingGradientTensors)
      : enabled(enabled_), binEdgeLocation(binEdgeLocation_),
        thresholdUpperCountProportion(thresholdUpperCountProportion_), toTrackTensors(toTrackTensors_),
        updatePeriod(updatePeriod_), gradientTensorTrackingMethod(method_) {}
  bool enabled = false;
  float binEdgeLocation = 0.125f;
  float thresholdUpperCountProportion = 1e-7f;
  std::optional<std::vector<TensorId>> toTrackTensors;
  int updatePeriod = 1;
  GradientTensorTrackingMethod gradientTensorTrackingMethod =
      GradientTensorTrackingMethod::AllNonViewChangingGradientTensors;
};

/// How autodiff stitches sub-graph gradients (PopXL). Stored.
struct AutodiffSettings {
  AutodiffSettings() = default;
  explicit AutodiffSettings(AutodiffStitchStrategy s) : stitchStrategy(s) {}
  AutodiffStitchStrategy stitchStrategy = AutodiffStitchStrategy::RecomputeAllNonInputs;
};

/// Merging of replicated collectives. No effect on the CPU (collectives are in-process).
struct ReplicatedCollectivesSettings {
  ReplicatedCollectivesSettings() = default;
  ReplicatedCollectivesSettings(bool prepare, bool mergeAllReduce, bool mergeReduceScatter = false,
                                bool mergeAllGather = false)
      : prepareScheduleForMergingCollectives(prepare), mergeAllReduceCollectives(mergeAllReduce),
        mergeReduceScatterCollectives(mergeReduceScatter), mergeAllGatherCollectives(mergeAllGather) {}
  bool prepareScheduleForMergingCollectives = false;
  bool mergeAllReduceCollectives = false;
  bool mergeReduceScatterCollectives = false;
  bool mergeAllGatherCollectives = false;
};

/// Settings PopART marks experimental.
struct ExperimentalSettings {
  /// Checkpoint of the IR preparation (Fwd0, Fwd1, Bwd0, PreAlias, MainLoops,
  /// Final) -> names of registered Transforms (popart/transforms/transform.hpp)
  /// applied there to the main graph, in order.
  std::map<std::string, std::vector<std::string>> customTransformApplierSettings;
};

struct SessionOptions {
  // ---- read by the CPU executor and compile pipeline ----
  bool enableGradientAccumulation = false;
  int64_t accumulationFactor = 1;                 // micro-batches per batch (with enableGradientAccumulation)
  bool enableReplicatedGraphs = false;
  int64_t replicatedGraphCount = 1;               // leading dims of anchor and input buffers
  bool enableDistributedReplicatedGraphs = false;
  int64_t globalReplicationFactor = 1;
  int64_t globalReplicaOffset = 0;

  // ---- meaningful on the CPU for training, replication and model parallelism: the
  // sessions and transforms of those features read them; an inference session on one
  // CPU device ignores them ----
  ReductionType accumulationAndReplicationReductionType = ReductionType::Sum;
  MeanReductionStrategy meanAccumulationAndReplicationReductionStrategy = MeanReductionStrategy::Post;
  bool enablePipelining = false;
  VirtualGraphMode virtualGraphMode = VirtualGraphMode::Off;
  std::vector<float> virtualGraphSplitRatios;
  RecomputationType autoRecomputation = RecomputationType::None;
  bool explicitRecomputation = false;
  bool enableExplicitMainLoops = false;
  bool useHostCopyOps = false;
  bool enableLoadAndOffloadRNGState = false;
  bool ensureFp32LossScaleTensor = false;
  bool decomposeGradSum = false;
  bool delayVarUpdates = true;
  bool scheduleNonWeightUpdateGradientConsumersEarly = false;
  MergeVarUpdateType mergeVarUpdate = MergeVarUpdateType::None;
  int64_t mergeVarUpdateMemThreshold = 1000000;
  int64_t looseThresholdAtPeak = 8000;
  AutomaticLossScalingSettings automaticLossScalingSettings;
  AutodiffSettings autodiffSettings;

  // ---- numerics and import: stored; the CPU kernels always compute in (at least) the
  // tensor's precision with stable formulas and run INT64/UINT64 natively, so these
  // have no effect ----
  bool enableStochasticRounding = false;
  bool enableNonStableSoftmax = false;
  bool enableStableNorm = false;
  bool enableFloatingPointChecks = false;
  bool enableSupportedDataTypeCasting = true;
  bool enableConstantFoldingOfMultipleConsumers = true;  // constants are always folded
  bool strictOpVersions = true;                   // ops resolve to the newest version <= the opset
  bool constantWeights = true;                    // weights stay Variables: resetHostWeights always works
  std::string partialsTypeMatMuls;                // "float" / "half"; the CPU accumulates in float
  /// Not applied yet: inputs are always streamed from the IStepIO.
  SyntheticDataMode syntheticDataMode = SyntheticDataMode::Off;

  // ---- IPU toolchain: stored, no effect on the CPU ----
  /// Gradients are averaged across processes on the host (Horovod's PopART extension
  /// does the reduction); within one process that average is the gradient itself.
  bool hostAllReduce = false;
  bool enableOutlining = true;
  bool enableOutliningCopyCostPruning = true;
  float outlineThreshold = 1.0f;
  float outlineSequenceBreakCost = 10000.0f;
  bool enableFullyConnectedPass = true;
  bool enableSerializedMatmuls = true;
  bool aliasZeroCopy = false;
  bool opxAliasChecking = false;
  bool opxModifyChecking = false;
  std::string kahnTieBreaker = "greedy";
  double timeLimitScheduler = 1e9;
  int64_t swapLimitScheduler = static_cast<int64_t>(1e9);
  int64_t transitiveClosureOptimizationThreshold = 100000;
  bool compileEngine = true;
  bool enableEngineCaching = false;
  std::string cachePath = "session_cache";
  bool enableVariablesCaching = true;
  bool instrumentWithHardwareCycleCounter = false;  // getCycleCount() always counts on the CPU
  std::set<Instrumentation> hardwareInstrumentations{Instrumentation::Outer};
  bool rearrangeAnchorsOnHost = true;
  bool rearrangeStreamsOnHost = false;
  bool groupHostSync = false;
  bool enablePrefetchDatastreams = true;
  int64_t defaultPrefetchBufferingDepth = 1;
  std::map<TensorId, int64_t> prefetchBufferingDepthMap;
  bool disableGradAccumulationTensorStreams = false;
  bool disableOptimizerStateTensorStreams = false;
  bool createImplicitPipeliningFwdOnlyProgram = false;
  bool stashAllTensorsInferencePipeline = false;
  int64_t numIOTiles = 0;
  bool enableMergeExchange = true;
  bool enableEfficientOverlapIOTopoCons = false;
  bool useLoopCandidateCreator = false;
  SubgraphCopyingStrategy subgraphCopyingStrategy = SubgraphCopyingStrategy::OnEnterAndExit;
  bool throwIfLog2ScaleTensorNotInRange = true;
  bool groupNormStridedChannelGrouping = false;
  int64_t compilationProgressTotal = 100;
  std::vector<std::string> updatableNamedBuffers;
  std::vector<std::string> customCodelets;
  std::string customCodeletCompileFlags;
  bool separateCallOpPdfs = true;
  std::string serializedPoprithmsShiftGraphsDir;
  std::string serializedPoprithmsAnnealGraphsDir;
  bool exportPoplarComputationGraph = false;
  bool exportPoplarVertexGraph = false;
  AccumulateOuterFragmentSettings accumulateOuterFragmentSettings;
  BatchSerializationSettings batchSerializationSettings;
  ExecutionPhaseSettings executionPhaseSettings;
  ReplicatedCollectivesSettings replicatedCollectivesSettings;
  TensorLocationSettings activationTensorLocationSettings;
  TensorLocationSettings weightTensorLocationSettings;
  TensorLocationSettings optimizerStateTensorLocationSettings;
  TensorLocationSettings accumulatorTensorLocationSettings;
  std::map<TensorId, TensorLocation> tensorLocationSettingsOverride;
  /// Options passed through to Poplar/PopLibs/GCL on the IPU; kept for getters.
  std::map<std::string, std::string> engineOptions, convolutionOptions, lstmOptions, matmulOptions,
      reportOptions, gclOptions;

  ExperimentalSettings experimentalSettings;

  // ---- diagnostics: read by the CPU implementation ----
  std::set<std::string> dotChecks;  // "FWD0", "FWD1", "BWD0", "PREALIAS", "FINAL", "ALL"
  std::string logDir = ".";         // where DOT files go
  bool dotOpNames = false;
  int firstDotOp = 0;
  int finalDotOp = 10000;

  /// PopART's switch for the explicit IR: host-copy ops, explicit main loops and
  /// explicit recomputation together.
  void enableExplicitIR(bool enable) {
    useHostCopyOps = enable;
    enableExplicitMainLoops = enable;
    explicitRecomputation = enable;
  }
  bool autoRecomputationEnabled() const { return autoRecomputation != RecomputationType::None; }
  bool explicitPipeliningEnabled() const { return enablePipelining && enableExplicitMainLoops && useHostCopyOps; }
  bool implicitPipeliningEnabled() const { return enablePipelining && !(enableExplicitMainLoops && useHostCopyOps); }
  /// Buffering depth of input stream `id`: the per-tensor entry, else the default.
  int64_t getPrefetchBufferingDepth(const TensorId &id, int64_t rearrangedDefault) const {
    auto it = prefetchBufferingDepthMap.find(id);
    return it != prefetchBufferingDepthMap.end() ? it->second : rearrangedDefault;
  }
  int64_t getGlobalReplicationFactor() const;
  int64_t getAccumulationFactor() const { return enableGradientAccumulation ? accumulationFactor : 1; }
  int64_t replicationFactor() const { return enableReplicatedGraphs ? replicatedGraphCount : 1; }
};

} // namespace popart
