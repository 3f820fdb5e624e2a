// Docstrings of the SessionOptions properties (help(popart.SessionOptions)), one per
// option: what it does, its default, and what it means on the CPU where that differs
// from an IPU. bind_options.cpp looks each option up by name; a missing entry is an
// internal error at import, so a new option cannot go undocumented.
#include "bindings.hpp"
#include "popart/error.hpp"
#include <map>
#include <string>

namespace popart::bindings {

const char *sessionOptionDoc(const std::string &name) {
  static const std::map<std::string, const char *> docs = {
      {"enableGradientAccumulation",
       "Accumulate gradients over accumulationFactor micro-batches and update the weights once per "
       "batch. Default False."},
      {"accumulationFactor",
       "Number of micro-batches whose gradients are summed before each weight update, used when "
       "enableGradientAccumulation is True. Inputs gain a dimension of this size. Default 1."},
      {"accumulationAndReplicationReductionType",
       "How gradients of the accumulated and replicated micro-batches are combined: ReductionType.Sum or "
       "ReductionType.Mean. Default Sum."},
      {"meanAccumulationAndReplicationReductionStrategy",
       "With Mean reduction: Post divides the summed gradient once before the update, Running keeps a "
       "running mean in the accumulator, PostAndLoss also scales the loss. Default Post."},
      {"enableReplicatedGraphs",
       "Run replicatedGraphCount replicas of the model (on the CPU one after the other, on the same "
       "weights) and reduce their gradients before each update. Default False."},
      {"replicatedGraphCount",
       "Number of replicas when enableReplicatedGraphs is True; inputs and anchors gain a dimension of "
       "this size. Default 1."},
      {"enableDistributedReplicatedGraphs",
       "Replication across several processes (globalReplicationFactor replicas in all, this process "
       "holding those from globalReplicaOffset on). Default False."},
      {"globalReplicationFactor",
       "Total number of replicas over all processes when enableDistributedReplicatedGraphs is True. "
       "Default 1."},
      {"globalReplicaOffset",
       "Index of this process's first replica among all replicas, with distributed replication. Default "
       "0."},
      {"enablePipelining",
       "Run the pipeline stages of a model split over several IPUs as a pipeline. Accepted and checked; "
       "the CPU runs the stages as one scheduled sequence with the same results. Default False."},
      {"virtualGraphMode",
       "How ops are assigned to IPUs (virtual graphs): Off, Manual (from the builder's virtualGraph "
       "annotations), Auto or ExecutionPhases. Annotations are checked and kept; the CPU runs the whole "
       "graph. Default VirtualGraphMode.Off."},
      {"virtualGraphSplitRatios",
       "Share of the model placed on each IPU by VirtualGraphMode.Auto, one float per IPU. Stored. "
       "Default [] (an even split)."},
      {"autoRecomputation",
       "Which forward activations are recomputed in the backward pass instead of kept: NoRecompute, "
       "Standard (keep the outputs of expensive ops), NormOnly (recompute normalisations), RecomputeAll, "
       "Pipeline. Default RecomputationType.NoRecompute."},
      {"explicitRecomputation",
       "Express recomputation as explicit copies of forward ops in the IR (part of the explicit IR, see "
       "enableExplicitIR). Default False."},
      {"enableExplicitMainLoops",
       "Express the batches-per-step and accumulation loops explicitly in the IR (part of the explicit "
       "IR). Default False."},
      {"hostAllReduce",
       "Reduce gradients across processes on the host (Horovod's PopART extension). Within one process "
       "the gradient is already the average, so this changes nothing on the CPU. Default False."},
      {"useHostCopyOps",
       "Turn every model input into Init followed by HostLoad and every anchor into a HostStore op, "
       "spelling the host streams out in the IR. Results are identical. Default False."},
      {"enableStochasticRounding",
       "Stochastic rounding of float16 results on an IPU. Stored; CPU kernels round to nearest. Default "
       "False."},
      {"enableLoadAndOffloadRNGState", "Make the random-number state readable and writable with getRNGState/setRNGState. Default False."},
      {"enableNonStableSoftmax",
       "Use a faster, less stable softmax on an IPU. Stored; the CPU always uses the stable formula. "
       "Default False."},
      {"enableStableNorm",
       "Use a more stable variance computation in normalisations on an IPU. Stored; the CPU kernels are "
       "always stable. Default False."},
      {"enableFloatingPointChecks",
       "Trap on floating-point exceptions on an IPU. Stored; NaN and infinity propagate as in numpy on "
       "the CPU. Default False."},
      {"ensureFp32LossScaleTensor", "Keep the loss-scaling tensor in float32 when the model is float16. Default False."},
      {"enableSupportedDataTypeCasting",
       "Cast INT64/UINT64 model tensors to 32 bits as the IPU requires. Stored; the CPU runs 64-bit "
       "integers natively. Default True."},
      {"decomposeGradSum",
       "Split sums of many partial gradients into a chain of additions to lower peak memory. Default "
       "False."},
      {"enableConstantFoldingOfMultipleConsumers",
       "Fold constants also when the folded tensor has several consumers. Stored; constants are always "
       "folded here. Default True."},
      {"delayVarUpdates", "Schedule weight updates as late as possible. Default True."},
      {"scheduleNonWeightUpdateGradientConsumersEarly", "Schedule ops that read gradients but are not weight updates early. Default False."},
      {"mergeVarUpdate",
       "Merge the weight updates of several weights into fewer ops: Off, All, AutoTight, AutoLoose (see "
       "mergeVarUpdateMemThreshold). Default MergeVarUpdateType.Off."},
      {"mergeVarUpdateMemThreshold",
       "Bytes of weights merged into one update with MergeVarUpdateType.AutoTight/AutoLoose. Default "
       "1000000."},
      {"looseThresholdAtPeak", "Extra bytes allowed at peak liveness by MergeVarUpdateType.AutoLoose. Default 8000."},
      {"strictOpVersions",
       "Resolve each ONNX node to the newest op version not above the model's opset. Stored (always "
       "done). Default True."},
      {"constantWeights",
       "Treat the weights of an inference session as constants on an IPU. Stored: weights stay variables "
       "here, so resetHostWeights always works. Default True."},
      {"partialsTypeMatMuls",
       "Type of partial sums in matrix products on an IPU ('float' or 'half'). Stored; CPU kernels "
       "accumulate in at least float. Default '' (the IPU default)."},
      {"automaticLossScalingSettings",
       "An AutomaticLossScalingSettings: whether and how the loss-scaling factor is adjusted during "
       "training from gradient statistics. Default: disabled."},
      {"autodiffSettings",
       "An AutodiffSettings: how autodiff stitches sub-graph gradients (used by PopXL). Default stitch "
       "strategy RecomputeAllNonInputs."},
      {"syntheticDataMode",
       "Fill inputs on the device instead of reading the host streams: Off, Zeros, RandomNormal, "
       "RandomUniform (for benchmarking without data). Default SyntheticDataMode.Off."},
      {"enableOutlining",
       "Outline repeated sub-graphs into called functions to save IPU code memory. Stored; no effect on "
       "the CPU. Default True."},
      {"enableOutliningCopyCostPruning",
       "Skip outlining where the copies would cost more than they save. Stored; no effect on the CPU. "
       "Default True."},
      {"outlineThreshold", "Minimum value of a sub-graph for outlining. Stored; no effect on the CPU. Default 1.0."},
      {"outlineSequenceBreakCost", "Outlining penalty for breaking a sequence of ops. Stored; no effect on the CPU. Default 10000.0."},
      {"enableFullyConnectedPass",
       "Let the IPU's matmul planner know a matmul is a fully connected layer. Stored; no effect on the "
       "CPU. Default True."},
      {"enableSerializedMatmuls",
       "Allow matmuls to be serialised (split) to save IPU memory. Stored; the CPU computes each matmul "
       "at once. Default True."},
      {"aliasZeroCopy",
       "Let the IPU reuse buffers of aliased sub-graph tensors. Stored; the CPU's memory planner aliases "
       "views and in-place outputs anyway. Default False."},
      {"opxAliasChecking", "Check on the IPU that each Opx aliases its inputs as its op declares. Stored. Default False."},
      {"opxModifyChecking",
       "Check on the IPU that each Opx modifies its inputs only as its op declares. Stored. Default "
       "False."},
      {"kahnTieBreaker",
       "How the scheduler breaks ties between ready ops: 'greedy', 'fifo' or 'random'. Stored; the CPU "
       "schedule is deterministic. Default 'greedy'."},
      {"timeLimitScheduler", "Seconds the IPU scheduler may spend optimising. Stored. Default 1e9."},
      {"swapLimitScheduler", "Number of swaps the IPU scheduler may try. Stored. Default 1e9."},
      {"transitiveClosureOptimizationThreshold", "Op count above which transitive-closure optimisations are skipped. Stored. Default 100000."},
      {"compileEngine",
       "Compile the Poplar engine in prepareDevice. Stored: preparing a CPU session is always cheap. "
       "Default True."},
      {"enableEngineCaching",
       "Save the prepared executable under cachePath and reuse it when the same model and options are "
       "prepared again. Default False."},
      {"cachePath", "Folder of the executable cache used with enableEngineCaching. Default 'session_cache'."},
      {"enableVariablesCaching", "Keep weights in the cached executable. Default True."},
      {"instrumentWithHardwareCycleCounter",
       "Count IPU cycles. Stored: getCycleCount() always returns the CPU time-stamp counter ticks of the "
       "last run(). Default False."},
      {"hardwareInstrumentations",
       "Which loops are instrumented with cycle counters (a set of Instrumentation). Stored. Default "
       "{Instrumentation.Outer}."},
      {"rearrangeAnchorsOnHost", "Rearrange anchors on the host instead of the IPU. Stored; no effect on the CPU. Default True."},
      {"rearrangeStreamsOnHost",
       "Rearrange input streams on the host instead of the IPU. Stored; no effect on the CPU. Default "
       "False."},
      {"groupHostSync", "Group the host synchronisations of one step. Stored; no effect on the CPU. Default False."},
      {"enablePrefetchDatastreams", "Prefetch input streams on the IPU. Stored; no effect on the CPU. Default True."},
      {"defaultPrefetchBufferingDepth",
       "Default number of micro-batches buffered per input stream. Stored; no effect on the CPU. Default "
       "1."},
      {"prefetchBufferingDepthMap", "Buffering depth of particular input streams, a dict of tensor id to depth. Stored. Default {}."},
      {"defaultBufferingDepth", "PopART 3's name of defaultPrefetchBufferingDepth (the same value). Default 1."},
      {"bufferingDepthMap", "PopART 3's name of prefetchBufferingDepthMap (the same value). Default {}."},
      {"disableGradAccumulationTensorStreams", "Do not create host streams for gradient accumulators. Stored. Default False."},
      {"disableOptimizerStateTensorStreams", "Do not create host streams for optimizer state. Stored. Default False."},
      {"createImplicitPipeliningFwdOnlyProgram", "Also build a forward-only program for a pipelined training model. Stored. Default False."},
      {"stashAllTensorsInferencePipeline", "Stash every tensor in an inference pipeline. Stored. Default False."},
      {"numIOTiles", "Number of IPU tiles reserved for input/output. Stored; a CPU has no tiles. Default 0."},
      {"enableMergeExchange", "Merge IPU exchanges of consecutive ops. Stored; no effect on the CPU. Default True."},
      {"enableEfficientOverlapIOTopoCons", "Topological constraints for overlapping IO and compute on IO tiles. Stored. Default False."},
      {"useLoopCandidateCreator", "Let the IPU's tensor layout creation look through loops. Stored. Default False."},
      {"subgraphCopyingStrategy",
       "When the IPU copies sub-graph inputs and outputs: OnEnterAndExit or JustInTime. Stored. Default "
       "SubgraphCopyingStrategy.OnEnterAndExit."},
      {"throwIfLog2ScaleTensorNotInRange", "Raise when a log2 scale tensor of a float8 op is out of range. Default True."},
      {"groupNormStridedChannelGrouping", "Group channels of GroupNormalization with a stride as PopLibs can. Stored. Default False."},
      {"compilationProgressTotal", "Total reported by the compilation progress logger. Stored. Default 100."},
      {"updatableNamedBuffers", "Names of buffers that may be updated after compilation. Stored. Default []."},
      {"customCodelets",
       "Poplar codelet files to compile for custom ops. Stored; CPU custom ops are shared libraries. "
       "Default []."},
      {"customCodeletCompileFlags", "Compiler flags for customCodelets. Stored. Default ''."},
      {"separateCallOpPdfs", "Write separate liveness reports per call op. Stored. Default True."},
      {"serializedPoprithmsShiftGraphsDir", "Folder for the scheduler's serialised graphs on the IPU toolchain. Stored. Default ''."},
      {"serializedPoprithmsAnnealGraphsDir", "Folder for the annealing scheduler's serialised graphs. Stored. Default ''."},
      {"exportPoplarComputationGraph", "Export the Poplar computation graph. Stored; there is none on the CPU. Default False."},
      {"exportPoplarVertexGraph", "Export the Poplar vertex graph. Stored; there is none on the CPU. Default False."},
      {"accumulateOuterFragmentSettings",
       "An AccumulateOuterFragmentSettings: schedule of the ops that run once per accumulated batch. "
       "Stored; no effect on the CPU."},
      {"batchSerializationSettings",
       "A BatchSerializationSettings: split ops into several smaller batches to save IPU memory. Stored; "
       "the CPU computes whole micro-batches (same results)."},
      {"executionPhaseSettings",
       "An ExecutionPhaseSettings: execution phases streaming the model through IPU memory. Stored; the "
       "CPU keeps all phases in host memory."},
      {"replicatedCollectivesSettings",
       "A ReplicatedCollectivesSettings: merging of replicated collectives. Stored; no effect on the "
       "CPU."},
      {"activationTensorLocationSettings",
       "A TensorLocationSettings: default location of activations (on chip, off chip, sharded). Stored; "
       "all memory is host memory here."},
      {"weightTensorLocationSettings", "A TensorLocationSettings: default location of weights. Stored; all memory is host memory here."},
      {"optimizerStateTensorLocationSettings",
       "A TensorLocationSettings: default location of optimizer state. Stored; all memory is host memory "
       "here."},
      {"accumulatorTensorLocationSettings",
       "A TensorLocationSettings: default location of gradient accumulators. Stored; all memory is host "
       "memory here."},
      {"tensorLocationSettingsOverride", "Locations of particular tensors, a dict of tensor id to TensorLocation. Stored. Default {}."},
      {"engineOptions",
       "Poplar engine options, a dict of strings. Stored and returned; nothing to steer on the CPU. "
       "Default {}."},
      {"convolutionOptions",
       "PopLibs convolution options, a dict of strings. Stored; oneDNN chooses its own algorithms. "
       "Default {}."},
      {"lstmOptions", "PopLibs LSTM options, a dict of strings. Stored. Default {}."},
      {"matmulOptions", "PopLibs matmul options, a dict of strings. Stored. Default {}."},
      {"reportOptions",
       "Poplar report options, a dict of strings. Stored; getSummaryReport() reports CPU times and "
       "memory. Default {}."},
      {"gclOptions", "Options of the IPU collectives library, a dict of strings. Stored. Default {}."},
      {"experimentalSettings",
       "An ExperimentalSettings: custom transforms applied at named checkpoints of the IR preparation "
       "(customTransformApplierSettings)."},
      {"dotChecks",
       "Stages at which the IR is written as a Graphviz .dot file into logDir: a set of 'FWD0', 'FWD1', "
       "'BWD0', 'PREALIAS', 'FINAL' or 'ALL' (also the POPART_DOT_CHECKS environment variable). Default: "
       "none."},
      {"logDir", "Folder for the .dot files of dotChecks. Default '.'."},
      {"dotOpNames", "Write op names (not only types) in the .dot files. Default False."},
      {"firstDotOp", "Index of the first op written to a .dot file. Default 0."},
      {"finalDotOp", "Index after the last op written to a .dot file. Default 10000."},
  };
  auto it = docs.find(name);
  if (it == docs.end()) throw internal_error("SessionOptions.{} has no docstring in option_docs.cpp", name);
  return it->second;
}

} // namespace popart::bindings
