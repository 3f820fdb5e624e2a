// Options of a session. Every PopART option is present; those with no
// meaning on the CPU are stored and documented as having no effect.
#pragma once
#include "popart/names.hpp"
#include <map>
#include <set>
#include <string>
#include <vector>

namespace popart {

enum class RecomputationType { None = 0, Standard, NormOnly, RecomputeAll, Pipeline, N };
enum class VirtualGraphMode { Off = 0, Manual, Auto, ExecutionPhases, N };
enum class SyntheticDataMode { Off = 0, Zeros, RandomNormal, RandomUniform, N };
enum class ReductionType { Sum = 0, Mean, NoReduction, N };
enum class MeanReductionStrategy { Running = 0, Post, PostAndLoss, N };
enum class MergeVarUpdateType { None = 0, All, AutoTight, AutoLoose, N };
enum class IrSerializationFormat { JSON = 0 };
enum class Instrumentation { Outer = 0, Inner, N };
enum class SubgraphCopyingStrategy { OnEnterAndExit = 0, JustInTime, N };

struct SessionOptions {
  // ---- what is compiled ----
  RecomputationType autoRecomputation = RecomputationType::None;
  bool explicitRecomputation = false;
  bool constantWeights = true;            // inference: weights may be folded
  bool enableGradientAccumulation = false;
  int accumulationFactor = 1;
  ReductionType accumulationAndReplicationReductionType = ReductionType::Sum;
  MeanReductionStrategy meanAccumulationAndReplicationReductionStrategy = MeanReductionStrategy::Post;
  bool enableReplicatedGraphs = false;
  int64_t replicatedGraphCount = 1;
  bool enableDistributedReplicatedGraphs = false;
  int64_t globalReplicationFactor = 1;
  int64_t globalReplicaOffset = 0;
  bool enablePipelining = false;
  VirtualGraphMode virtualGraphMode = VirtualGraphMode::Off;
  std::vector<float> virtualGraphSplitRatios;
  bool enableOutlining = true;
  bool enableOutliningCopyCostPruning = true;
  float outlineThreshold = 1.0f;
  float outlineSequenceBreakCost = 10000.0f;
  bool enableNonStableSoftmax = false;
  bool enableStableNorm = false;
  bool enableFullyConnectedPass = true;
  bool decomposeGradSum = false;
  bool enableConstantFoldingOfMultipleConsumers = true;
  MergeVarUpdateType mergeVarUpdate = MergeVarUpdateType::None;
  int64_t mergeVarUpdateMemThreshold = 1000000;
  bool delayVarUpdates = true;
  bool enableStochasticRounding = false;
  bool enableFloatingPointChecks = false;
  bool enableSupportedDataTypeCasting = true;
  bool ensureFp32LossScaleTensor = false;
  bool enableLoadAndOffloadRNGState = false;
  bool strictOpVersions = true;
  bool useHostCopyOps = false;
  bool enableExplicitMainLoops = false;
  bool aliasZeroCopy = false;
  bool opxAliasChecking = false;
  bool opxModifyChecking = false;
  std::string partialsTypeMatMuls;
  std::string kahnTieBreaker = "greedy";
  double timeLimitScheduler = 1e9;
  int64_t swapLimitScheduler = 1000000;

  // ---- execution ----
  SyntheticDataMode syntheticDataMode = SyntheticDataMode::Off;
  bool compileEngine = true;
  bool enableEngineCaching = false;
  std::string cachePath = "session_cache";
  bool enableVariablesCaching = true;
  bool instrumentWithHardwareCycleCounter = false;
  Instrumentation hardwareInstrumentations = Instrumentation::Outer;
  bool rearrangeAnchorsOnHost = true;
  bool rearrangeStreamsOnHost = false;
  bool groupHostSync = false;
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
  std::vector<std::string> updatableNamedBuffers;
  std::vector<std::string> customCodelets;
  std::string customCodeletCompileFlags;
  bool separateCallOpPdfs = true;
  std::string serializedPoprithmsShiftGraphsDir;
  std::string serializedPoprithmsAnnealGraphsDir;
  bool exportPoplarComputationGraph = false;
  bool exportPoplarVertexGraph = false;

  // ---- diagnostics ----
  std::set<std::string> dotChecks;  // "FWD0", "FWD1", "BWD0", "PREALIAS", "FINAL", "ALL"
  std::string logDir = ".";
  bool dotOpNames = false;
  int firstDotOp = 0;
  int finalDotOp = 10000;

  /// Engine / device options passed through unchanged (kept for getters).
  std::map<std::string, std::string> engineOptions, convolutionOptions, lstmOptions,
      matmulOptions, reportOptions, gclOptions, tensorLocationSettingsOverride;

  int64_t getGlobalReplicationFactor() const;
  int64_t getAccumulationFactor() const { return enableGradientAccumulation ? accumulationFactor : 1; }
  int64_t replicationFactor() const { return enableReplicatedGraphs ? replicatedGraphCount : 1; }
};

} // namespace popart
