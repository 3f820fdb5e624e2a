"""SessionOptions (spec 13.1.3): every property has PopART's default and can be
written and read back; the settings classes and enums are complete."""
import copy

import numpy as np
import pytest

import popart
from _session_models import relu, relu_model, run, session

# name, PopART default, another value
SCALARS = [
    ("accumulationAndReplicationReductionType", popart.ReductionType.Sum, popart.ReductionType.Mean),
    ("accumulationFactor", 1, 4),
    ("aliasZeroCopy", False, True),
    ("autoRecomputation", popart.RecomputationType.NoRecompute, popart.RecomputationType.Standard),
    ("cachePath", "session_cache", "/tmp/cache"),
    ("compileEngine", True, False),
    ("constantWeights", True, False),
    ("createImplicitPipeliningFwdOnlyProgram", False, True),
    ("customCodeletCompileFlags", "", "-g"),
    ("customCodelets", [], ["a.cpp"]),
    ("decomposeGradSum", False, True),
    ("delayVarUpdates", True, False),
    ("disableGradAccumulationTensorStreams", False, True),
    ("disableOptimizerStateTensorStreams", False, True),
    ("dotChecks", set(), {"FWD0", "FINAL"}),
    ("dotOpNames", False, True),
    ("enableConstantFoldingOfMultipleConsumers", True, False),
    ("enableDistributedReplicatedGraphs", False, True),
    ("enableEfficientOverlapIOTopoCons", False, True),
    ("enableEngineCaching", False, True),
    ("enableExplicitMainLoops", False, True),
    ("enableFloatingPointChecks", False, True),
    ("enableFullyConnectedPass", True, False),
    ("enableGradientAccumulation", False, True),
    ("enableLoadAndOffloadRNGState", False, True),
    ("enableMergeExchange", True, False),
    ("enableNonStableSoftmax", False, True),
    ("enableOutlining", True, False),
    ("enableOutliningCopyCostPruning", True, False),
    ("enablePipelining", False, True),
    ("enableReplicatedGraphs", False, True),
    ("enableStableNorm", False, True),
    ("enableStochasticRounding", False, True),
    ("enableSupportedDataTypeCasting", True, False),
    ("enableVariablesCaching", True, False),
    ("ensureFp32LossScaleTensor", False, True),
    ("explicitRecomputation", False, True),
    ("exportPoplarComputationGraph", False, True),
    ("exportPoplarVertexGraph", False, True),
    ("finalDotOp", 10000, 20),
    ("firstDotOp", 0, 3),
    ("globalReplicaOffset", 0, 2),
    ("globalReplicationFactor", 1, 8),
    ("groupHostSync", False, True),
    ("instrumentWithHardwareCycleCounter", False, True),
    ("kahnTieBreaker", "greedy", "fifo"),
    ("logDir", ".", "/tmp/logs"),
    ("meanAccumulationAndReplicationReductionStrategy", popart.MeanReductionStrategy.Post,
     popart.MeanReductionStrategy.Running),
    ("mergeVarUpdate", popart.MergeVarUpdateType.Off, popart.MergeVarUpdateType.AutoTight),
    ("mergeVarUpdateMemThreshold", 1000000, 5000),
    ("numIOTiles", 0, 32),
    ("opxAliasChecking", False, True),
    ("opxModifyChecking", False, True),
    ("outlineSequenceBreakCost", 10000.0, 5.0),
    ("outlineThreshold", 1.0, 2.5),
    ("partialsTypeMatMuls", "", "half"),
    ("rearrangeAnchorsOnHost", True, False),
    ("rearrangeStreamsOnHost", False, True),
    ("replicatedGraphCount", 1, 4),
    ("separateCallOpPdfs", True, False),
    ("serializedPoprithmsAnnealGraphsDir", "", "/tmp/a"),
    ("serializedPoprithmsShiftGraphsDir", "", "/tmp/s"),
    ("stashAllTensorsInferencePipeline", False, True),
    ("strictOpVersions", True, False),
    ("subgraphCopyingStrategy", popart.SubgraphCopyingStrategy.OnEnterAndExit,
     popart.SubgraphCopyingStrategy.JustInTime),
    ("swapLimitScheduler", 1000000000, 10),
    ("syntheticDataMode", popart.SyntheticDataMode.Off, popart.SyntheticDataMode.RandomNormal),
    ("throwIfLog2ScaleTensorNotInRange", True, False),
    ("timeLimitScheduler", 1e9, 30.0),
    ("updatableNamedBuffers", [], ["w"]),
    ("useHostCopyOps", False, True),
    ("useLoopCandidateCreator", False, True),
    ("virtualGraphMode", popart.VirtualGraphMode.Off, popart.VirtualGraphMode.Auto),
    ("virtualGraphSplitRatios", [], [0.25, 0.75]),
    # PopART options beyond the spec's list
    ("hardwareInstrumentations", {popart.Instrumentation.Outer},
     {popart.Instrumentation.Outer, popart.Instrumentation.Inner}),
    ("enablePrefetchDatastreams", True, False),
    ("defaultPrefetchBufferingDepth", 1, 3),
    ("prefetchBufferingDepthMap", {}, {"x": 2}),
    ("enableSerializedMatmuls", True, False),
    ("scheduleNonWeightUpdateGradientConsumersEarly", False, True),
    ("transitiveClosureOptimizationThreshold", 100000, 10),
    ("looseThresholdAtPeak", 8000, 10),
    ("groupNormStridedChannelGrouping", False, True),
    ("compilationProgressTotal", 100, 10),
    ("engineOptions", {}, {"autoReport.all": "true"}),
    ("convolutionOptions", {}, {"partialsType": "half"}),
    ("lstmOptions", {}, {"a": "b"}),
    ("matmulOptions", {}, {"a": "b"}),
    ("reportOptions", {}, {"showExecutionSteps": "true"}),
    ("gclOptions", {}, {"a": "b"}),
]

SPEC_PROPERTIES = """accumulateOuterFragmentSettings accumulationAndReplicationReductionType accumulationFactor
accumulatorTensorLocationSettings activationTensorLocationSettings aliasZeroCopy autoRecomputation
batchSerializationSettings cachePath compileEngine constantWeights createImplicitPipeliningFwdOnlyProgram
customCodeletCompileFlags customCodelets decomposeGradSum delayVarUpdates disableGradAccumulationTensorStreams
disableOptimizerStateTensorStreams dotChecks dotOpNames enableConstantFoldingOfMultipleConsumers
enableDistributedReplicatedGraphs enableEfficientOverlapIOTopoCons enableEngineCaching enableExplicitMainLoops
enableFloatingPointChecks enableFullyConnectedPass enableGradientAccumulation enableLoadAndOffloadRNGState
enableMergeExchange enableNonStableSoftmax enableOutlining enableOutliningCopyCostPruning enablePipelining
enableReplicatedGraphs enableStableNorm enableStochasticRounding enableSupportedDataTypeCasting
enableVariablesCaching ensureFp32LossScaleTensor executionPhaseSettings explicitRecomputation
exportPoplarComputationGraph exportPoplarVertexGraph finalDotOp firstDotOp globalReplicaOffset
globalReplicationFactor groupHostSync instrumentWithHardwareCycleCounter kahnTieBreaker logDir
meanAccumulationAndReplicationReductionStrategy mergeVarUpdate mergeVarUpdateMemThreshold numIOTiles
optimizerStateTensorLocationSettings opxAliasChecking opxModifyChecking outlineSequenceBreakCost
outlineThreshold partialsTypeMatMuls rearrangeAnchorsOnHost rearrangeStreamsOnHost replicatedGraphCount
separateCallOpPdfs serializedPoprithmsAnnealGraphsDir serializedPoprithmsShiftGraphsDir
stashAllTensorsInferencePipeline strictOpVersions subgraphCopyingStrategy swapLimitScheduler
syntheticDataMode throwIfLog2ScaleTensorNotInRange timeLimitScheduler updatableNamedBuffers useHostCopyOps
useLoopCandidateCreator virtualGraphMode virtualGraphSplitRatios weightTensorLocationSettings""".split()


def test_every_spec_property_exists():
    o = popart.SessionOptions()
    missing = [p for p in SPEC_PROPERTIES if not hasattr(o, p)]
    assert missing == []
    assert callable(o.enableExplicitIR) and callable(o.getGlobalReplicationFactor)


@pytest.mark.parametrize("name,default,value", SCALARS, ids=[s[0] for s in SCALARS])
def test_default_and_round_trip(name, default, value):
    o = popart.SessionOptions()
    got = getattr(o, name)
    if isinstance(default, float):
        assert got == pytest.approx(default)
    else:
        assert got == default
    setattr(o, name, value)
    got = getattr(o, name)
    assert got == (pytest.approx(value) if isinstance(value, float) else value)


def test_wrong_type_is_refused():
    o = popart.SessionOptions()
    with pytest.raises(TypeError):
        o.accumulationFactor = "four"
    with pytest.raises(TypeError):
        o.virtualGraphMode = 2


def test_settings_classes_defaults_and_nesting():
    o = popart.SessionOptions()
    bs = o.batchSerializationSettings
    assert (bs.factor, bs.concatOnVirtualGraphChange, bs.concatOnExecutionPhaseChange,
            bs.concatOnPipelineStageChange) == (0, True, True, True)
    assert bs.transformContext == popart.BatchSerializationTransformContext.Fwd
    assert bs.method == popart.BatchSerializationMethod.UnrollDynamic
    assert bs.batchSchedule == popart.BatchSerializationBatchSchedule.Isomorphic
    o.batchSerializationSettings.factor = 4  # nested settings are edited in place
    assert o.batchSerializationSettings.factor == 4

    ep = o.executionPhaseSettings
    assert (ep.phases, ep.stages) == (0, 2)
    assert ep.weightIOSchedule == popart.ExecutionPhaseIOSchedule.Preload
    assert ep.optimizerStateIOSchedule == popart.ExecutionPhaseIOSchedule.OnDemand
    assert ep.schedule == popart.ExecutionPhaseSchedule.Interleaving
    o.executionPhaseSettings.phases = 3
    assert o.executionPhaseSettings.phases == 3

    af = o.accumulateOuterFragmentSettings
    assert af.schedule == popart.AccumulateOuterFragmentSchedule.Serial and af.excludedVirtualGraphs == []
    o.accumulateOuterFragmentSettings = popart.AccumulateOuterFragmentSettings(
        popart.AccumulateOuterFragmentSchedule.OverlapMemoryOptimized, [0, 1])
    assert o.accumulateOuterFragmentSettings.excludedVirtualGraphs == [0, 1]

    for name in ("activationTensorLocationSettings", "weightTensorLocationSettings",
                 "optimizerStateTensorLocationSettings", "accumulatorTensorLocationSettings"):
        tls = getattr(o, name)
        assert tls.minElementsForOffChip == 2 and tls.minElementsForReplicatedTensorSharding == 8192
        assert tls.location.storage == popart.TensorStorage.OnChip
    o.weightTensorLocationSettings.location.storage = popart.TensorStorage.OffChip
    o.weightTensorLocationSettings.minElementsForOffChip = 64
    assert o.weightTensorLocationSettings.location.storage == popart.TensorStorage.OffChip
    assert o.weightTensorLocationSettings.minElementsForOffChip == 64
    o.activationTensorLocationSettings = popart.TensorLocationSettings(popart.TensorStorage.OffChip, 0)
    assert o.activationTensorLocationSettings.location.storage == popart.TensorStorage.OffChip
    loc = popart.TensorLocation(popart.TensorStorage.OffChip, popart.ReplicatedTensorSharding.On)
    o.optimizerStateTensorLocationSettings = popart.TensorLocationSettings(loc, 0, 0)
    assert o.optimizerStateTensorLocationSettings.location.replicatedTensorSharding == \
        popart.ReplicatedTensorSharding.On
    o.tensorLocationSettingsOverride = {"w": loc}
    assert o.tensorLocationSettingsOverride["w"].storage == popart.TensorStorage.OffChip


def test_settings_class_constructors():
    bs = popart.BatchSerializationSettings(4, False, True, True, popart.BatchSerializationTransformContext.Bwd,
                                           popart.BatchSerializationMethod.Loop,
                                           popart.BatchSerializationBatchSchedule.OverlapOnIo)
    assert (bs.factor, bs.concatOnVirtualGraphChange, bs.method) == (4, False, popart.BatchSerializationMethod.Loop)
    ep = popart.ExecutionPhaseSettings(phases=5, stages=1)
    assert (ep.phases, ep.stages) == (5, 1)
    als = popart.AutomaticLossScalingSettings(True, ["t"], binEdgeLocation=0.5, updatePeriod=4)
    assert als.enabled and als.toTrackTensors == ["t"] and als.binEdgeLocation == 0.5 and als.updatePeriod == 4
    assert als.gradientTensorTrackingMethod == popart.GradientTensorTrackingMethod.AllNonViewChangingGradientTensors
    als = popart.AutomaticLossScalingSettings()
    assert not als.enabled and als.toTrackTensors is None and als.thresholdUpperCountProportion == pytest.approx(1e-7)
    ad = popart.AutodiffSettings(popart.AutodiffStitchStrategy.AddFwdOutputs)
    assert ad.stitchStrategy == popart.AutodiffStitchStrategy.AddFwdOutputs
    assert popart.AutodiffSettings().stitchStrategy == popart.AutodiffStitchStrategy.RecomputeAllNonInputs
    rc = popart.ReplicatedCollectivesSettings(True, True)
    assert rc.prepareScheduleForMergingCollectives and rc.mergeAllReduceCollectives
    assert not rc.mergeAllGatherCollectives


def test_loss_scaling_and_autodiff_options():
    o = popart.SessionOptions()
    assert not o.automaticLossScalingSettings.enabled
    o.automaticLossScalingSettings = popart.AutomaticLossScalingSettings(True)
    assert o.automaticLossScalingSettings.enabled
    o.autodiffSettings.stitchStrategy = popart.AutodiffStitchStrategy.RecomputeMinimal
    assert o.autodiffSettings.stitchStrategy == popart.AutodiffStitchStrategy.RecomputeMinimal
    assert not o.replicatedCollectivesSettings.mergeAllReduceCollectives


ENUMS = {
    "AccumulateOuterFragmentSchedule": ["Scheduler", "Serial", "OverlapCycleOptimized", "OverlapMemoryOptimized"],
    "AutodiffStitchStrategy": ["RecomputeMinimal", "RecomputeAllNonInputs", "AddFwdOutputs", "SafeAddFwdOutputs"],
    "BatchSerializationBatchSchedule": ["Scheduler", "Isomorphic", "OverlapOnIo", "OverlapOnCompute"],
    "BatchSerializationMethod": ["UnrollDynamic", "UnrollStatic", "Loop"],
    "BatchSerializationTransformContext": ["Fwd", "Bwd", "Forward", "Backward"],
    "ExecutionPhaseIOSchedule": ["Preload", "OnDemand"],
    "ExecutionPhaseSchedule": ["Interleaving", "Batch", "BatchClusteredIO"],
    "GradientTensorTrackingMethod": ["ConvAndMatmulGradients", "AllNonViewChangingGradientTensors",
                                     "GradientsOfUserSpecifiedTensors"],
    "Instrumentation": ["Outer", "Inner"],
    "IrSerializationFormat": ["JSON"],
    "MeanReductionStrategy": ["Running", "Post", "PostAndLoss"],
    "MergeVarUpdateType": ["Off", "All", "AutoTight", "AutoLoose"],
    "RecomputationType": ["NoRecompute", "Standard", "NormOnly", "RecomputeAll", "Pipeline"],
    "ReductionType": ["Sum", "Mean", "NoReduction"],
    "ReplicatedTensorSharding": ["Off", "On"],
    "SubgraphCopyingStrategy": ["OnEnterAndExit", "JustInTime"],
    "SyntheticDataMode": ["Off", "Zeros", "RandomNormal", "RandomUniform"],
    "TileSet": ["Compute", "IO"],
    "VirtualGraphMode": ["Off", "Manual", "Auto", "ExecutionPhases"],
}


@pytest.mark.parametrize("name", sorted(ENUMS))
def test_enum_members(name):
    members = getattr(popart, name).__members__
    assert set(ENUMS[name]) <= set(members)
    for i, member in enumerate(ENUMS[name][:2]):
        assert members[member].name == member or name == "BatchSerializationTransformContext"


def test_enum_aliases_share_values():
    ctx = popart.BatchSerializationTransformContext
    assert ctx.Forward == ctx.Fwd and ctx.Backward == ctx.Bwd


def test_helpers():
    o = popart.SessionOptions()
    assert o.getGlobalReplicationFactor() == 1 and o.getAccumulationFactor() == 1
    o.accumulationFactor = 4
    assert o.getAccumulationFactor() == 1  # until enableGradientAccumulation
    o.enableGradientAccumulation = True
    assert o.getAccumulationFactor() == 4
    o.replicatedGraphCount = 2
    assert o.getGlobalReplicationFactor() == 1
    o.enableReplicatedGraphs = True
    assert o.getGlobalReplicationFactor() == 2
    o.enableDistributedReplicatedGraphs = True
    o.globalReplicationFactor = 8
    assert o.getGlobalReplicationFactor() == 8
    o.enableExplicitIR(True)
    assert o.useHostCopyOps and o.enableExplicitMainLoops and o.explicitRecomputation
    assert not o.autoRecomputationEnabled()
    o.autoRecomputation = popart.RecomputationType.Standard
    assert o.autoRecomputationEnabled()
    o.prefetchBufferingDepthMap = {"x": 3}
    assert o.getPrefetchBufferingDepth("x", 1) == 3 and o.getPrefetchBufferingDepth("y", 2) == 2


def test_copy_is_independent():
    o = popart.SessionOptions()
    o.dotChecks = {"FINAL"}
    for c in (copy.copy(o), copy.deepcopy(o)):
        c.accumulationFactor = 9
        c.batchSerializationSettings.factor = 2
        assert c.dotChecks == {"FINAL"}
    assert o.accumulationFactor == 1 and o.batchSerializationSettings.factor == 0


def test_session_keeps_its_own_copy_of_the_options():
    opts = popart.SessionOptions()
    opts.enableGradientAccumulation = True
    opts.accumulationFactor = 2
    s = session(relu_model(), ["out"], bps=1, options=opts)
    opts.accumulationFactor = 5  # after construction: no effect on the session
    assert s.accumulationFactor == 2
    x = np.random.default_rng(0).standard_normal((2, 2, 3)).astype(np.float32)
    np.testing.assert_array_equal(run(s, {"x": x})["out"], relu(x))


def test_ipu_only_options_do_not_change_results():
    """Options that steer the IPU toolchain are accepted and leave the numbers alone."""
    opts = popart.SessionOptions()
    opts.enableOutlining = False
    opts.virtualGraphMode = popart.VirtualGraphMode.Off
    opts.batchSerializationSettings.factor = 2
    opts.engineOptions = {"autoReport.all": "true"}
    opts.weightTensorLocationSettings.location.storage = popart.TensorStorage.OffChip
    opts.numIOTiles = 32
    opts.constantWeights = False
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    s = session(relu_model(), ["out"], options=opts)
    np.testing.assert_array_equal(run(s, {"x": x})["out"], relu(x))
