"""
popart-cpu core bindings (C++ classes under private names; see the popart package)
"""
from __future__ import annotations
import collections.abc
import numpy
import typing
import typing_extensions
from . import _ir
__all__: list[str] = ['AccumulateOuterFragmentSchedule', 'AccumulateOuterFragmentSettings', 'Adam', 'AdamMode', 'Adaptive', 'AdaptiveMode', 'AnchorReturnType', 'AnchorReturnTypeId', 'AttributeContextManager', 'AutodiffSettings', 'AutodiffStitchStrategy', 'AutomaticLossScalingSettings', 'BatchSerializationBatchSchedule', 'BatchSerializationMethod', 'BatchSerializationSettings', 'BatchSerializationTransformContext', 'ClipNormSettings', 'CommGroup', 'CommGroupType', 'ConstSGD', 'DataFlow', 'DataType', 'DeviceConnectionType', 'DeviceInfo', 'DeviceManager', 'DeviceSelectionCriterion', 'DeviceType', 'ExchangeStrategy', 'ExecutionContext', 'ExecutionPhaseIOSchedule', 'ExecutionPhaseSchedule', 'ExecutionPhaseSettings', 'ExperimentalSettings', 'GradientTensorTrackingMethod', 'GraphTransformer', 'IStepIO', 'IWeightsIO', 'InputSettings', 'InputShapeInfo', 'Instrumentation', 'IrSerializationFormat', 'KeyValueContextManager', 'MeanReductionStrategy', 'MergeVarUpdateType', 'NameContextManager', 'OpDefinition', 'OperatorIdentifier', 'Optimizer', 'OptimizerType', 'OptimizerValue', 'OptimizerValueMap', 'Patterns', 'PatternsLevel', 'PyStepIO', 'PyStepIOCallback', 'PyWeightsIO', 'RecomputationType', 'RecomputeType', 'RecoveryAction', 'ReductionType', 'ReplicaGrouping', 'ReplicatedCollectivesSettings', 'ReplicatedStreamMode', 'ReplicatedTensorSharding', 'SGD', 'SGDAccumulatorAndMomentum', 'SessionOptions', 'SubgraphCopyingStrategy', 'SyncPattern', 'SyntheticDataMode', 'TensorLocation', 'TensorLocationSettings', 'TensorRemapType', 'TensorStorage', 'TileSet', 'VariableRetrievalMode', 'VariableSettings', 'VirtualGraphMode', 'WeightDecayMode', 'defaultAiGraphcoreOpset', 'defaultAiOnnxMlOpset', 'defaultAiOnnxOpset', 'getSupportedOperations', 'getSupportedOperationsDefinition', 'getUnsupportedOperations', 'packageHash', 'popart_exception', 'popart_host_out_of_memory_error', 'popart_internal_exception', 'popart_memory_allocation_error', 'popart_runtime_error', 'poplar_application_runtime_error', 'poplar_exception', 'poplar_recoverable_runtime_error', 'poplar_runtime_error', 'poplar_system_runtime_error', 'poplar_unknown_runtime_error', 'poplar_unrecoverable_runtime_error', 'poplibs_exception', 'reservedAccl1Prefix', 'reservedAccl2Prefix', 'reservedAccl3Prefix', 'reservedAcclFinalOutPrefix', 'reservedAcclPrefix', 'reservedAcclToReducePrefix', 'reservedAcclToUpdatePrefix', 'reservedAccumPrefix', 'reservedAccumulatorPrefixes', 'reservedAdamUpdaterPrefix', 'reservedAdaptiveUpdaterPrefix', 'reservedConcatInitPrefix', 'reservedConstValuePrefix', 'reservedCounterPrefix', 'reservedDefaultAdamBeta1Prefix', 'reservedDefaultAdamBeta2Prefix', 'reservedDefaultAdamEpsPrefix', 'reservedDefaultAdamGradientScalingPrefix', 'reservedDefaultAdaptiveAlphaPrefix', 'reservedDefaultAdaptiveEpsPrefix', 'reservedDefaultAdaptiveGradientScalingPrefix', 'reservedDefaultAdaptiveMomentumPrefix', 'reservedDefaultDampeningScaleFactor1Prefix', 'reservedDefaultLearningRatePrefix', 'reservedDefaultLossScalingPrefix', 'reservedDefaultMaxWeightNormPrefix', 'reservedDefaultNesterovDampeningScaleFactor1Prefix', 'reservedDefaultNesterovGradScaleFactor1Prefix', 'reservedDefaultScaledLearningRate0Prefix', 'reservedDefaultScaledLearningRate1Prefix', 'reservedDefaultScaledMomentum1Prefix', 'reservedDefaultScaledWeightDecay1Prefix', 'reservedDefaultWeightDecayPrefix', 'reservedDefaultWeightDecayScaleFactor0Prefix', 'reservedGlobalNormPrefix', 'reservedGradientPrefix', 'reservedIndexPrefix', 'reservedInitPrefix', 'reservedLambR1SqPrefix', 'reservedLambR2SqPrefix', 'reservedLoopCondPrefix', 'reservedLoopIteratorPrefix', 'reservedLossScalingPrefix', 'reservedLossScalingRatioPrefix', 'reservedOptimizerPrefixes', 'reservedOptimizerStatePrefixes', 'reservedPrefixes', 'reservedPreviousLossScalingPrefix', 'reservedRandomSeedPrefix', 'reservedRemoteArgPrefix', 'reservedRestoredPrefix', 'reservedSeedModifierPrefix', 'reservedSpecificAdamBeta1Prefix', 'reservedSpecificAdamBeta2Prefix', 'reservedSpecificAdamEpsPrefix', 'reservedSpecificAdamGradientScalingPrefix', 'reservedSpecificAdaptiveAlphaPrefix', 'reservedSpecificAdaptiveEpsPrefix', 'reservedSpecificAdaptiveGradientScalingPrefix', 'reservedSpecificAdaptiveMomentumPrefix', 'reservedSpecificDampeningScaleFactor1Prefix', 'reservedSpecificLearningRatePrefix', 'reservedSpecificLossScalingPrefix', 'reservedSpecificMaxWeightNormPrefix', 'reservedSpecificNesterovDampeningScaleFactor1Prefix', 'reservedSpecificNesterovGradScaleFactor1Prefix', 'reservedSpecificScaledLearningRate0Prefix', 'reservedSpecificScaledLearningRate1Prefix', 'reservedSpecificScaledMomentum1Prefix', 'reservedSpecificScaledWeightDecay1Prefix', 'reservedSpecificWeightDecayPrefix', 'reservedSpecificWeightDecayScaleFactor0Prefix', 'reservedStashedPrefix', 'reservedStepPrefix', 'reservedUpdatedVarPrefix', 'versionNumber', 'versionString']
class popart_exception(RuntimeError):
    """
    A mistake in the use of popart: unknown tensor ids, wrong shapes or types, bad options or models. The message names the tensor, op or option involved.
    """
class popart_internal_exception(popart_exception):
    """
    A broken invariant inside popart-cpu (a bug): please report it with the message.
    """
class popart_runtime_error(popart_exception):
    """
    An error while a prepared session runs (e.g. a bad value returned by a stream callback).
    """
class popart_memory_allocation_error(popart_exception):
    """
    Memory for a tensor or a session could not be allocated, or a size overflows.
    """
class RecoveryAction:
    """
    What a poplar_recoverable_runtime_error asks the caller to do.
    
    Members:
    
      IPU_RESET
    
      LINK_RESET
    
      PARTITION_RESET
    
      FULL_RESET
    
      POWER_CYCLE
    """
    FULL_RESET: typing.ClassVar[RecoveryAction]
    IPU_RESET: typing.ClassVar[RecoveryAction]
    LINK_RESET: typing.ClassVar[RecoveryAction]
    PARTITION_RESET: typing.ClassVar[RecoveryAction]
    POWER_CYCLE: typing.ClassVar[RecoveryAction]
    __members__: typing.ClassVar[dict[str, RecoveryAction]]
    @typing.overload
    def __eq__(self, other: RecoveryAction) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: RecoveryAction) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class poplibs_exception(RuntimeError):
    """
    PopLibs' error class, kept for handlers written for the IPU; nothing on the CPU raises it.
    """
class poplar_exception(RuntimeError):
    """
    Base class of the Poplar error classes, kept with the IPU's hierarchy for handlers that catch them.
    """
class poplar_runtime_error(poplar_exception):
    """
    A Poplar error while a program runs; base of the application, unknown and system errors.
    """
class poplar_application_runtime_error(poplar_runtime_error):
    """
    A Poplar error caused by the program itself (kept for handlers; not raised on the CPU).
    """
class poplar_unknown_runtime_error(poplar_runtime_error):
    """
    A Poplar error of unknown cause (kept for handlers; not raised on the CPU).
    """
class poplar_system_runtime_error(poplar_runtime_error):
    """
    A system-level Poplar error; base of the recoverable and unrecoverable ones.
    """
class poplar_unrecoverable_runtime_error(poplar_system_runtime_error):
    """
    A system error the process cannot recover from (kept for handlers; not raised on the CPU).
    """
class poplar_recoverable_runtime_error(poplar_system_runtime_error):
    """
    A system error the caller can recover from by the action in its recoveryAction attribute. On the CPU: the host ran out of memory (recoveryAction IPU_RESET: free memory and create the session again).
    """
    recoveryAction = None
class popart_host_out_of_memory_error(popart_memory_allocation_error, poplar_recoverable_runtime_error):
    """
    The host ran out of memory: both a popart_memory_allocation_error and a poplar_recoverable_runtime_error (recoveryAction IPU_RESET), so handlers of either catch it.
    """
class DataType:
    """
    Element type of a tensor (FLOAT, FLOAT16, INT32, ...), with PopART's names.
    
    Members:
    
      UINT8
    
      INT8
    
      UINT16
    
      INT16
    
      INT32
    
      INT64
    
      UINT32
    
      UINT64
    
      BOOL
    
      FLOAT
    
      FLOAT16
    
      BFLOAT16
    
      FLOAT8_143
    
      FLOAT8_152
    
      DOUBLE
    
      COMPLEX64
    
      COMPLEX128
    
      STRING
    
      UNDEFINED
    
      FLOAT8E4M3FN
    
      FLOAT8E4M3FNUZ
    
      FLOAT8E5M2
    
      FLOAT8E5M2FNUZ
    
      UINT4
    
      INT4
    
      FLOAT4E2M1
    
      UINT2
    
      INT2
    
      FLOAT8E8M0
    """
    BFLOAT16: typing.ClassVar[DataType]
    BOOL: typing.ClassVar[DataType]
    COMPLEX128: typing.ClassVar[DataType]
    COMPLEX64: typing.ClassVar[DataType]
    DOUBLE: typing.ClassVar[DataType]
    FLOAT: typing.ClassVar[DataType]
    FLOAT16: typing.ClassVar[DataType]
    FLOAT4E2M1: typing.ClassVar[DataType]
    FLOAT8E4M3FN: typing.ClassVar[DataType]
    FLOAT8E4M3FNUZ: typing.ClassVar[DataType]
    FLOAT8E5M2: typing.ClassVar[DataType]
    FLOAT8E5M2FNUZ: typing.ClassVar[DataType]
    FLOAT8E8M0: typing.ClassVar[DataType]
    FLOAT8_143: typing.ClassVar[DataType]
    FLOAT8_152: typing.ClassVar[DataType]
    INT16: typing.ClassVar[DataType]
    INT2: typing.ClassVar[DataType]
    INT32: typing.ClassVar[DataType]
    INT4: typing.ClassVar[DataType]
    INT64: typing.ClassVar[DataType]
    INT8: typing.ClassVar[DataType]
    STRING: typing.ClassVar[DataType]
    UINT16: typing.ClassVar[DataType]
    UINT2: typing.ClassVar[DataType]
    UINT32: typing.ClassVar[DataType]
    UINT4: typing.ClassVar[DataType]
    UINT64: typing.ClassVar[DataType]
    UINT8: typing.ClassVar[DataType]
    UNDEFINED: typing.ClassVar[DataType]
    __members__: typing.ClassVar[dict[str, DataType]]
    @typing.overload
    def __eq__(self, other: DataType) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: DataType) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class _TensorInfoCore:
    """
    A tensor's element type and shape (the C++ part of popart.TensorInfo).
    """
    __hash__: typing.ClassVar[None] = None
    def __eq__(self, arg0: _TensorInfoCore) -> bool:
        ...
    @typing.overload
    def __init__(self) -> None:
        """
        An unset TensorInfo (no type, no shape).
        """
    @typing.overload
    def __init__(self, dataType: DataType, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> None:
        """
        A TensorInfo of the DataType `dataType` and the list of ints `shape`.
        """
    @typing.overload
    def __init__(self, dataType: str, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> None:
        """
        A TensorInfo of the type named `dataType` ("FLOAT", "INT32", ...) and the list of ints `shape`.
        """
    @typing.overload
    def __init__(self, dataType: str, shape: str) -> None:
        """
        A TensorInfo from a type name and a shape written as text, e.g. ("FLOAT", "[2 3]").
        """
    def __ne__(self, arg0: _TensorInfoCore) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __str__(self) -> str:
        ...
    def dataType(self) -> DataType:
        """
        The element type as a DataType.
        """
    def data_type(self) -> str:
        """
        The element type's name in capitals, e.g. "FLOAT16".
        """
    def data_type_lcase(self) -> str:
        """
        The element type's name in lower case, e.g. "float16".
        """
    def dim(self, i: typing.SupportsInt | typing.SupportsIndex) -> int:
        """
        The size of dimension `i`.
        """
    def isSet(self) -> bool:
        """
        Whether a type has been set.
        """
    def nbytes(self) -> int:
        """
        The size of the tensor's data in bytes.
        """
    def nelms(self) -> int:
        """
        The number of elements (1 for a scalar).
        """
    def rank(self) -> int:
        """
        The number of dimensions.
        """
    def set(self, dataType: DataType, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> None:
        """
        Replace the type and shape (a DataType and a list of ints).
        """
    def shape(self) -> list[int]:
        """
        The dimensions, a list of ints ([] for a scalar).
        """
class RecomputeType:
    """
    Whether an op's output is kept or recomputed for the backward pass.
    
    Members:
    
      Undefined
    
      Checkpoint
    
      Recompute
    
      Recomputed
    """
    Checkpoint: typing.ClassVar[RecomputeType]
    Recompute: typing.ClassVar[RecomputeType]
    Recomputed: typing.ClassVar[RecomputeType]
    Undefined: typing.ClassVar[RecomputeType]
    __members__: typing.ClassVar[dict[str, RecomputeType]]
    @typing.overload
    def __eq__(self, other: RecomputeType) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: RecomputeType) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class ExecutionContext:
    """
    Which part of the program an op runs in.
    
    Members:
    
      Normal
    
      AccumulateOuterFragment
    
      WeightsFromHostFragment
    
      WeightsToHostFragment
    
      OptimizerFromHostFragment
    
      Subgraph
    """
    AccumulateOuterFragment: typing.ClassVar[ExecutionContext]
    Normal: typing.ClassVar[ExecutionContext]
    OptimizerFromHostFragment: typing.ClassVar[ExecutionContext]
    Subgraph: typing.ClassVar[ExecutionContext]
    WeightsFromHostFragment: typing.ClassVar[ExecutionContext]
    WeightsToHostFragment: typing.ClassVar[ExecutionContext]
    __members__: typing.ClassVar[dict[str, ExecutionContext]]
    @typing.overload
    def __eq__(self, other: ExecutionContext) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: ExecutionContext) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class TensorStorage:
    """
    Where a tensor lives on an IPU system: OnChip or OffChip (stored).
    
    Members:
    
      OnChip
    
      OffChip
    """
    OffChip: typing.ClassVar[TensorStorage]
    OnChip: typing.ClassVar[TensorStorage]
    __members__: typing.ClassVar[dict[str, TensorStorage]]
    @typing.overload
    def __eq__(self, other: TensorStorage) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: TensorStorage) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class TileSet:
    """
    Which IPU tiles hold a tensor or run an exchange (stored; a CPU has no tiles).
    
    Members:
    
      Compute
    
      IO
    
      Undefined
    """
    Compute: typing.ClassVar[TileSet]
    IO: typing.ClassVar[TileSet]
    Undefined: typing.ClassVar[TileSet]
    __members__: typing.ClassVar[dict[str, TileSet]]
    @typing.overload
    def __eq__(self, other: TileSet) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: TileSet) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class ReplicatedTensorSharding:
    """
    Whether a tensor is split across replicas.
    
    Members:
    
      Off
    
      On
    """
    Off: typing.ClassVar[ReplicatedTensorSharding]
    On: typing.ClassVar[ReplicatedTensorSharding]
    __members__: typing.ClassVar[dict[str, ReplicatedTensorSharding]]
    @typing.overload
    def __eq__(self, other: ReplicatedTensorSharding) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: ReplicatedTensorSharding) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class ExchangeStrategy:
    """
    When host exchanges of a stream overlap compute on an IPU (stored).
    
    Members:
    
      JustInTime
    
      OverlapInnerLoop
    
      OverlapLoops
    
      OverlapStep
    """
    JustInTime: typing.ClassVar[ExchangeStrategy]
    OverlapInnerLoop: typing.ClassVar[ExchangeStrategy]
    OverlapLoops: typing.ClassVar[ExchangeStrategy]
    OverlapStep: typing.ClassVar[ExchangeStrategy]
    __members__: typing.ClassVar[dict[str, ExchangeStrategy]]
    @typing.overload
    def __eq__(self, other: ExchangeStrategy) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: ExchangeStrategy) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class ReplicatedStreamMode:
    """
    Whether replicas read their own slice of an input (Replicate) or the same data (Broadcast).
    
    Members:
    
      Replicate
    
      Broadcast
    """
    Broadcast: typing.ClassVar[ReplicatedStreamMode]
    Replicate: typing.ClassVar[ReplicatedStreamMode]
    __members__: typing.ClassVar[dict[str, ReplicatedStreamMode]]
    @typing.overload
    def __eq__(self, other: ReplicatedStreamMode) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: ReplicatedStreamMode) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class CommGroupType:
    """
    How replicas are grouped for a collective or a shared variable.
    
    Members:
    
      All
    
      Consecutive
    
      Orthogonal
    
      Ungrouped
    """
    All: typing.ClassVar[CommGroupType]
    Consecutive: typing.ClassVar[CommGroupType]
    Orthogonal: typing.ClassVar[CommGroupType]
    Ungrouped: typing.ClassVar[CommGroupType]
    __members__: typing.ClassVar[dict[str, CommGroupType]]
    @typing.overload
    def __eq__(self, other: CommGroupType) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: CommGroupType) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class VariableRetrievalMode:
    """
    Which replicas' copies of a variable are read back to the host.
    
    Members:
    
      OnePerGroup
    
      AllReduceReplicas
    
      AllReplicas
    """
    AllReduceReplicas: typing.ClassVar[VariableRetrievalMode]
    AllReplicas: typing.ClassVar[VariableRetrievalMode]
    OnePerGroup: typing.ClassVar[VariableRetrievalMode]
    __members__: typing.ClassVar[dict[str, VariableRetrievalMode]]
    @typing.overload
    def __eq__(self, other: VariableRetrievalMode) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: VariableRetrievalMode) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class ReplicaGrouping:
    """
    Replicas 0..numReplicas-1 split into groups of groupSize, the members of a group `stride` apart.
    """
    __hash__: typing.ClassVar[None] = None
    def __eq__(self, arg0: ReplicaGrouping) -> bool:
        ...
    @typing.overload
    def __init__(self, numReplicas: typing.SupportsInt | typing.SupportsIndex, stride: typing.SupportsInt | typing.SupportsIndex, groupSize: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        Groups of `groupSize` replicas whose members are `stride` apart.
        """
    @typing.overload
    def __init__(self, numReplicas: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        All replicas in one group.
        """
    def __ne__(self, arg0: ReplicaGrouping) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def getGroupAt(self, replica: typing.SupportsInt | typing.SupportsIndex) -> int:
        """
        The group `replica` belongs to.
        """
    def getGroupSize(self) -> int:
        """
        The number of replicas per group.
        """
    def getIndexInGroupAt(self, replica: typing.SupportsInt | typing.SupportsIndex) -> int:
        """
        The position of `replica` within its group.
        """
    def getNumGroups(self) -> int:
        """
        The number of groups.
        """
    def getNumReplicas(self) -> int:
        """
        The number of replicas.
        """
    def getReplicaAt(self, group: typing.SupportsInt | typing.SupportsIndex, index: typing.SupportsInt | typing.SupportsIndex = 0) -> int:
        """
        The replica at position `index` (default 0) of `group`.
        """
    def getReplicasAt(self, group: typing.SupportsInt | typing.SupportsIndex) -> list[int]:
        """
        The replicas of `group`, a list.
        """
    def getStride(self) -> int:
        """
        The distance between members of a group.
        """
    def getTranspose(self) -> ReplicaGrouping:
        """
        The grouping whose groups take one replica from each group of this one.
        """
    def str(self) -> str:
        """
        The grouping as readable text.
        """
class CommGroup:
    """
    A group of replicas for a collective or a shared variable: a CommGroupType and a group size.
    """
    __hash__: typing.ClassVar[None] = None
    def __eq__(self, arg0: CommGroup) -> bool:
        ...
    @typing.overload
    def __init__(self) -> None:
        """
        All replicas in one group.
        """
    @typing.overload
    def __init__(self, type: CommGroupType, replicaGroupSize: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        Groups of `replicaGroupSize` replicas arranged by `type` (Consecutive, Orthogonal, ...).
        """
    def __repr__(self) -> str:
        ...
    def toReplicaGrouping(self, numReplicas: typing.SupportsInt | typing.SupportsIndex) -> ReplicaGrouping:
        """
        The same grouping as a ReplicaGrouping over `numReplicas` replicas.
        """
    @property
    def replicaGroupSize(self) -> int:
        """
        The number of replicas per group.
        """
    @replicaGroupSize.setter
    def replicaGroupSize(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def type(self) -> CommGroupType:
        """
        How replicas are grouped (a CommGroupType).
        """
    @type.setter
    def type(self, arg0: CommGroupType) -> None:
        ...
class VariableSettings:
    """
    How replicas share a weight: which replicas hold one value (a CommGroup, or a stride and group size) and which values are read back to the host (retrievalMode).
    """
    __hash__: typing.ClassVar[None] = None
    def __eq__(self, arg0: VariableSettings) -> bool:
        ...
    @typing.overload
    def __init__(self) -> None:
        """
        One value shared by all replicas, read back once.
        """
    @typing.overload
    def __init__(self, sharedVariableDomain: CommGroup) -> None:
        """
        One value per group of `sharedVariableDomain`.
        """
    @typing.overload
    def __init__(self, retrievalMode: VariableRetrievalMode) -> None:
        """
        Shared by all, read back as `retrievalMode`.
        """
    @typing.overload
    def __init__(self, sharedVariableDomain: CommGroup, retrievalMode: VariableRetrievalMode) -> None:
        """
        One value per group, read back as `retrievalMode`.
        """
    @typing.overload
    def __init__(self, stride: typing.SupportsInt | typing.SupportsIndex, groupSize: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        One value per group of `groupSize` replicas `stride` apart (as a ReplicaGrouping).
        """
    @typing.overload
    def __init__(self, stride: typing.SupportsInt | typing.SupportsIndex, groupSize: typing.SupportsInt | typing.SupportsIndex, retrievalMode: VariableRetrievalMode) -> None:
        """
        As (stride, groupSize), read back as `retrievalMode`.
        """
    def __repr__(self) -> str:
        ...
    def getCommGroupType(self) -> CommGroupType:
        """
        The type of the groups (a CommGroupType).
        """
    def getGroupCount(self, replicationFactor: typing.SupportsInt | typing.SupportsIndex) -> int:
        """
        The number of values of the weight with `replicationFactor` replicas.
        """
    def getGroupRepresentative(self, group: typing.SupportsInt | typing.SupportsIndex) -> int:
        """
        The replica whose value stands for group `group` (its lowest).
        """
    def getGroupSize(self) -> int:
        """
        Replicas per group as given (0: all replicas).
        """
    def getRealGroupSize(self, replicationFactor: typing.SupportsInt | typing.SupportsIndex) -> int:
        """
        The number of replicas sharing one value with `replicationFactor` replicas.
        """
    def getReplicaGrouping(self, numReplicas: typing.SupportsInt | typing.SupportsIndex) -> ReplicaGrouping:
        """
        The groups over `numReplicas` replicas as a ReplicaGrouping.
        """
    def getRetrievalMode(self) -> VariableRetrievalMode:
        """
        Which values are read back to the host.
        """
    def getSharedVariableDomain(self) -> CommGroup:
        """
        The CommGroup sharing a value.
        """
    def getStride(self) -> int:
        """
        Distance between the members of a group (an Orthogonal CommGroup's depends on the replica count: use getReplicaGrouping(n).getStride()).
        """
    def groups(self, replicationFactor: typing.SupportsInt | typing.SupportsIndex) -> list[list[int]]:
        """
        The replicas of each group.
        """
    def isUsingCommGroup(self) -> bool:
        """
        True when built from a CommGroup, False when from a stride and group size.
        """
    def numReplicasReturningVariable(self, replicationFactor: typing.SupportsInt | typing.SupportsIndex) -> int:
        """
        How many values are read back to the host (per group or per replica).
        """
    def shapeOnHost(self, replicaShape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], replicationFactor: typing.SupportsInt | typing.SupportsIndex) -> list[int]:
        """
        The host shape ([groups, *shape] with several groups) of a weight shaped `replicaShape` per replica.
        """
    def shapeOnReplica(self, fullShape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], replicationFactor: typing.SupportsInt | typing.SupportsIndex, name: str) -> list[int]:
        """
        The shape on a replica of a weight given on the host as `fullShape`.
        """
    def verify(self) -> None:
        """
        Raises when the settings are inconsistent.
        """
class InputSettings:
    """
    How a model input is streamed: IPU tile set and exchange strategy (stored), and whether replicas get their own data or the same (ReplicatedStreamMode).
    """
    @typing.overload
    def __init__(self) -> None:
        """
        Compute tiles, just-in-time exchange, each replica its own data.
        """
    @typing.overload
    def __init__(self, tileSet: TileSet, exchangeStrategy: ExchangeStrategy) -> None:
        """
        The given tile set and exchange strategy.
        """
    @typing.overload
    def __init__(self, replicatedStreamMode: ReplicatedStreamMode) -> None:
        """
        The given ReplicatedStreamMode.
        """
    def exchangeStrategy(self) -> ExchangeStrategy:
        """
        When the input is exchanged (an ExchangeStrategy; stored).
        """
    def replicatedStreamMode(self) -> ReplicatedStreamMode:
        """
        Whether replicas read their own data or the same (a ReplicatedStreamMode).
        """
    def setExchangeStrategy(self, exchangeStrategy: ExchangeStrategy) -> None:
        """
        Set when the input is exchanged.
        """
    def setReplicatedStreamMode(self, replicatedStreamMode: ReplicatedStreamMode) -> None:
        """
        Set whether replicas read their own data or the same.
        """
    def setTileSet(self, tileSet: TileSet) -> None:
        """
        Set the TileSet the input is streamed to.
        """
    def tileSet(self) -> TileSet:
        """
        The TileSet the input is streamed to (stored).
        """
class TensorLocation:
    """
    Where a tensor is stored on an IPU system: on or off chip, the tiles it is loaded from and stored on, and whether it is sharded across replicas. Stored and checked; on the CPU every tensor is in host memory.
    """
    __hash__: typing.ClassVar[None] = None
    def __eq__(self, arg0: TensorLocation) -> bool:
        ...
    @typing.overload
    def __init__(self) -> None:
        """
        On chip, compute tiles, not sharded.
        """
    @typing.overload
    def __init__(self, storage: TensorStorage) -> None:
        """
        The given storage, other fields default.
        """
    @typing.overload
    def __init__(self, storage: TensorStorage, replicatedTensorSharding: ReplicatedTensorSharding) -> None:
        """
        The given storage and sharding.
        """
    @typing.overload
    def __init__(self, storage: TensorStorage, loadTileSet: TileSet, storageTileSet: TileSet, replicatedTensorSharding: ReplicatedTensorSharding) -> None:
        """
        Storage, tile sets and sharding.
        """
    @typing.overload
    def __init__(self, storage: TensorStorage, loadTileSet: TileSet, storageTileSet: TileSet, replicatedTensorSharding: ReplicatedTensorSharding, shardingDomain: CommGroup) -> None:
        """
        Storage, tile sets, sharding and the replica group (CommGroup) sharded over.
        """
    def serialize(self) -> list[int]:
        """
        The location as the text stored in a node attribute.
        """
    @property
    def loadTileSet(self) -> TileSet:
        """
        The TileSet the tensor is loaded onto.
        """
    @loadTileSet.setter
    def loadTileSet(self, arg0: TileSet) -> None:
        ...
    @property
    def replicatedTensorSharding(self) -> ReplicatedTensorSharding:
        """
        Whether the tensor is sharded across replicas.
        """
    @replicatedTensorSharding.setter
    def replicatedTensorSharding(self, arg0: ReplicatedTensorSharding) -> None:
        ...
    @property
    def shardingDomain(self) -> CommGroup:
        """
        The CommGroup of replicas sharded over.
        """
    @shardingDomain.setter
    def shardingDomain(self, arg0: CommGroup) -> None:
        ...
    @property
    def storage(self) -> TensorStorage:
        """
        The TensorStorage (OnChip or OffChip).
        """
    @storage.setter
    def storage(self, arg0: TensorStorage) -> None:
        ...
    @property
    def storageTileSet(self) -> TileSet:
        """
        The TileSet the tensor is stored on.
        """
    @storageTileSet.setter
    def storageTileSet(self, arg0: TileSet) -> None:
        ...
class AttributeContextManager:
    """
    A `with` block during which every node the builder adds gets an attribute (virtual graph, pipeline stage, ...); the previous value returns on exit.
    """
    def __enter__(self) -> None:
        ...
    def __exit__(self, *args) -> None:
        ...
class KeyValueContextManager:
    """
    A `with` block adding outline attributes (key/value pairs) to the nodes created in it, on top of those of enclosing blocks.
    """
    def __enter__(self) -> None:
        ...
    def __exit__(self, *args) -> None:
        ...
class NameContextManager:
    """
    A `with` block prefixing the names of the tensors and nodes created in it with a name scope ("scope/").
    """
    def __enter__(self) -> None:
        ...
    def __exit__(self, *args) -> None:
        ...
class _BuilderCore:
    """
    The C++ ONNX model builder; use popart.Builder, which forwards to it.
    """
    @typing.overload
    def __init__(self) -> None:
        """
        An empty model.
        """
    @typing.overload
    def __init__(self, modelProtoOrFilename: typing.Any) -> None:
        """
        A builder continuing an ONNX model (bytes or file name).
        """
    def _inferTensorInfos(self) -> None:
        ...
    def _setTensorInfo(self, id: str, tensorInfo: _TensorInfoCore) -> None:
        ...
    @typing.overload
    def addInitializedInputTensor(self, initVal: numpy.ndarray, variableSettings: VariableSettings, debugContext: typing.Any = '') -> str:
        """
        Add a weight from `initVal` with VariableSettings (how replicas share it); returns its id.
        """
    @typing.overload
    def addInitializedInputTensor(self, initVal: numpy.ndarray, debugContext: typing.Any = '') -> str:
        """
        Add a weight (an ONNX initializer) holding a copy of the numpy array `initVal`; returns its id. Weights are trained by a TrainingSession.
        """
    @typing.overload
    def addInputTensor(self, tensorInfo: _TensorInfoCore, settings: InputSettings, debugContext: typing.Any = '') -> str:
        """
        Add a model input of the given TensorInfo and InputSettings; returns its tensor id.
        """
    @typing.overload
    def addInputTensor(self, dataType: str, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], settings: InputSettings, debugContext: typing.Any = '') -> str:
        """
        Add a model input from a type name ("FLOAT", ...), a shape and InputSettings; returns its id.
        """
    @typing.overload
    def addInputTensor(self, tensorInfo: _TensorInfoCore, debugContext: typing.Any = '') -> str:
        """
        Add a model input of the given TensorInfo; returns its tensor id (debugContext names it).
        """
    @typing.overload
    def addInputTensor(self, dataType: str, shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], debugContext: typing.Any = '') -> str:
        """
        Add a model input from a type name ("FLOAT", "INT32", ...) and a shape; returns its id.
        """
    def addInputTensorFromParentGraph(self, tensorId: str) -> None:
        """
        In a sub-graph builder: use tensor `tensorId` of the enclosing graph by name.
        """
    def addNodeAttribute(self, attributeName: str, attributeValue: typing.Any, nodeOutputNames: typing.Any) -> None:
        """
        Add an attribute to the node producing `nodeOutputNames` (an id or a set of ids).
        """
    def addOp(self, domain: str, opType: str, opsetVersion: typing.SupportsInt | typing.SupportsIndex, inputs: collections.abc.Sequence[str], numOutputs: typing.SupportsInt | typing.SupportsIndex = -1, attributes: dict = {}, debugContext: typing.Any = '') -> list[str]:
        """
        Add a node of any registered op by domain, type and opset version (the generic form behind the opset methods); numOutputs -1 means the op's own count. Returns the output ids.
        """
    def addOutputTensor(self, outputName: str) -> None:
        """
        Make tensor `outputName` a model output.
        """
    def addUntypedInputTensor(self, debugContext: typing.Any = '') -> str:
        """
        Add an input without type or shape (for sub-graphs whose inputs are typed by their caller).
        """
    def checkpointOutput(self, nodeOutputNames: collections.abc.Sequence[str]) -> list[str]:
        """
        Add checkpoint nodes after the given tensors, whose values are kept for the backward pass; returns their ids.
        """
    def clearAttribute(self, attribute: str) -> None:
        """
        Stop giving new nodes attribute `attribute`.
        """
    def commGroup(self, type: typing.SupportsInt | typing.SupportsIndex = 0, groupSize: typing.SupportsInt | typing.SupportsIndex = 0) -> AttributeContextManager:
        """
        A `with` block giving new collective ops the replica group (type, groupSize); 0, 0 is all replicas.
        """
    def createSubgraphBuilder(self) -> _BuilderCore:
        """
        A child builder for a sub-graph (the body of If, Loop, Scan or call).
        """
    def customOp(self, opName: str, opVersion: typing.SupportsInt | typing.SupportsIndex, domain: str, inputs: collections.abc.Sequence[str], attributes: dict = {}, numOutputs: typing.SupportsInt | typing.SupportsIndex = 1, name: typing.Any = '') -> list[str]:
        """
        Add a node of a custom op (registered by a loaded custom-op library) with the given inputs, attributes (dict) and number of outputs; returns the output ids.
        """
    def embedReplicationFactor(self, replicationFactor: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        Record a replication factor in the model.
        """
    def excludePatterns(self, nodeOutputName: str, patternNames: collections.abc.Sequence[str]) -> None:
        """
        Keep the named patterns from rewriting the node producing `nodeOutputName`.
        """
    @typing.overload
    def executionPhase(self, value: typing.SupportsInt | typing.SupportsIndex = 0) -> AttributeContextManager:
        """
        A `with` block putting new nodes in execution phase `value` (kept in the model).
        """
    @typing.overload
    def executionPhase(self, nodeOutputNames: typing.Any, value: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        """
        Put the node producing `nodeOutputNames` in phase `value`.
        """
    def getAllNodeAttributeNames(self, nodeOutputNames: typing.Any) -> list[str]:
        """
        The names of every attribute of the node producing `nodeOutputNames`.
        """
    def getAttribute(self, attribute: str) -> typing.Any:
        """
        The value set with setAttribute for `attribute`.
        """
    def getExecutionPhase(self) -> int:
        """
        The phase set by the enclosing executionPhase block.
        """
    def getFloatNodeAttribute(self, attributeName: str, nodeOutputNames: typing.Any) -> float:
        """
        The FLOAT attribute of the node, as a float.
        """
    def getFloatVectorNodeAttribute(self, attributeName: str, nodeOutputNames: typing.Any) -> list[float]:
        """
        The FLOATS attribute of the node, as a list of floats.
        """
    def getGraphName(self) -> str:
        """
        The name of the ONNX graph.
        """
    def getInputTensorIds(self) -> list[str]:
        """
        The ids of the graph's inputs (weights included).
        """
    def getInt64NodeAttribute(self, attributeName: str, nodeOutputNames: typing.Any) -> int:
        """
        The INT attribute of the node, as an int.
        """
    def getInt64VectorNodeAttribute(self, attributeName: str, nodeOutputNames: typing.Any) -> list[int]:
        """
        The INTS attribute of the node, as a list of ints.
        """
    def getModelProto(self) -> bytes:
        """
        The model as serialised ONNX ModelProto bytes.
        """
    def getNameScope(self, name: str = '') -> str:
        """
        The current name-scope prefix followed by `name` (default "").
        """
    def getNodeAttribute(self, attributeName: str, nodeOutputNames: typing.Any) -> typing.Any:
        """
        The value of attribute `attributeName` of the node producing `nodeOutputNames`.
        """
    def getOpsetVersion(self, domain: str) -> int:
        """
        The opset version of `domain` the model imports.
        """
    def getOutputTensorIds(self) -> list[str]:
        """
        The ids of the graph's outputs.
        """
    def getPartialsType(self, nodeOutputName: str) -> str:
        """
        The partials type set with setPartialsType.
        """
    def getPipelineStage(self) -> int:
        """
        The pipeline stage set by the enclosing pipelineStage block.
        """
    def getRecomputeOutputInBackwardPass(self, nodeOutputNames: typing.Any) -> bool:
        """
        Whether the node producing `nodeOutputNames` is recomputed in the backward pass.
        """
    def getStringNodeAttribute(self, attributeName: str, nodeOutputNames: typing.Any) -> str:
        """
        The STRING attribute of the node, as text.
        """
    def getStringVectorNodeAttribute(self, attributeName: str, nodeOutputNames: typing.Any) -> list[str]:
        """
        The STRINGS attribute of the node, as a list of strings.
        """
    def getTensorDtypeString(self, id: str) -> str:
        """
        The numpy name of the type of tensor `id` ("float32", "int64", ...).
        """
    def getTensorShape(self, id: str) -> list[int]:
        """
        The shape of tensor `id`, a list of ints.
        """
    def getTrainableTensorIds(self) -> list[str]:
        """
        The ids of the weights a TrainingSession would train (initializers read by no compile-time operand).
        """
    def getValueTensorIds(self) -> list[str]:
        """
        The ids of the tensors with a value_info entry.
        """
    @typing.overload
    def getVirtualGraph(self) -> int:
        """
        The virtual graph set by the enclosing virtualGraph block.
        """
    @typing.overload
    def getVirtualGraph(self, nodeOutputNames: typing.Any) -> int:
        """
        The virtual graph of the node producing `nodeOutputNames`.
        """
    def hasAttribute(self, attribute: str) -> bool:
        """
        Whether setAttribute set `attribute`.
        """
    def hasExecutionPhase(self) -> bool:
        """
        Whether an executionPhase block is active.
        """
    def hasParent(self) -> bool:
        """
        Whether this builder is a sub-graph builder.
        """
    def hasPipelineStage(self) -> bool:
        """
        Whether a pipelineStage block is active.
        """
    def hasTensor(self, id: str) -> bool:
        """
        Whether the graph has a tensor `id`.
        """
    def hasValueInfo(self, id: str) -> bool:
        """
        Whether tensor `id` has a known type and shape.
        """
    def hasVirtualGraph(self) -> bool:
        """
        Whether a virtualGraph block is active.
        """
    def isInitializer(self, id: str) -> bool:
        """
        Whether tensor `id` is an initializer (a weight).
        """
    def nameScope(self, name: str) -> NameContextManager:
        """
        A `with` block in which new tensor and node names are prefixed with "name/".
        """
    def nodeHasAttribute(self, attributeName: str, nodeOutputNames: typing.Any) -> bool:
        """
        Whether the node producing `nodeOutputNames` has attribute `attributeName`.
        """
    def outlineAttributes(self, attributes: dict) -> KeyValueContextManager:
        """
        A `with` block adding the key/value pairs of the dict `attributes` to new nodes (outlining hints).
        """
    @typing.overload
    def outputTensorLocation(self, value: TensorLocation = ...) -> AttributeContextManager:
        """
        A `with` block giving the outputs of new nodes a TensorLocation (stored; all memory is host memory here).
        """
    @typing.overload
    def outputTensorLocation(self, nodeOutputNames: str, value: TensorLocation = ...) -> None:
        """
        Give the given outputs a TensorLocation (stored).
        """
    @typing.overload
    def pipelineStage(self, value: typing.SupportsInt | typing.SupportsIndex) -> AttributeContextManager:
        """
        A `with` block putting new nodes in pipeline stage `value` (kept in the model).
        """
    @typing.overload
    def pipelineStage(self, nodeOutputNames: typing.Any, value: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        """
        Put the node producing `nodeOutputNames` in stage `value`.
        """
    @typing.overload
    def recomputeOutput(self, value: RecomputeType = RecomputeType.Undefined) -> AttributeContextManager:
        """
        A `with` block marking new nodes with a RecomputeType (Undefined, Checkpoint, Recompute, Recomputed).
        """
    @typing.overload
    def recomputeOutput(self, nodeOutputNames: str, value: RecomputeType = RecomputeType.Undefined) -> None:
        """
        Mark the node producing `nodeOutputNames` with a RecomputeType.
        """
    def recomputeOutputInBackwardPass(self, nodeOutputNames: typing.Any, value: RecomputeType = RecomputeType.Recompute) -> None:
        """
        Recompute the node's output in the backward pass instead of keeping it (value Recompute, the default) or keep it (Checkpoint).
        """
    def removeNodeAttribute(self, attributeName: str, nodeOutputNames: typing.Any) -> None:
        """
        Remove attribute `attributeName` from the node producing `nodeOutputNames`.
        """
    def reshape_const(self, args: collections.abc.Sequence[str], shape: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex], debugContext: typing.Any = '') -> str:
        """
        Reshape args[0] to the constant `shape` (a Constant node feeding a Reshape); returns [output id].
        """
    def saveInitializersExternally(self, ids: collections.abc.Sequence[str], filename: str) -> None:
        """
        Store the data of the initializers `ids` in the external file `filename` when the model is saved.
        """
    def saveModelProto(self, filename: str) -> None:
        """
        Write the model to `filename` (atomically: a failure leaves the old file).
        """
    def schedulePriority(self, value: typing.SupportsFloat | typing.SupportsIndex) -> AttributeContextManager:
        """
        A `with` block giving new nodes scheduling priority `value`: among ready ops, higher runs first.
        """
    def setAttribute(self, attribute: str, value: typing.Any) -> None:
        """
        Give every node added from now on the attribute `attribute`.
        """
    def setAvailableMemoryProportion(self, nodeOutputName: typing.Any, availableMemoryProportion: typing.SupportsFloat | typing.SupportsIndex) -> None:
        """
        Share of IPU tile memory a conv or matmul may use for temporaries (checked to lie in (0, 1]; stored).
        """
    def setDefaultOpsetVersion(self, version: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        Set the ai.onnx opset version that ops added without an explicit opset use.
        """
    def setEnableConvDithering(self, nodeOutputName: str, enableConvDithering: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        Enable convolution dithering on an IPU (stored).
        """
    def setExecutionContext(self, nodeOutputName: str, value: ExecutionContext) -> None:
        """
        Set the ExecutionContext of the node (normal, accumulate outer fragment, ...).
        """
    def setGraphName(self, name: str) -> None:
        """
        Set the name of the ONNX graph.
        """
    def setInplacePreferences(self, nodeOutputName: str, prefs: collections.abc.Mapping[str, typing.SupportsFloat | typing.SupportsIndex]) -> None:
        """
        Priorities of the node's in-place variants, a dict of variant op type to priority (higher first).
        """
    def setPartialsType(self, nodeOutputName: str, partialsType: str) -> None:
        """
        Type of the partial sums ("FLOAT" or "HALF") of a conv or matmul (stored; CPU kernels use float).
        """
    def setSerializeMatMul(self, nodeOutputName: typing.Any, mode: str, factor: typing.SupportsInt | typing.SupportsIndex = 0, keep_precision: bool = False) -> None:
        """
        Ask for a matmul to be serialised in `factor` parts along `mode` (stored; the CPU computes it at once).
        """
    @typing.overload
    def virtualGraph(self, value: typing.SupportsInt | typing.SupportsIndex) -> AttributeContextManager:
        """
        A `with` block placing new nodes on virtual graph (IPU) `value`; kept in the model, the CPU runs all.
        """
    @typing.overload
    def virtualGraph(self, nodeOutputNames: typing.Any, value: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        """
        Place the node producing `nodeOutputNames` on `value`.
        """
class RecomputationType:
    """
    Which forward activations the backward pass recomputes (SessionOptions.autoRecomputation).
    
    Members:
    
      NoRecompute
    
      Standard
    
      NormOnly
    
      RecomputeAll
    
      Pipeline
    """
    NoRecompute: typing.ClassVar[RecomputationType]
    NormOnly: typing.ClassVar[RecomputationType]
    Pipeline: typing.ClassVar[RecomputationType]
    RecomputeAll: typing.ClassVar[RecomputationType]
    Standard: typing.ClassVar[RecomputationType]
    __members__: typing.ClassVar[dict[str, RecomputationType]]
    @typing.overload
    def __eq__(self, other: RecomputationType) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: RecomputationType) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class VirtualGraphMode:
    """
    How ops are assigned to IPUs (SessionOptions.virtualGraphMode).
    
    Members:
    
      Off
    
      Manual
    
      Auto
    
      ExecutionPhases
    """
    Auto: typing.ClassVar[VirtualGraphMode]
    ExecutionPhases: typing.ClassVar[VirtualGraphMode]
    Manual: typing.ClassVar[VirtualGraphMode]
    Off: typing.ClassVar[VirtualGraphMode]
    __members__: typing.ClassVar[dict[str, VirtualGraphMode]]
    @typing.overload
    def __eq__(self, other: VirtualGraphMode) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: VirtualGraphMode) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class SyntheticDataMode:
    """
    What fills the inputs instead of host data (SessionOptions.syntheticDataMode).
    
    Members:
    
      Off
    
      Zeros
    
      RandomNormal
    
      RandomUniform
    """
    Off: typing.ClassVar[SyntheticDataMode]
    RandomNormal: typing.ClassVar[SyntheticDataMode]
    RandomUniform: typing.ClassVar[SyntheticDataMode]
    Zeros: typing.ClassVar[SyntheticDataMode]
    __members__: typing.ClassVar[dict[str, SyntheticDataMode]]
    @typing.overload
    def __eq__(self, other: SyntheticDataMode) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: SyntheticDataMode) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class ReductionType:
    """
    How a loss or a set of gradients is reduced: Sum, Mean or NoReduction.
    
    Members:
    
      Sum
    
      Mean
    
      NoReduction
    """
    Mean: typing.ClassVar[ReductionType]
    NoReduction: typing.ClassVar[ReductionType]
    Sum: typing.ClassVar[ReductionType]
    __members__: typing.ClassVar[dict[str, ReductionType]]
    @typing.overload
    def __eq__(self, other: ReductionType) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: ReductionType) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class MeanReductionStrategy:
    """
    When a Mean reduction over accumulated and replicated gradients divides.
    
    Members:
    
      Running
    
      Post
    
      PostAndLoss
    """
    Post: typing.ClassVar[MeanReductionStrategy]
    PostAndLoss: typing.ClassVar[MeanReductionStrategy]
    Running: typing.ClassVar[MeanReductionStrategy]
    __members__: typing.ClassVar[dict[str, MeanReductionStrategy]]
    @typing.overload
    def __eq__(self, other: MeanReductionStrategy) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: MeanReductionStrategy) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class MergeVarUpdateType:
    """
    Whether and how weight updates are merged (SessionOptions.mergeVarUpdate).
    
    Members:
    
      Off
    
      All
    
      AutoTight
    
      AutoLoose
    """
    All: typing.ClassVar[MergeVarUpdateType]
    AutoLoose: typing.ClassVar[MergeVarUpdateType]
    AutoTight: typing.ClassVar[MergeVarUpdateType]
    Off: typing.ClassVar[MergeVarUpdateType]
    __members__: typing.ClassVar[dict[str, MergeVarUpdateType]]
    @typing.overload
    def __eq__(self, other: MergeVarUpdateType) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: MergeVarUpdateType) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class IrSerializationFormat:
    """
    Format of a serialised IR (only JSON).
    
    Members:
    
      JSON
    """
    JSON: typing.ClassVar[IrSerializationFormat]
    __members__: typing.ClassVar[dict[str, IrSerializationFormat]]
    @typing.overload
    def __eq__(self, other: IrSerializationFormat) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: IrSerializationFormat) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class Instrumentation:
    """
    Which loops cycle counters instrument: the outer or the inner program.
    
    Members:
    
      Outer
    
      Inner
    """
    Inner: typing.ClassVar[Instrumentation]
    Outer: typing.ClassVar[Instrumentation]
    __members__: typing.ClassVar[dict[str, Instrumentation]]
    @typing.overload
    def __eq__(self, other: Instrumentation) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: Instrumentation) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class SubgraphCopyingStrategy:
    """
    When sub-graph inputs and outputs are copied on an IPU.
    
    Members:
    
      OnEnterAndExit
    
      JustInTime
    """
    JustInTime: typing.ClassVar[SubgraphCopyingStrategy]
    OnEnterAndExit: typing.ClassVar[SubgraphCopyingStrategy]
    __members__: typing.ClassVar[dict[str, SubgraphCopyingStrategy]]
    @typing.overload
    def __eq__(self, other: SubgraphCopyingStrategy) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: SubgraphCopyingStrategy) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class AccumulateOuterFragmentSchedule:
    """
    Schedule of the ops that run once per accumulated batch (stored).
    
    Members:
    
      Scheduler
    
      Serial
    
      OverlapCycleOptimized
    
      OverlapMemoryOptimized
    """
    OverlapCycleOptimized: typing.ClassVar[AccumulateOuterFragmentSchedule]
    OverlapMemoryOptimized: typing.ClassVar[AccumulateOuterFragmentSchedule]
    Scheduler: typing.ClassVar[AccumulateOuterFragmentSchedule]
    Serial: typing.ClassVar[AccumulateOuterFragmentSchedule]
    __members__: typing.ClassVar[dict[str, AccumulateOuterFragmentSchedule]]
    @typing.overload
    def __eq__(self, other: AccumulateOuterFragmentSchedule) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: AccumulateOuterFragmentSchedule) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class BatchSerializationTransformContext:
    """
    Whether batch serialisation splits the forward or the backward pass.
    
    Members:
    
      Fwd
    
      Bwd
    
      Forward
    
      Backward
    """
    Backward: typing.ClassVar[BatchSerializationTransformContext]
    Bwd: typing.ClassVar[BatchSerializationTransformContext]
    Forward: typing.ClassVar[BatchSerializationTransformContext]
    Fwd: typing.ClassVar[BatchSerializationTransformContext]
    __members__: typing.ClassVar[dict[str, BatchSerializationTransformContext]]
    @typing.overload
    def __eq__(self, other: BatchSerializationTransformContext) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: BatchSerializationTransformContext) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class BatchSerializationMethod:
    """
    How batch serialisation repeats the split ops.
    
    Members:
    
      UnrollDynamic
    
      UnrollStatic
    
      Loop
    """
    Loop: typing.ClassVar[BatchSerializationMethod]
    UnrollDynamic: typing.ClassVar[BatchSerializationMethod]
    UnrollStatic: typing.ClassVar[BatchSerializationMethod]
    __members__: typing.ClassVar[dict[str, BatchSerializationMethod]]
    @typing.overload
    def __eq__(self, other: BatchSerializationMethod) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: BatchSerializationMethod) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class BatchSerializationBatchSchedule:
    """
    Order of the batches of a batch-serialised op.
    
    Members:
    
      Scheduler
    
      Isomorphic
    
      OverlapOnIo
    
      OverlapOnCompute
    """
    Isomorphic: typing.ClassVar[BatchSerializationBatchSchedule]
    OverlapOnCompute: typing.ClassVar[BatchSerializationBatchSchedule]
    OverlapOnIo: typing.ClassVar[BatchSerializationBatchSchedule]
    Scheduler: typing.ClassVar[BatchSerializationBatchSchedule]
    __members__: typing.ClassVar[dict[str, BatchSerializationBatchSchedule]]
    @typing.overload
    def __eq__(self, other: BatchSerializationBatchSchedule) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: BatchSerializationBatchSchedule) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class ExecutionPhaseIOSchedule:
    """
    When tensors of an execution phase are loaded: Preload or OnDemand.
    
    Members:
    
      Preload
    
      OnDemand
    """
    OnDemand: typing.ClassVar[ExecutionPhaseIOSchedule]
    Preload: typing.ClassVar[ExecutionPhaseIOSchedule]
    __members__: typing.ClassVar[dict[str, ExecutionPhaseIOSchedule]]
    @typing.overload
    def __eq__(self, other: ExecutionPhaseIOSchedule) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: ExecutionPhaseIOSchedule) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class ExecutionPhaseSchedule:
    """
    How execution phases interleave compute and IO.
    
    Members:
    
      Interleaving
    
      Batch
    
      BatchClusteredIO
    """
    Batch: typing.ClassVar[ExecutionPhaseSchedule]
    BatchClusteredIO: typing.ClassVar[ExecutionPhaseSchedule]
    Interleaving: typing.ClassVar[ExecutionPhaseSchedule]
    __members__: typing.ClassVar[dict[str, ExecutionPhaseSchedule]]
    @typing.overload
    def __eq__(self, other: ExecutionPhaseSchedule) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: ExecutionPhaseSchedule) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class AutodiffStitchStrategy:
    """
    How autodiff provides forward values that a sub-graph's gradient needs.
    
    Members:
    
      RecomputeMinimal
    
      RecomputeAllNonInputs
    
      AddFwdOutputs
    
      SafeAddFwdOutputs
    """
    AddFwdOutputs: typing.ClassVar[AutodiffStitchStrategy]
    RecomputeAllNonInputs: typing.ClassVar[AutodiffStitchStrategy]
    RecomputeMinimal: typing.ClassVar[AutodiffStitchStrategy]
    SafeAddFwdOutputs: typing.ClassVar[AutodiffStitchStrategy]
    __members__: typing.ClassVar[dict[str, AutodiffStitchStrategy]]
    @typing.overload
    def __eq__(self, other: AutodiffStitchStrategy) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: AutodiffStitchStrategy) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class GradientTensorTrackingMethod:
    """
    Which gradients automatic loss scaling takes its statistics from.
    
    Members:
    
      ConvAndMatmulGradients
    
      AllNonViewChangingGradientTensors
    
      GradientsOfUserSpecifiedTensors
    """
    AllNonViewChangingGradientTensors: typing.ClassVar[GradientTensorTrackingMethod]
    ConvAndMatmulGradients: typing.ClassVar[GradientTensorTrackingMethod]
    GradientsOfUserSpecifiedTensors: typing.ClassVar[GradientTensorTrackingMethod]
    __members__: typing.ClassVar[dict[str, GradientTensorTrackingMethod]]
    @typing.overload
    def __eq__(self, other: GradientTensorTrackingMethod) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: GradientTensorTrackingMethod) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class AccumulateOuterFragmentSettings:
    """
    Schedule of the ops run once per accumulated batch, and virtual graphs excluded from it. Stored; no effect on the CPU.
    """
    @typing.overload
    def __init__(self) -> None:
        """
        Default settings: Serial schedule, no virtual graph excluded.
        """
    @typing.overload
    def __init__(self, schedule: AccumulateOuterFragmentSchedule, excludedVirtualGraphs: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex] = []) -> None:
        """
        Settings with the given schedule and excluded virtual graphs.
        """
    @property
    def excludedVirtualGraphs(self) -> list[int]:
        """
        Virtual graph ids left out. Default [].
        """
    @excludedVirtualGraphs.setter
    def excludedVirtualGraphs(self, arg0: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> None:
        ...
    @property
    def schedule(self) -> AccumulateOuterFragmentSchedule:
        """
        The AccumulateOuterFragmentSchedule. Default Serial.
        """
    @schedule.setter
    def schedule(self, arg0: AccumulateOuterFragmentSchedule) -> None:
        ...
class BatchSerializationSettings:
    """
    Splitting of ops into `factor` smaller batches to save IPU memory. Stored; the CPU computes whole micro-batches with the same results.
    """
    @typing.overload
    def __init__(self) -> None:
        """
        Default settings: factor 0 (off).
        """
    @typing.overload
    def __init__(self, factor: typing.SupportsInt | typing.SupportsIndex, concatOnVirtualGraphChange: bool = True, concatOnExecutionPhaseChange: bool = True, concatOnPipelineStageChange: bool = True, transformContext: BatchSerializationTransformContext = BatchSerializationTransformContext.Fwd, method: BatchSerializationMethod = BatchSerializationMethod.UnrollDynamic, batchSchedule: BatchSerializationBatchSchedule = BatchSerializationBatchSchedule.Isomorphic) -> None:
        """
        Settings with the given factor and options (defaults as the properties say).
        """
    @property
    def batchSchedule(self) -> BatchSerializationBatchSchedule:
        """
        Order of the batches. Default Isomorphic.
        """
    @batchSchedule.setter
    def batchSchedule(self, arg0: BatchSerializationBatchSchedule) -> None:
        ...
    @property
    def concatOnExecutionPhaseChange(self) -> bool:
        """
        Join the batches where the execution phase changes. Default True.
        """
    @concatOnExecutionPhaseChange.setter
    def concatOnExecutionPhaseChange(self, arg0: bool) -> None:
        ...
    @property
    def concatOnPipelineStageChange(self) -> bool:
        """
        Join the batches where the pipeline stage changes. Default True.
        """
    @concatOnPipelineStageChange.setter
    def concatOnPipelineStageChange(self, arg0: bool) -> None:
        ...
    @property
    def concatOnVirtualGraphChange(self) -> bool:
        """
        Join the batches where the virtual graph changes. Default True.
        """
    @concatOnVirtualGraphChange.setter
    def concatOnVirtualGraphChange(self, arg0: bool) -> None:
        ...
    @property
    def factor(self) -> int:
        """
        Number of batches each op is split into; 0 or 1 is off. Default 0.
        """
    @factor.setter
    def factor(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def method(self) -> BatchSerializationMethod:
        """
        How the split ops are repeated. Default UnrollDynamic.
        """
    @method.setter
    def method(self, arg0: BatchSerializationMethod) -> None:
        ...
    @property
    def transformContext(self) -> BatchSerializationTransformContext:
        """
        Split the forward (Fwd) or the backward (Bwd) pass. Default Fwd.
        """
    @transformContext.setter
    def transformContext(self, arg0: BatchSerializationTransformContext) -> None:
        ...
class ExecutionPhaseSettings:
    """
    Execution phases: the model split into phases streamed through IPU memory. Stored; the CPU keeps every phase in host memory.
    """
    @typing.overload
    def __init__(self) -> None:
        """
        Default settings: 0 phases (off), 2 stages.
        """
    @typing.overload
    def __init__(self, phases: typing.SupportsInt | typing.SupportsIndex, stages: typing.SupportsInt | typing.SupportsIndex = 2, weightIOSchedule: ExecutionPhaseIOSchedule = ExecutionPhaseIOSchedule.Preload, activationIOSchedule: ExecutionPhaseIOSchedule = ExecutionPhaseIOSchedule.Preload, optimizerStateIOSchedule: ExecutionPhaseIOSchedule = ExecutionPhaseIOSchedule.OnDemand, accumulatorIOSchedule: ExecutionPhaseIOSchedule = ExecutionPhaseIOSchedule.Preload, schedule: ExecutionPhaseSchedule = ExecutionPhaseSchedule.Interleaving) -> None:
        """
        Settings with the given number of phases and schedules.
        """
    @property
    def accumulatorIOSchedule(self) -> ExecutionPhaseIOSchedule:
        """
        When gradient accumulators are loaded. Default Preload.
        """
    @accumulatorIOSchedule.setter
    def accumulatorIOSchedule(self, arg0: ExecutionPhaseIOSchedule) -> None:
        ...
    @property
    def activationIOSchedule(self) -> ExecutionPhaseIOSchedule:
        """
        When activations are loaded. Default Preload.
        """
    @activationIOSchedule.setter
    def activationIOSchedule(self, arg0: ExecutionPhaseIOSchedule) -> None:
        ...
    @property
    def optimizerStateIOSchedule(self) -> ExecutionPhaseIOSchedule:
        """
        When optimizer state is loaded. Default OnDemand.
        """
    @optimizerStateIOSchedule.setter
    def optimizerStateIOSchedule(self, arg0: ExecutionPhaseIOSchedule) -> None:
        ...
    @property
    def phases(self) -> int:
        """
        Number of execution phases; 0 or 1 is off. Default 0.
        """
    @phases.setter
    def phases(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def schedule(self) -> ExecutionPhaseSchedule:
        """
        How phases interleave compute and IO. Default Interleaving.
        """
    @schedule.setter
    def schedule(self, arg0: ExecutionPhaseSchedule) -> None:
        ...
    @property
    def stages(self) -> int:
        """
        Number of stages the phases alternate between. Default 2.
        """
    @stages.setter
    def stages(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def weightIOSchedule(self) -> ExecutionPhaseIOSchedule:
        """
        When weights are loaded. Default Preload.
        """
    @weightIOSchedule.setter
    def weightIOSchedule(self, arg0: ExecutionPhaseIOSchedule) -> None:
        ...
class TensorLocationSettings:
    """
    Default location of one kind of tensor (weights, activations, optimizer state, accumulators). Stored; on the CPU every location is host memory.
    """
    @typing.overload
    def __init__(self) -> None:
        """
        Default settings: on chip, thresholds 2 and 8192 elements.
        """
    @typing.overload
    def __init__(self, location: TensorLocation, minElementsForOffChip: typing.SupportsInt | typing.SupportsIndex = 2, minElementsForReplicatedTensorSharding: typing.SupportsInt | typing.SupportsIndex = 8192) -> None:
        """
        Settings placing tensors at `location` (a TensorLocation) from the given sizes on.
        """
    @typing.overload
    def __init__(self, storage: TensorStorage, minElementsForOffChip: typing.SupportsInt | typing.SupportsIndex = 2, minElementsForReplicatedTensorSharding: typing.SupportsInt | typing.SupportsIndex = 8192) -> None:
        """
        Settings placing tensors in `storage` (a TensorStorage) from the given sizes on.
        """
    @property
    def location(self) -> TensorLocation:
        """
        The TensorLocation used for tensors of this kind.
        """
    @location.setter
    def location(self, arg0: TensorLocation) -> None:
        ...
    @property
    def minElementsForOffChip(self) -> int:
        """
        Smallest tensor (in elements) moved off chip. Default 2.
        """
    @minElementsForOffChip.setter
    def minElementsForOffChip(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def minElementsForReplicatedTensorSharding(self) -> int:
        """
        Smallest tensor (in elements) sharded across replicas. Default 8192.
        """
    @minElementsForReplicatedTensorSharding.setter
    def minElementsForReplicatedTensorSharding(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class AutomaticLossScalingSettings:
    """
    Automatic loss scaling: the training session adjusts the loss-scaling factor from histograms of gradient magnitudes.
    """
    @typing.overload
    def __init__(self) -> None:
        """
        Disabled automatic loss scaling.
        """
    @typing.overload
    def __init__(self, enabled: bool, toTrackTensors: collections.abc.Sequence[str] | None = None, binEdgeLocation: typing.SupportsFloat | typing.SupportsIndex = 0.125, thresholdUpperCountProportion: typing.SupportsFloat | typing.SupportsIndex = 1.0000000116860974e-07, updatePeriod: typing.SupportsInt | typing.SupportsIndex = 1, gradientTensorTrackingMethod: GradientTensorTrackingMethod = GradientTensorTrackingMethod.AllNonViewChangingGradientTensors) -> None:
        """
        Settings with the given switch and parameters (defaults as the properties say).
        """
    @property
    def binEdgeLocation(self) -> float:
        """
        Where, as a fraction of the largest representable value, the upper histogram bin starts. Default 0.125.
        """
    @binEdgeLocation.setter
    def binEdgeLocation(self, arg0: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def enabled(self) -> bool:
        """
        Whether the loss-scaling factor is adjusted. Default False.
        """
    @enabled.setter
    def enabled(self, arg0: bool) -> None:
        ...
    @property
    def gradientTensorTrackingMethod(self) -> GradientTensorTrackingMethod:
        """
        Which gradients are tracked. Default AllNonViewChangingGradientTensors.
        """
    @gradientTensorTrackingMethod.setter
    def gradientTensorTrackingMethod(self, arg0: GradientTensorTrackingMethod) -> None:
        ...
    @property
    def thresholdUpperCountProportion(self) -> float:
        """
        Share of gradient values in the upper bin above which the factor is halved (else doubled). Default 1e-7.
        """
    @thresholdUpperCountProportion.setter
    def thresholdUpperCountProportion(self, arg0: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def toTrackTensors(self) -> list[str] | None:
        """
        Ids of the tensors whose gradients are tracked, or None for the tracking method's choice.
        """
    @toTrackTensors.setter
    def toTrackTensors(self, arg0: collections.abc.Sequence[str] | None) -> None:
        ...
    @property
    def updatePeriod(self) -> int:
        """
        Number of steps between factor updates. Default 1.
        """
    @updatePeriod.setter
    def updatePeriod(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
class AutodiffSettings:
    """
    How autodiff treats sub-graphs (used by PopXL).
    """
    @typing.overload
    def __init__(self) -> None:
        """
        Default settings: stitch strategy RecomputeAllNonInputs.
        """
    @typing.overload
    def __init__(self, stitchStrategy: AutodiffStitchStrategy) -> None:
        """
        Settings with the given stitch strategy.
        """
    @property
    def stitchStrategy(self) -> AutodiffStitchStrategy:
        """
        How forward values needed by a sub-graph's gradient are provided (AutodiffStitchStrategy).
        """
    @stitchStrategy.setter
    def stitchStrategy(self, arg0: AutodiffStitchStrategy) -> None:
        ...
class ReplicatedCollectivesSettings:
    """
    Merging of replicated collectives. Stored; collectives between CPU replicas run in process.
    """
    @typing.overload
    def __init__(self) -> None:
        """
        Default settings: nothing merged.
        """
    @typing.overload
    def __init__(self, prepareScheduleForMergingCollectives: bool = False, mergeAllReduceCollectives: bool = False, mergeReduceScatterCollectives: bool = False, mergeAllGatherCollectives: bool = False) -> None:
        """
        Settings with the given switches (all default to False).
        """
    @property
    def mergeAllGatherCollectives(self) -> bool:
        """
        Merge neighbouring all-gathers. Default False.
        """
    @mergeAllGatherCollectives.setter
    def mergeAllGatherCollectives(self, arg0: bool) -> None:
        ...
    @property
    def mergeAllReduceCollectives(self) -> bool:
        """
        Merge neighbouring all-reduces. Default False.
        """
    @mergeAllReduceCollectives.setter
    def mergeAllReduceCollectives(self, arg0: bool) -> None:
        ...
    @property
    def mergeReduceScatterCollectives(self) -> bool:
        """
        Merge neighbouring reduce-scatters. Default False.
        """
    @mergeReduceScatterCollectives.setter
    def mergeReduceScatterCollectives(self, arg0: bool) -> None:
        ...
    @property
    def prepareScheduleForMergingCollectives(self) -> bool:
        """
        Schedule collectives next to each other so they can be merged. Default False.
        """
    @prepareScheduleForMergingCollectives.setter
    def prepareScheduleForMergingCollectives(self, arg0: bool) -> None:
        ...
class ExperimentalSettings:
    """
    Settings of experimental features (SessionOptions.experimentalSettings).
    """
    def __init__(self) -> None:
        """
        Default experimental settings.
        """
    @property
    def customTransformApplierSettings(self) -> dict[str, list[str]]:
        """
        Custom transforms run while the IR is prepared: a dict of checkpoint (Fwd0, Fwd1, Bwd0, PreAlias, MainLoops, Final) to the names of registered transforms applied there, in order.
        """
    @customTransformApplierSettings.setter
    def customTransformApplierSettings(self, arg0: collections.abc.Mapping[str, collections.abc.Sequence[str]]) -> None:
        ...
class SessionOptions:
    """
    Options of a session, every PopART option with PopART's name and default. Set them as attributes before creating the session, which copies them. Each option's docstring says whether the CPU implementation reads it; options that only steer the IPU toolchain are kept and never change results.
    """
    def __copy__(self) -> SessionOptions:
        ...
    def __deepcopy__(self, memo: dict) -> SessionOptions:
        ...
    def __init__(self) -> None:
        """
        Options with every default.
        """
    def autoRecomputationEnabled(self) -> bool:
        """
        True when autoRecomputation is not RecomputationType.NoRecompute.
        """
    def enableExplicitIR(self, enable: bool) -> None:
        """
        Switch the explicit IR on or off: sets useHostCopyOps, enableExplicitMainLoops and explicitRecomputation together.
        """
    def explicitPipeliningEnabled(self) -> bool:
        """
        True when pipelining is on together with explicit main loops and host-copy ops.
        """
    def getAccumulationFactor(self) -> int:
        """
        accumulationFactor when gradient accumulation is on, else 1.
        """
    def getGlobalReplicationFactor(self) -> int:
        """
        The number of replicas over all processes: globalReplicationFactor with distributed replication, else replicatedGraphCount when replication is on, else 1.
        """
    def getPrefetchBufferingDepth(self, id: str, rearrangedDefault: typing.SupportsInt | typing.SupportsIndex) -> int:
        """
        The buffering depth of input stream `id`: its entry in prefetchBufferingDepthMap, else `rearrangedDefault`.
        """
    def implicitPipeliningEnabled(self) -> bool:
        """
        True when pipelining is on without the explicit IR.
        """
    @property
    def accumulateOuterFragmentSettings(self) -> AccumulateOuterFragmentSettings:
        """
        An AccumulateOuterFragmentSettings: schedule of the ops that run once per accumulated batch. Stored; no effect on the CPU.
        """
    @accumulateOuterFragmentSettings.setter
    def accumulateOuterFragmentSettings(self, arg0: AccumulateOuterFragmentSettings) -> None:
        ...
    @property
    def accumulationAndReplicationReductionType(self) -> ReductionType:
        """
        How gradients of the accumulated and replicated micro-batches are combined: ReductionType.Sum or ReductionType.Mean. Default Sum.
        """
    @accumulationAndReplicationReductionType.setter
    def accumulationAndReplicationReductionType(self, arg0: ReductionType) -> None:
        ...
    @property
    def accumulationFactor(self) -> int:
        """
        Number of micro-batches whose gradients are summed before each weight update, used when enableGradientAccumulation is True. Inputs gain a dimension of this size. Default 1.
        """
    @accumulationFactor.setter
    def accumulationFactor(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def accumulatorTensorLocationSettings(self) -> TensorLocationSettings:
        """
        A TensorLocationSettings: default location of gradient accumulators. Stored; all memory is host memory here.
        """
    @accumulatorTensorLocationSettings.setter
    def accumulatorTensorLocationSettings(self, arg0: TensorLocationSettings) -> None:
        ...
    @property
    def activationTensorLocationSettings(self) -> TensorLocationSettings:
        """
        A TensorLocationSettings: default location of activations (on chip, off chip, sharded). Stored; all memory is host memory here.
        """
    @activationTensorLocationSettings.setter
    def activationTensorLocationSettings(self, arg0: TensorLocationSettings) -> None:
        ...
    @property
    def aliasZeroCopy(self) -> bool:
        """
        Let the IPU reuse buffers of aliased sub-graph tensors. Stored; the CPU's memory planner aliases views and in-place outputs anyway. Default False.
        """
    @aliasZeroCopy.setter
    def aliasZeroCopy(self, arg0: bool) -> None:
        ...
    @property
    def autoRecomputation(self) -> RecomputationType:
        """
        Which forward activations are recomputed in the backward pass instead of kept: NoRecompute, Standard (keep the outputs of expensive ops), NormOnly (recompute normalisations), RecomputeAll, Pipeline. Default RecomputationType.NoRecompute.
        """
    @autoRecomputation.setter
    def autoRecomputation(self, arg0: RecomputationType) -> None:
        ...
    @property
    def autodiffSettings(self) -> AutodiffSettings:
        """
        An AutodiffSettings: how autodiff stitches sub-graph gradients (used by PopXL). Default stitch strategy RecomputeAllNonInputs.
        """
    @autodiffSettings.setter
    def autodiffSettings(self, arg0: AutodiffSettings) -> None:
        ...
    @property
    def automaticLossScalingSettings(self) -> AutomaticLossScalingSettings:
        """
        An AutomaticLossScalingSettings: whether and how the loss-scaling factor is adjusted during training from gradient statistics. Default: disabled.
        """
    @automaticLossScalingSettings.setter
    def automaticLossScalingSettings(self, arg0: AutomaticLossScalingSettings) -> None:
        ...
    @property
    def batchSerializationSettings(self) -> BatchSerializationSettings:
        """
        A BatchSerializationSettings: split ops into several smaller batches to save IPU memory. Stored; the CPU computes whole micro-batches (same results).
        """
    @batchSerializationSettings.setter
    def batchSerializationSettings(self, arg0: BatchSerializationSettings) -> None:
        ...
    @property
    def bufferingDepthMap(self) -> dict[str, int]:
        """
        PopART 3's name of prefetchBufferingDepthMap (the same value). Default {}.
        """
    @bufferingDepthMap.setter
    def bufferingDepthMap(self, arg1: collections.abc.Mapping[str, typing.SupportsInt | typing.SupportsIndex]) -> None:
        ...
    @property
    def cachePath(self) -> str:
        """
        Folder of the executable cache used with enableEngineCaching. Default 'session_cache'.
        """
    @cachePath.setter
    def cachePath(self, arg0: str) -> None:
        ...
    @property
    def compilationProgressTotal(self) -> int:
        """
        Total reported by the compilation progress logger. Stored. Default 100.
        """
    @compilationProgressTotal.setter
    def compilationProgressTotal(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def compileEngine(self) -> bool:
        """
        Compile the Poplar engine in prepareDevice. Stored: preparing a CPU session is always cheap. Default True.
        """
    @compileEngine.setter
    def compileEngine(self, arg0: bool) -> None:
        ...
    @property
    def constantWeights(self) -> bool:
        """
        Treat the weights of an inference session as constants on an IPU. Stored: weights stay variables here, so resetHostWeights always works. Default True.
        """
    @constantWeights.setter
    def constantWeights(self, arg0: bool) -> None:
        ...
    @property
    def convolutionOptions(self) -> dict[str, str]:
        """
        PopLibs convolution options, a dict of strings. Stored; oneDNN chooses its own algorithms. Default {}.
        """
    @convolutionOptions.setter
    def convolutionOptions(self, arg0: collections.abc.Mapping[str, str]) -> None:
        ...
    @property
    def createImplicitPipeliningFwdOnlyProgram(self) -> bool:
        """
        Also build a forward-only program for a pipelined training model. Stored. Default False.
        """
    @createImplicitPipeliningFwdOnlyProgram.setter
    def createImplicitPipeliningFwdOnlyProgram(self, arg0: bool) -> None:
        ...
    @property
    def customCodeletCompileFlags(self) -> str:
        """
        Compiler flags for customCodelets. Stored. Default ''.
        """
    @customCodeletCompileFlags.setter
    def customCodeletCompileFlags(self, arg0: str) -> None:
        ...
    @property
    def customCodelets(self) -> list[str]:
        """
        Poplar codelet files to compile for custom ops. Stored; CPU custom ops are shared libraries. Default [].
        """
    @customCodelets.setter
    def customCodelets(self, arg0: collections.abc.Sequence[str]) -> None:
        ...
    @property
    def decomposeGradSum(self) -> bool:
        """
        Split sums of many partial gradients into a chain of additions to lower peak memory. Default False.
        """
    @decomposeGradSum.setter
    def decomposeGradSum(self, arg0: bool) -> None:
        ...
    @property
    def defaultBufferingDepth(self) -> int:
        """
        PopART 3's name of defaultPrefetchBufferingDepth (the same value). Default 1.
        """
    @defaultBufferingDepth.setter
    def defaultBufferingDepth(self, arg1: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def defaultPrefetchBufferingDepth(self) -> int:
        """
        Default number of micro-batches buffered per input stream. Stored; no effect on the CPU. Default 1.
        """
    @defaultPrefetchBufferingDepth.setter
    def defaultPrefetchBufferingDepth(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def delayVarUpdates(self) -> bool:
        """
        Schedule weight updates as late as possible. Default True.
        """
    @delayVarUpdates.setter
    def delayVarUpdates(self, arg0: bool) -> None:
        ...
    @property
    def disableGradAccumulationTensorStreams(self) -> bool:
        """
        Do not create host streams for gradient accumulators. Stored. Default False.
        """
    @disableGradAccumulationTensorStreams.setter
    def disableGradAccumulationTensorStreams(self, arg0: bool) -> None:
        ...
    @property
    def disableOptimizerStateTensorStreams(self) -> bool:
        """
        Do not create host streams for optimizer state. Stored. Default False.
        """
    @disableOptimizerStateTensorStreams.setter
    def disableOptimizerStateTensorStreams(self, arg0: bool) -> None:
        ...
    @property
    def dotChecks(self) -> set[str]:
        """
        Stages at which the IR is written as a Graphviz .dot file into logDir: a set of 'FWD0', 'FWD1', 'BWD0', 'PREALIAS', 'FINAL' or 'ALL' (also the POPART_DOT_CHECKS environment variable). Default: none.
        """
    @dotChecks.setter
    def dotChecks(self, arg0: collections.abc.Set[str]) -> None:
        ...
    @property
    def dotOpNames(self) -> bool:
        """
        Write op names (not only types) in the .dot files. Default False.
        """
    @dotOpNames.setter
    def dotOpNames(self, arg0: bool) -> None:
        ...
    @property
    def enableConstantFoldingOfMultipleConsumers(self) -> bool:
        """
        Fold constants also when the folded tensor has several consumers. Stored; constants are always folded here. Default True.
        """
    @enableConstantFoldingOfMultipleConsumers.setter
    def enableConstantFoldingOfMultipleConsumers(self, arg0: bool) -> None:
        ...
    @property
    def enableDistributedReplicatedGraphs(self) -> bool:
        """
        Replication across several processes (globalReplicationFactor replicas in all, this process holding those from globalReplicaOffset on). Default False.
        """
    @enableDistributedReplicatedGraphs.setter
    def enableDistributedReplicatedGraphs(self, arg0: bool) -> None:
        ...
    @property
    def enableEfficientOverlapIOTopoCons(self) -> bool:
        """
        Topological constraints for overlapping IO and compute on IO tiles. Stored. Default False.
        """
    @enableEfficientOverlapIOTopoCons.setter
    def enableEfficientOverlapIOTopoCons(self, arg0: bool) -> None:
        ...
    @property
    def enableEngineCaching(self) -> bool:
        """
        Save the prepared executable under cachePath and reuse it when the same model and options are prepared again. Default False.
        """
    @enableEngineCaching.setter
    def enableEngineCaching(self, arg0: bool) -> None:
        ...
    @property
    def enableExplicitMainLoops(self) -> bool:
        """
        Express the batches-per-step and accumulation loops explicitly in the IR (part of the explicit IR). Default False.
        """
    @enableExplicitMainLoops.setter
    def enableExplicitMainLoops(self, arg0: bool) -> None:
        ...
    @property
    def enableFloatingPointChecks(self) -> bool:
        """
        Trap on floating-point exceptions on an IPU. Stored; NaN and infinity propagate as in numpy on the CPU. Default False.
        """
    @enableFloatingPointChecks.setter
    def enableFloatingPointChecks(self, arg0: bool) -> None:
        ...
    @property
    def enableFullyConnectedPass(self) -> bool:
        """
        Let the IPU's matmul planner know a matmul is a fully connected layer. Stored; no effect on the CPU. Default True.
        """
    @enableFullyConnectedPass.setter
    def enableFullyConnectedPass(self, arg0: bool) -> None:
        ...
    @property
    def enableGradientAccumulation(self) -> bool:
        """
        Accumulate gradients over accumulationFactor micro-batches and update the weights once per batch. Default False.
        """
    @enableGradientAccumulation.setter
    def enableGradientAccumulation(self, arg0: bool) -> None:
        ...
    @property
    def enableLoadAndOffloadRNGState(self) -> bool:
        """
        Make the random-number state readable and writable with getRNGState/setRNGState. Default False.
        """
    @enableLoadAndOffloadRNGState.setter
    def enableLoadAndOffloadRNGState(self, arg0: bool) -> None:
        ...
    @property
    def enableMergeExchange(self) -> bool:
        """
        Merge IPU exchanges of consecutive ops. Stored; no effect on the CPU. Default True.
        """
    @enableMergeExchange.setter
    def enableMergeExchange(self, arg0: bool) -> None:
        ...
    @property
    def enableNonStableSoftmax(self) -> bool:
        """
        Use a faster, less stable softmax on an IPU. Stored; the CPU always uses the stable formula. Default False.
        """
    @enableNonStableSoftmax.setter
    def enableNonStableSoftmax(self, arg0: bool) -> None:
        ...
    @property
    def enableOutlining(self) -> bool:
        """
        Outline repeated sub-graphs into called functions to save IPU code memory. Stored; no effect on the CPU. Default True.
        """
    @enableOutlining.setter
    def enableOutlining(self, arg0: bool) -> None:
        ...
    @property
    def enableOutliningCopyCostPruning(self) -> bool:
        """
        Skip outlining where the copies would cost more than they save. Stored; no effect on the CPU. Default True.
        """
    @enableOutliningCopyCostPruning.setter
    def enableOutliningCopyCostPruning(self, arg0: bool) -> None:
        ...
    @property
    def enablePipelining(self) -> bool:
        """
        Run the pipeline stages of a model split over several IPUs as a pipeline. Accepted and checked; the CPU runs the stages as one scheduled sequence with the same results. Default False.
        """
    @enablePipelining.setter
    def enablePipelining(self, arg0: bool) -> None:
        ...
    @property
    def enablePrefetchDatastreams(self) -> bool:
        """
        Prefetch input streams on the IPU. Stored; no effect on the CPU. Default True.
        """
    @enablePrefetchDatastreams.setter
    def enablePrefetchDatastreams(self, arg0: bool) -> None:
        ...
    @property
    def enableReplicatedGraphs(self) -> bool:
        """
        Run replicatedGraphCount replicas of the model (on the CPU one after the other, on the same weights) and reduce their gradients before each update. Default False.
        """
    @enableReplicatedGraphs.setter
    def enableReplicatedGraphs(self, arg0: bool) -> None:
        ...
    @property
    def enableSerializedMatmuls(self) -> bool:
        """
        Allow matmuls to be serialised (split) to save IPU memory. Stored; the CPU computes each matmul at once. Default True.
        """
    @enableSerializedMatmuls.setter
    def enableSerializedMatmuls(self, arg0: bool) -> None:
        ...
    @property
    def enableStableNorm(self) -> bool:
        """
        Use a more stable variance computation in normalisations on an IPU. Stored; the CPU kernels are always stable. Default False.
        """
    @enableStableNorm.setter
    def enableStableNorm(self, arg0: bool) -> None:
        ...
    @property
    def enableStochasticRounding(self) -> bool:
        """
        Stochastic rounding of float16 results on an IPU. Stored; CPU kernels round to nearest. Default False.
        """
    @enableStochasticRounding.setter
    def enableStochasticRounding(self, arg0: bool) -> None:
        ...
    @property
    def enableSupportedDataTypeCasting(self) -> bool:
        """
        Cast INT64/UINT64 model tensors to 32 bits as the IPU requires. Stored; the CPU runs 64-bit integers natively. Default True.
        """
    @enableSupportedDataTypeCasting.setter
    def enableSupportedDataTypeCasting(self, arg0: bool) -> None:
        ...
    @property
    def enableVariablesCaching(self) -> bool:
        """
        Keep weights in the cached executable. Default True.
        """
    @enableVariablesCaching.setter
    def enableVariablesCaching(self, arg0: bool) -> None:
        ...
    @property
    def engineOptions(self) -> dict[str, str]:
        """
        Poplar engine options, a dict of strings. Stored and returned; nothing to steer on the CPU. Default {}.
        """
    @engineOptions.setter
    def engineOptions(self, arg0: collections.abc.Mapping[str, str]) -> None:
        ...
    @property
    def ensureFp32LossScaleTensor(self) -> bool:
        """
        Keep the loss-scaling tensor in float32 when the model is float16. Default False.
        """
    @ensureFp32LossScaleTensor.setter
    def ensureFp32LossScaleTensor(self, arg0: bool) -> None:
        ...
    @property
    def executionPhaseSettings(self) -> ExecutionPhaseSettings:
        """
        An ExecutionPhaseSettings: execution phases streaming the model through IPU memory. Stored; the CPU keeps all phases in host memory.
        """
    @executionPhaseSettings.setter
    def executionPhaseSettings(self, arg0: ExecutionPhaseSettings) -> None:
        ...
    @property
    def experimentalSettings(self) -> ExperimentalSettings:
        """
        An ExperimentalSettings: custom transforms applied at named checkpoints of the IR preparation (customTransformApplierSettings).
        """
    @experimentalSettings.setter
    def experimentalSettings(self, arg0: ExperimentalSettings) -> None:
        ...
    @property
    def explicitRecomputation(self) -> bool:
        """
        Express recomputation as explicit copies of forward ops in the IR (part of the explicit IR, see enableExplicitIR). Default False.
        """
    @explicitRecomputation.setter
    def explicitRecomputation(self, arg0: bool) -> None:
        ...
    @property
    def exportPoplarComputationGraph(self) -> bool:
        """
        Export the Poplar computation graph. Stored; there is none on the CPU. Default False.
        """
    @exportPoplarComputationGraph.setter
    def exportPoplarComputationGraph(self, arg0: bool) -> None:
        ...
    @property
    def exportPoplarVertexGraph(self) -> bool:
        """
        Export the Poplar vertex graph. Stored; there is none on the CPU. Default False.
        """
    @exportPoplarVertexGraph.setter
    def exportPoplarVertexGraph(self, arg0: bool) -> None:
        ...
    @property
    def finalDotOp(self) -> int:
        """
        Index after the last op written to a .dot file. Default 10000.
        """
    @finalDotOp.setter
    def finalDotOp(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def firstDotOp(self) -> int:
        """
        Index of the first op written to a .dot file. Default 0.
        """
    @firstDotOp.setter
    def firstDotOp(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def gclOptions(self) -> dict[str, str]:
        """
        Options of the IPU collectives library, a dict of strings. Stored. Default {}.
        """
    @gclOptions.setter
    def gclOptions(self, arg0: collections.abc.Mapping[str, str]) -> None:
        ...
    @property
    def globalReplicaOffset(self) -> int:
        """
        Index of this process's first replica among all replicas, with distributed replication. Default 0.
        """
    @globalReplicaOffset.setter
    def globalReplicaOffset(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def globalReplicationFactor(self) -> int:
        """
        Total number of replicas over all processes when enableDistributedReplicatedGraphs is True. Default 1.
        """
    @globalReplicationFactor.setter
    def globalReplicationFactor(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def groupHostSync(self) -> bool:
        """
        Group the host synchronisations of one step. Stored; no effect on the CPU. Default False.
        """
    @groupHostSync.setter
    def groupHostSync(self, arg0: bool) -> None:
        ...
    @property
    def groupNormStridedChannelGrouping(self) -> bool:
        """
        Group channels of GroupNormalization with a stride as PopLibs can. Stored. Default False.
        """
    @groupNormStridedChannelGrouping.setter
    def groupNormStridedChannelGrouping(self, arg0: bool) -> None:
        ...
    @property
    def hardwareInstrumentations(self) -> set[Instrumentation]:
        """
        Which loops are instrumented with cycle counters (a set of Instrumentation). Stored. Default {Instrumentation.Outer}.
        """
    @hardwareInstrumentations.setter
    def hardwareInstrumentations(self, arg0: collections.abc.Set[Instrumentation]) -> None:
        ...
    @property
    def hostAllReduce(self) -> bool:
        """
        Reduce gradients across processes on the host (Horovod's PopART extension). Within one process the gradient is already the average, so this changes nothing on the CPU. Default False.
        """
    @hostAllReduce.setter
    def hostAllReduce(self, arg0: bool) -> None:
        ...
    @property
    def instrumentWithHardwareCycleCounter(self) -> bool:
        """
        Count IPU cycles. Stored: getCycleCount() always returns the CPU time-stamp counter ticks of the last run(). Default False.
        """
    @instrumentWithHardwareCycleCounter.setter
    def instrumentWithHardwareCycleCounter(self, arg0: bool) -> None:
        ...
    @property
    def kahnTieBreaker(self) -> str:
        """
        How the scheduler breaks ties between ready ops: 'greedy', 'fifo' or 'random'. Stored; the CPU schedule is deterministic. Default 'greedy'.
        """
    @kahnTieBreaker.setter
    def kahnTieBreaker(self, arg0: str) -> None:
        ...
    @property
    def logDir(self) -> str:
        """
        Folder for the .dot files of dotChecks. Default '.'.
        """
    @logDir.setter
    def logDir(self, arg0: str) -> None:
        ...
    @property
    def looseThresholdAtPeak(self) -> int:
        """
        Extra bytes allowed at peak liveness by MergeVarUpdateType.AutoLoose. Default 8000.
        """
    @looseThresholdAtPeak.setter
    def looseThresholdAtPeak(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def lstmOptions(self) -> dict[str, str]:
        """
        PopLibs LSTM options, a dict of strings. Stored. Default {}.
        """
    @lstmOptions.setter
    def lstmOptions(self, arg0: collections.abc.Mapping[str, str]) -> None:
        ...
    @property
    def matmulOptions(self) -> dict[str, str]:
        """
        PopLibs matmul options, a dict of strings. Stored. Default {}.
        """
    @matmulOptions.setter
    def matmulOptions(self, arg0: collections.abc.Mapping[str, str]) -> None:
        ...
    @property
    def meanAccumulationAndReplicationReductionStrategy(self) -> MeanReductionStrategy:
        """
        With Mean reduction: Post divides the summed gradient once before the update, Running keeps a running mean in the accumulator, PostAndLoss also scales the loss. Default Post.
        """
    @meanAccumulationAndReplicationReductionStrategy.setter
    def meanAccumulationAndReplicationReductionStrategy(self, arg0: MeanReductionStrategy) -> None:
        ...
    @property
    def mergeVarUpdate(self) -> MergeVarUpdateType:
        """
        Merge the weight updates of several weights into fewer ops: Off, All, AutoTight, AutoLoose (see mergeVarUpdateMemThreshold). Default MergeVarUpdateType.Off.
        """
    @mergeVarUpdate.setter
    def mergeVarUpdate(self, arg0: MergeVarUpdateType) -> None:
        ...
    @property
    def mergeVarUpdateMemThreshold(self) -> int:
        """
        Bytes of weights merged into one update with MergeVarUpdateType.AutoTight/AutoLoose. Default 1000000.
        """
    @mergeVarUpdateMemThreshold.setter
    def mergeVarUpdateMemThreshold(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def numIOTiles(self) -> int:
        """
        Number of IPU tiles reserved for input/output. Stored; a CPU has no tiles. Default 0.
        """
    @numIOTiles.setter
    def numIOTiles(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def optimizerStateTensorLocationSettings(self) -> TensorLocationSettings:
        """
        A TensorLocationSettings: default location of optimizer state. Stored; all memory is host memory here.
        """
    @optimizerStateTensorLocationSettings.setter
    def optimizerStateTensorLocationSettings(self, arg0: TensorLocationSettings) -> None:
        ...
    @property
    def opxAliasChecking(self) -> bool:
        """
        Check on the IPU that each Opx aliases its inputs as its op declares. Stored. Default False.
        """
    @opxAliasChecking.setter
    def opxAliasChecking(self, arg0: bool) -> None:
        ...
    @property
    def opxModifyChecking(self) -> bool:
        """
        Check on the IPU that each Opx modifies its inputs only as its op declares. Stored. Default False.
        """
    @opxModifyChecking.setter
    def opxModifyChecking(self, arg0: bool) -> None:
        ...
    @property
    def outlineSequenceBreakCost(self) -> float:
        """
        Outlining penalty for breaking a sequence of ops. Stored; no effect on the CPU. Default 10000.0.
        """
    @outlineSequenceBreakCost.setter
    def outlineSequenceBreakCost(self, arg0: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def outlineThreshold(self) -> float:
        """
        Minimum value of a sub-graph for outlining. Stored; no effect on the CPU. Default 1.0.
        """
    @outlineThreshold.setter
    def outlineThreshold(self, arg0: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def partialsTypeMatMuls(self) -> str:
        """
        Type of partial sums in matrix products on an IPU ('float' or 'half'). Stored; CPU kernels accumulate in at least float. Default '' (the IPU default).
        """
    @partialsTypeMatMuls.setter
    def partialsTypeMatMuls(self, arg0: str) -> None:
        ...
    @property
    def prefetchBufferingDepthMap(self) -> dict[str, int]:
        """
        Buffering depth of particular input streams, a dict of tensor id to depth. Stored. Default {}.
        """
    @prefetchBufferingDepthMap.setter
    def prefetchBufferingDepthMap(self, arg0: collections.abc.Mapping[str, typing.SupportsInt | typing.SupportsIndex]) -> None:
        ...
    @property
    def rearrangeAnchorsOnHost(self) -> bool:
        """
        Rearrange anchors on the host instead of the IPU. Stored; no effect on the CPU. Default True.
        """
    @rearrangeAnchorsOnHost.setter
    def rearrangeAnchorsOnHost(self, arg0: bool) -> None:
        ...
    @property
    def rearrangeStreamsOnHost(self) -> bool:
        """
        Rearrange input streams on the host instead of the IPU. Stored; no effect on the CPU. Default False.
        """
    @rearrangeStreamsOnHost.setter
    def rearrangeStreamsOnHost(self, arg0: bool) -> None:
        ...
    @property
    def replicatedCollectivesSettings(self) -> ReplicatedCollectivesSettings:
        """
        A ReplicatedCollectivesSettings: merging of replicated collectives. Stored; no effect on the CPU.
        """
    @replicatedCollectivesSettings.setter
    def replicatedCollectivesSettings(self, arg0: ReplicatedCollectivesSettings) -> None:
        ...
    @property
    def replicatedGraphCount(self) -> int:
        """
        Number of replicas when enableReplicatedGraphs is True; inputs and anchors gain a dimension of this size. Default 1.
        """
    @replicatedGraphCount.setter
    def replicatedGraphCount(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def reportOptions(self) -> dict[str, str]:
        """
        Poplar report options, a dict of strings. Stored; getSummaryReport() reports CPU times and memory. Default {}.
        """
    @reportOptions.setter
    def reportOptions(self, arg0: collections.abc.Mapping[str, str]) -> None:
        ...
    @property
    def scheduleNonWeightUpdateGradientConsumersEarly(self) -> bool:
        """
        Schedule ops that read gradients but are not weight updates early. Default False.
        """
    @scheduleNonWeightUpdateGradientConsumersEarly.setter
    def scheduleNonWeightUpdateGradientConsumersEarly(self, arg0: bool) -> None:
        ...
    @property
    def separateCallOpPdfs(self) -> bool:
        """
        Write separate liveness reports per call op. Stored. Default True.
        """
    @separateCallOpPdfs.setter
    def separateCallOpPdfs(self, arg0: bool) -> None:
        ...
    @property
    def serializedPoprithmsAnnealGraphsDir(self) -> str:
        """
        Folder for the annealing scheduler's serialised graphs. Stored. Default ''.
        """
    @serializedPoprithmsAnnealGraphsDir.setter
    def serializedPoprithmsAnnealGraphsDir(self, arg0: str) -> None:
        ...
    @property
    def serializedPoprithmsShiftGraphsDir(self) -> str:
        """
        Folder for the scheduler's serialised graphs on the IPU toolchain. Stored. Default ''.
        """
    @serializedPoprithmsShiftGraphsDir.setter
    def serializedPoprithmsShiftGraphsDir(self, arg0: str) -> None:
        ...
    @property
    def stashAllTensorsInferencePipeline(self) -> bool:
        """
        Stash every tensor in an inference pipeline. Stored. Default False.
        """
    @stashAllTensorsInferencePipeline.setter
    def stashAllTensorsInferencePipeline(self, arg0: bool) -> None:
        ...
    @property
    def strictOpVersions(self) -> bool:
        """
        Resolve each ONNX node to the newest op version not above the model's opset. Stored (always done). Default True.
        """
    @strictOpVersions.setter
    def strictOpVersions(self, arg0: bool) -> None:
        ...
    @property
    def subgraphCopyingStrategy(self) -> SubgraphCopyingStrategy:
        """
        When the IPU copies sub-graph inputs and outputs: OnEnterAndExit or JustInTime. Stored. Default SubgraphCopyingStrategy.OnEnterAndExit.
        """
    @subgraphCopyingStrategy.setter
    def subgraphCopyingStrategy(self, arg0: SubgraphCopyingStrategy) -> None:
        ...
    @property
    def swapLimitScheduler(self) -> int:
        """
        Number of swaps the IPU scheduler may try. Stored. Default 1e9.
        """
    @swapLimitScheduler.setter
    def swapLimitScheduler(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def syntheticDataMode(self) -> SyntheticDataMode:
        """
        Fill inputs on the device instead of reading the host streams: Off, Zeros, RandomNormal, RandomUniform (for benchmarking without data). Default SyntheticDataMode.Off.
        """
    @syntheticDataMode.setter
    def syntheticDataMode(self, arg0: SyntheticDataMode) -> None:
        ...
    @property
    def tensorLocationSettingsOverride(self) -> dict[str, TensorLocation]:
        """
        Locations of particular tensors, a dict of tensor id to TensorLocation. Stored. Default {}.
        """
    @tensorLocationSettingsOverride.setter
    def tensorLocationSettingsOverride(self, arg0: collections.abc.Mapping[str, TensorLocation]) -> None:
        ...
    @property
    def throwIfLog2ScaleTensorNotInRange(self) -> bool:
        """
        Raise when a log2 scale tensor of a float8 op is out of range. Default True.
        """
    @throwIfLog2ScaleTensorNotInRange.setter
    def throwIfLog2ScaleTensorNotInRange(self, arg0: bool) -> None:
        ...
    @property
    def timeLimitScheduler(self) -> float:
        """
        Seconds the IPU scheduler may spend optimising. Stored. Default 1e9.
        """
    @timeLimitScheduler.setter
    def timeLimitScheduler(self, arg0: typing.SupportsFloat | typing.SupportsIndex) -> None:
        ...
    @property
    def transitiveClosureOptimizationThreshold(self) -> int:
        """
        Op count above which transitive-closure optimisations are skipped. Stored. Default 100000.
        """
    @transitiveClosureOptimizationThreshold.setter
    def transitiveClosureOptimizationThreshold(self, arg0: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    @property
    def updatableNamedBuffers(self) -> list[str]:
        """
        Names of buffers that may be updated after compilation. Stored. Default [].
        """
    @updatableNamedBuffers.setter
    def updatableNamedBuffers(self, arg0: collections.abc.Sequence[str]) -> None:
        ...
    @property
    def useHostCopyOps(self) -> bool:
        """
        Turn every model input into Init followed by HostLoad and every anchor into a HostStore op, spelling the host streams out in the IR. Results are identical. Default False.
        """
    @useHostCopyOps.setter
    def useHostCopyOps(self, arg0: bool) -> None:
        ...
    @property
    def useLoopCandidateCreator(self) -> bool:
        """
        Let the IPU's tensor layout creation look through loops. Stored. Default False.
        """
    @useLoopCandidateCreator.setter
    def useLoopCandidateCreator(self, arg0: bool) -> None:
        ...
    @property
    def virtualGraphMode(self) -> VirtualGraphMode:
        """
        How ops are assigned to IPUs (virtual graphs): Off, Manual (from the builder's virtualGraph annotations), Auto or ExecutionPhases. Annotations are checked and kept; the CPU runs the whole graph. Default VirtualGraphMode.Off.
        """
    @virtualGraphMode.setter
    def virtualGraphMode(self, arg0: VirtualGraphMode) -> None:
        ...
    @property
    def virtualGraphSplitRatios(self) -> list[float]:
        """
        Share of the model placed on each IPU by VirtualGraphMode.Auto, one float per IPU. Stored. Default [] (an even split).
        """
    @virtualGraphSplitRatios.setter
    def virtualGraphSplitRatios(self, arg0: collections.abc.Sequence[typing.SupportsFloat | typing.SupportsIndex]) -> None:
        ...
    @property
    def weightTensorLocationSettings(self) -> TensorLocationSettings:
        """
        A TensorLocationSettings: default location of weights. Stored; all memory is host memory here.
        """
    @weightTensorLocationSettings.setter
    def weightTensorLocationSettings(self, arg0: TensorLocationSettings) -> None:
        ...
class PatternsLevel:
    """
    A preset set of patterns: NoPatterns, Minimal (the mandatory ones), Default, All.
    
    Members:
    
      NoPatterns
    
      Minimal
    
      Default
    
      All
    """
    All: typing.ClassVar[PatternsLevel]
    Default: typing.ClassVar[PatternsLevel]
    Minimal: typing.ClassVar[PatternsLevel]
    NoPatterns: typing.ClassVar[PatternsLevel]
    __members__: typing.ClassVar[dict[str, PatternsLevel]]
    @typing.overload
    def __eq__(self, other: PatternsLevel) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: PatternsLevel) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class Patterns:
    """
    The graph rewrites (patterns) applied while a session prepares its IR. Every PopART pattern name is accepted; patterns can be read and switched as attributes (patterns.PreUniRepl, patterns.InPlace = False). A session refuses to start with a mandatory pattern disabled unless enableRuntimeAsserts(False) was called.
    """
    __hash__: typing.ClassVar[None] = None
    @staticmethod
    def create(patterns: collections.abc.Sequence[str]) -> Patterns:
        """
        Patterns enabling only the named ones, as Patterns(patterns).
        """
    def __eq__(self, arg0: Patterns) -> bool:
        ...
    def __getattr__(self, arg0: str) -> bool:
        ...
    @typing.overload
    def __init__(self) -> None:
        """
        The Default level.
        """
    @typing.overload
    def __init__(self, level: PatternsLevel) -> None:
        """
        The patterns of `level` (a PatternsLevel).
        """
    @typing.overload
    def __init__(self, patterns: collections.abc.Sequence[str]) -> None:
        """
        Only the named patterns (starting from NoPatterns); unknown names raise.
        """
    def __repr__(self) -> str:
        ...
    def __setattr__(self, arg0: str, arg1: bool) -> None:
        ...
    def enableInPlace(self, enable: bool) -> Patterns:
        """
        Enable or disable in-placing; returns self.
        """
    def enablePattern(self, type: str, enable: bool) -> Patterns:
        """
        Enable or disable the pattern named `type`; returns self so calls can be chained.
        """
    def enableRuntimeAsserts(self, enable: bool) -> Patterns:
        """
        With False, a session accepts these patterns even with a mandatory pattern disabled; returns self.
        """
    def enableUpdateInplacePrioritiesForIpu(self, enable: bool) -> Patterns:
        """
        Enable or disable UpdateInplacePrioritiesForIpu (no effect on the CPU); returns self.
        """
    def getAllPatternNames(self) -> list[str]:
        """
        The names of every known pattern.
        """
    def getEnabledPatternNames(self) -> list[str]:
        """
        The names of the enabled patterns.
        """
    def getRuntimeAssertsOn(self) -> bool:
        """
        Whether sessions check that the mandatory patterns are enabled (default True).
        """
    def isInPlaceEnabled(self) -> bool:
        """
        Whether in-placing is enabled.
        """
    def isPatternEnabled(self, type: str) -> bool:
        """
        Whether the pattern named `type` is enabled.
        """
    @property
    def InPlace(self) -> bool:
        """
        Whether ops are replaced by in-place variants where that is safe (saves memory and copies).
        """
    @InPlace.setter
    def InPlace(self, arg1: bool) -> None:
        ...
    @property
    def UpdateInplacePrioritiesForIpu(self) -> bool:
        """
        PopART's IPU-specific in-place priority tweak. Stored; no effect on the CPU.
        """
    @UpdateInplacePrioritiesForIpu.setter
    def UpdateInplacePrioritiesForIpu(self, arg1: bool) -> None:
        ...
    @property
    def level(self) -> PatternsLevel:
        """
        The PatternsLevel these patterns started from.
        """
class DeviceType:
    """
    Kind of device: IpuModel, Cpu, Ipu, OfflineIpu, Sim (all but OfflineIpu run on the CPU).
    
    Members:
    
      IpuModel
    
      Cpu
    
      Ipu
    
      OfflineIpu
    
      Sim
    """
    Cpu: typing.ClassVar[DeviceType]
    Ipu: typing.ClassVar[DeviceType]
    IpuModel: typing.ClassVar[DeviceType]
    OfflineIpu: typing.ClassVar[DeviceType]
    Sim: typing.ClassVar[DeviceType]
    __members__: typing.ClassVar[dict[str, DeviceType]]
    @typing.overload
    def __eq__(self, other: DeviceType) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: DeviceType) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class DeviceConnectionType:
    """
    When a device is attached: Always, OnDemand (at prepareDevice) or Never.
    
    Members:
    
      Always
    
      OnDemand
    
      Never
    """
    Always: typing.ClassVar[DeviceConnectionType]
    Never: typing.ClassVar[DeviceConnectionType]
    OnDemand: typing.ClassVar[DeviceConnectionType]
    __members__: typing.ClassVar[dict[str, DeviceConnectionType]]
    @typing.overload
    def __eq__(self, other: DeviceConnectionType) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: DeviceConnectionType) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class SyncPattern:
    """
    How IPUs of a multi-IPU device synchronise. Stored; no effect on the CPU.
    
    Members:
    
      Full
    
      SinglePipeline
    
      ReplicaAndLadder
    """
    Full: typing.ClassVar[SyncPattern]
    ReplicaAndLadder: typing.ClassVar[SyncPattern]
    SinglePipeline: typing.ClassVar[SyncPattern]
    __members__: typing.ClassVar[dict[str, SyncPattern]]
    @typing.overload
    def __eq__(self, other: SyncPattern) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: SyncPattern) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class DeviceSelectionCriterion:
    """
    Which of several free devices acquireAvailableDevice picks: First or Random.
    
    Members:
    
      First
    
      Random
    """
    First: typing.ClassVar[DeviceSelectionCriterion]
    Random: typing.ClassVar[DeviceSelectionCriterion]
    __members__: typing.ClassVar[dict[str, DeviceSelectionCriterion]]
    @typing.overload
    def __eq__(self, other: DeviceSelectionCriterion) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: DeviceSelectionCriterion) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class DeviceInfo:
    """
    A device a session runs on, from DeviceManager. Every kind but OfflineIpu executes on the host's cores; IPU counts and tiles are reported as requested. Usable as a context manager that detaches on exit.
    """
    def __enter__(self) -> DeviceInfo:
        ...
    def __exit__(self, arg0: typing.Any, arg1: typing.Any, arg2: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __str__(self) -> str:
        ...
    def attach(self) -> bool:
        """
        Attach the device; returns False for an offline device.
        """
    def canCompileOffline(self) -> bool:
        """
        Whether sessions can be prepared for this device without running (True for every kind here).
        """
    def detach(self) -> None:
        """
        Detach the device: sessions on it can no longer run.
        """
    def getChildDeviceIds(self) -> list[int]:
        """
        The ids of the single-IPU devices it spans.
        """
    def isHwCompatible(self) -> bool:
        """
        Whether the device can run sessions: True for every kind but an offline IPU.
        """
    def setOnDemandAttachTimeout(self, seconds: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        Set how long an on-demand attach may wait, in seconds.
        """
    def tryAttachUntilTimeout(self) -> bool:
        """
        Attach, retrying until onDemandAttachTimeout; returns whether it succeeded.
        """
    @property
    def connectionType(self) -> DeviceConnectionType:
        """
        When the device attaches (a DeviceConnectionType).
        """
    @property
    def driverIds(self) -> list[int]:
        """
        The ids of the single-IPU devices it spans.
        """
    @property
    def id(self) -> int:
        """
        The device's id within its DeviceManager.
        """
    @property
    def isAttached(self) -> bool:
        """
        Whether the device is attached.
        """
    @property
    def numIpus(self) -> int:
        """
        The number of (virtual) IPUs of the device.
        """
    @property
    def numThreads(self) -> int:
        """
        Number of CPU threads sessions use (OMP_NUM_THREADS, by default every core).
        """
    @property
    def numWorkerContexts(self) -> int:
        """
        Worker contexts per tile on an IPU (reported for scripts that read it).
        """
    @property
    def onDemandAttachTimeout(self) -> int:
        """
        Seconds an on-demand attach may wait.
        """
    @property
    def options(self) -> dict[str, str]:
        """
        The options the device was created with.
        """
    @property
    def tilesPerIPU(self) -> int:
        """
        Tiles per IPU as requested (1472 by default, 1 for a CPU device); no effect on execution.
        """
    @property
    def type(self) -> DeviceType:
        """
        The kind of device (a DeviceType).
        """
    @property
    def version(self) -> str:
        """
        "cpu" for a CPU device, else the IPU version reported (default "ipu2").
        """
class DeviceManager:
    """
    Creates and hands out devices. Every DeviceManager() is the same process-wide manager. CPU, IPU-model, simulator and acquired "IPU" devices all run on the host's cores, so IPU scripts run unchanged; offline IPU devices compile but do not run.
    """
    def __init__(self) -> None:
        """
        The process-wide device manager.
        """
    def acquireAvailableDevice(self, numIpus: typing.SupportsInt | typing.SupportsIndex = 1, tilesPerIpu: typing.SupportsInt | typing.SupportsIndex = 0, pattern: SyncPattern = SyncPattern.Full, connectionType: DeviceConnectionType = DeviceConnectionType.Always, selectionCriterion: DeviceSelectionCriterion = DeviceSelectionCriterion.First) -> DeviceInfo:
        """
        A free CPU-backed "IPU" device of `numIpus` IPUs (a power of two, at most 64); raises when none is free. tilesPerIpu 0 means the default.
        """
    def acquireDeviceById(self, id: typing.SupportsInt | typing.SupportsIndex, pattern: SyncPattern = SyncPattern.Full, connectionType: DeviceConnectionType = DeviceConnectionType.Always) -> DeviceInfo:
        """
        The CPU-backed "IPU" device with the given id (see enumerateDevices); raises when it is taken.
        """
    def createCpuDevice(self) -> DeviceInfo:
        """
        A device running on the host's cores (one IPU).
        """
    def createIpuModelDevice(self, opts: dict = {}) -> DeviceInfo:
        """
        A CPU-backed IPU-model device. `opts`: dict such as {"numIPUs": 2, "tilesPerIPU": 1472} (defaults 1 and 1472).
        """
    def createOfflineIPUDevice(self, opts: dict = {}) -> DeviceInfo:
        """
        An offline IPU device: sessions can be prepared (and saved) for it but not run. `opts` as for createIpuModelDevice, plus "ipuVersion".
        """
    def createOfflineIpuFromDeviceInfo(self, deviceInfo: DeviceInfo) -> DeviceInfo:
        """
        An offline device with the IPU count, tiles and version of `deviceInfo`.
        """
    def createOfflineIpuFromSystemString(self, system: str, numIpus: typing.SupportsInt | typing.SupportsIndex) -> DeviceInfo:
        """
        An offline device for the IPU system "ipu1", "ipu2" or "ipu21" with `numIpus` IPUs.
        """
    def createSimDevice(self, opts: dict = {}) -> DeviceInfo:
        """
        A CPU-backed simulator device; `opts` as for createIpuModelDevice.
        """
    def enumerateDevices(self, pattern: SyncPattern = SyncPattern.Full, numIpus: typing.SupportsInt | typing.SupportsIndex = 1, deviceType: DeviceType = DeviceType.Ipu, connectionType: DeviceConnectionType = DeviceConnectionType.Always, tilesPerIPU: typing.SupportsInt | typing.SupportsIndex = 0) -> list[DeviceInfo]:
        """
        The devices of `numIpus` IPUs this manager offers (CPU-backed), as a list of DeviceInfo.
        """
    def getDevice(self, syncPattern: SyncPattern = SyncPattern.Full, deviceManagerId: typing.SupportsInt | typing.SupportsIndex = 0, connectionType: DeviceConnectionType = DeviceConnectionType.Always) -> DeviceInfo:
        """
        The device with id `deviceManagerId`, or None.
        """
    def setOnDemandAttachTimeout(self, attachTimeout: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        Set the on-demand attach timeout (seconds) of devices acquired from now on.
        """
    def tryAcquireAvailableDevice(self, numIpus: typing.SupportsInt | typing.SupportsIndex = 1, tilesPerIpu: typing.SupportsInt | typing.SupportsIndex = 0, pattern: SyncPattern = SyncPattern.Full, connectionType: DeviceConnectionType = DeviceConnectionType.Always, selectionCriterion: DeviceSelectionCriterion = DeviceSelectionCriterion.First) -> DeviceInfo:
        """
        As acquireAvailableDevice, but returns None instead of raising when no device is free.
        """
    def tryAcquireDeviceById(self, id: typing.SupportsInt | typing.SupportsIndex, pattern: SyncPattern = SyncPattern.Full, connectionType: DeviceConnectionType = DeviceConnectionType.Always) -> DeviceInfo:
        """
        As acquireDeviceById, but returns None instead of raising.
        """
class IStepIO:
    """
    Base class of the objects session.run() reads inputs from and writes anchors to.
    """
class PyStepIO(IStepIO):
    """
    Inputs and anchors of one session.run() as dicts of numpy arrays. Each input array holds every micro-batch of the step: leading dimensions [batchesPerStep, accumulationFactor, replicationFactor] (size-1 ones left out) before the tensor's shape. Output arrays are those of session.initAnchorArrays().
    """
    def __init__(self, inputs: collections.abc.Mapping[str, numpy.ndarray], outputs: collections.abc.Mapping[str, numpy.ndarray]) -> None:
        """
        `inputs`: dict of input tensor id to numpy array; `outputs`: dict of anchor id to a writable array. The arrays are used in place (inputs are converted to native byte order if needed).
        """
    def enableRuntimeAsserts(self, enable: bool) -> None:
        """
        With False, run() skips checking the arrays' shapes and types against the model (default: checked).
        """
class PyStepIOCallback(IStepIO):
    """
    Inputs and anchors of session.run() through Python callbacks, called for every micro-batch instead of reading whole-step arrays.
    """
    def __init__(self, input_callback: collections.abc.Callable, input_complete_callback: collections.abc.Callable, output_callback: collections.abc.Callable, output_complete_callback: collections.abc.Callable) -> None:
        """
        input_callback(id, prefetch) returns the numpy array of the next micro-batch of input `id`; input_complete_callback(id) is called once it has been read; output_callback(id) returns a writable array for the next micro-batch of anchor `id`; output_complete_callback(id) is called once it is written.
        """
class IWeightsIO:
    """
    Base class of the weight containers of readWeights/writeWeights.
    """
class PyWeightsIO(IWeightsIO):
    """
    Weights as a dict of tensor id to numpy array, for session.readWeights (filled in place) and session.writeWeights (read).
    """
    def __init__(self, weights: collections.abc.Mapping[str, numpy.ndarray]) -> None:
        """
        `weights`: dict of weight id to a contiguous numpy array of the weight's shape and type.
        """
class WeightDecayMode:
    """
    How weight decay enters an update: Decay (decoupled, as AdamW) or L2Regularization (added to the gradient).
    
    Members:
    
      Decay
    
      L2Regularization
    """
    Decay: typing.ClassVar[WeightDecayMode]
    L2Regularization: typing.ClassVar[WeightDecayMode]
    __members__: typing.ClassVar[dict[str, WeightDecayMode]]
    @typing.overload
    def __eq__(self, other: WeightDecayMode) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: WeightDecayMode) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class SGDAccumulatorAndMomentum:
    """
    Whether SGD keeps gradient accumulation and momentum in one tensor (Combined) or two (Separate).
    
    Members:
    
      Combined
    
      Separate
    """
    Combined: typing.ClassVar[SGDAccumulatorAndMomentum]
    Separate: typing.ClassVar[SGDAccumulatorAndMomentum]
    __members__: typing.ClassVar[dict[str, SGDAccumulatorAndMomentum]]
    @typing.overload
    def __eq__(self, other: SGDAccumulatorAndMomentum) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: SGDAccumulatorAndMomentum) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class AdamMode:
    """
    Variant of the Adam optimizer: Adam, AdamNoBias, AdaMax, Lamb, LambNoBias.
    
    Members:
    
      Adam
    
      AdamNoBias
    
      AdaMax
    
      Lamb
    
      LambNoBias
    """
    AdaMax: typing.ClassVar[AdamMode]
    Adam: typing.ClassVar[AdamMode]
    AdamNoBias: typing.ClassVar[AdamMode]
    Lamb: typing.ClassVar[AdamMode]
    LambNoBias: typing.ClassVar[AdamMode]
    __members__: typing.ClassVar[dict[str, AdamMode]]
    @typing.overload
    def __eq__(self, other: AdamMode) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: AdamMode) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class AdaptiveMode:
    """
    Variant of the Adaptive optimizer: AdaGrad, RMSProp, CenteredRMSProp, AdaDelta.
    
    Members:
    
      AdaGrad
    
      RMSProp
    
      CenteredRMSProp
    
      AdaDelta
    """
    AdaDelta: typing.ClassVar[AdaptiveMode]
    AdaGrad: typing.ClassVar[AdaptiveMode]
    CenteredRMSProp: typing.ClassVar[AdaptiveMode]
    RMSProp: typing.ClassVar[AdaptiveMode]
    __members__: typing.ClassVar[dict[str, AdaptiveMode]]
    @typing.overload
    def __eq__(self, other: AdaptiveMode) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: AdaptiveMode) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class OptimizerType:
    """
    Family of an optimizer: SGD, Adam or Adaptive.
    
    Members:
    
      SGD
    
      Adam
    
      Adaptive
    """
    Adam: typing.ClassVar[OptimizerType]
    Adaptive: typing.ClassVar[OptimizerType]
    SGD: typing.ClassVar[OptimizerType]
    __members__: typing.ClassVar[dict[str, OptimizerType]]
    @typing.overload
    def __eq__(self, other: OptimizerType) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: OptimizerType) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class OptimizerValue:
    """
    One optimizer hyper-parameter: a value, and whether it is constant. A constant is compiled into the update; a non-constant lives in a tensor that updateOptimizerFromHost can change without preparing the session again.
    """
    __hash__: typing.ClassVar[None] = None
    def __eq__(self, arg0: OptimizerValue) -> bool:
        ...
    @typing.overload
    def __init__(self) -> None:
        """
        The constant 0.
        """
    @typing.overload
    def __init__(self, value: typing.SupportsFloat | typing.SupportsIndex) -> None:
        """
        A constant value.
        """
    @typing.overload
    def __init__(self, value: typing.SupportsFloat | typing.SupportsIndex, isConst: bool) -> None:
        """
        A value, constant or not.
        """
    @typing.overload
    def __init__(self, valueAndIsConst: tuple[typing.SupportsFloat | typing.SupportsIndex, bool]) -> None:
        """
        From a (value, isConst) tuple.
        """
    def __repr__(self) -> str:
        ...
    def isConst(self) -> bool:
        """
        Whether the value is fixed when the session is prepared.
        """
    def val(self) -> float:
        """
        The value as a float.
        """
class OptimizerValueMap:
    """
    One hyper-parameter for every weight: a default plus per-weight values set with insertSpecific.
    """
    def get(self, weightId: str) -> OptimizerValue:
        """
        The OptimizerValue that applies to `weightId`.
        """
    def getDefault(self) -> OptimizerValue:
        """
        The OptimizerValue of weights without their own.
        """
    def getSpecifics(self) -> dict[str, OptimizerValue]:
        """
        The per-weight values, a dict of weight id to value.
        """
    def hasSpecific(self, weightId: str) -> bool:
        """
        Whether `weightId` has a value of its own.
        """
class ClipNormSettings:
    """
    Gradient clipping by global norm: the gradients of a group of weights are scaled down together when their joint L2 norm exceeds maxNorm.
    """
    @staticmethod
    def clipAllWeights(maxNorm: typing.SupportsFloat | typing.SupportsIndex) -> ClipNormSettings:
        """
        Settings clipping the gradients of every weight to the joint norm `maxNorm`.
        """
    @staticmethod
    def clipWeights(weightIds: collections.abc.Sequence[str], maxNorm: typing.SupportsFloat | typing.SupportsIndex) -> ClipNormSettings:
        """
        Settings clipping the gradients of `weightIds` to the joint norm `maxNorm`.
        """
    def __init__(self, weightIds: collections.abc.Sequence[str], maxNorm: typing.SupportsFloat | typing.SupportsIndex) -> None:
        """
        Clip the gradients of the weights `weightIds` to the joint norm `maxNorm`.
        """
    def __repr__(self) -> str:
        ...
    def getMaxNorm(self) -> float:
        """
        The largest joint gradient norm allowed.
        """
    def getWeightIds(self) -> list[str]:
        """
        The clipped weights ([] means all of them).
        """
    @property
    def maxNorm(self) -> float:
        """
        The largest joint gradient norm allowed.
        """
    @property
    def weightIds(self) -> list[str]:
        """
        The clipped weights ([] means all of them).
        """
class Optimizer:
    """
    Base class of the optimizers a TrainingSession updates weights with.
    """
    def getClipNormSettings(self) -> list[ClipNormSettings]:
        """
        The list of ClipNormSettings.
        """
    def getLossScalingVal(self) -> float:
        """
        The loss-scaling factor as a float.
        """
    def lossScaling(self) -> OptimizerValue:
        """
        The loss-scaling factor as an OptimizerValue.
        """
    def type(self) -> OptimizerType:
        """
        The family of the optimizer (an OptimizerType).
        """
    def type_s(self) -> str:
        """
        The optimizer's type as text ("SGD", "Adam", "Adaptive").
        """
class SGD(Optimizer):
    """
    Stochastic gradient descent with optional momentum, dampening, velocity scaling, weight decay, Nesterov momentum, loss scaling and gradient clipping. Each weight gets one fused update per step.
    """
    @typing.overload
    def __init__(self, params: dict, clip_norm_settings: collections.abc.Sequence[ClipNormSettings] = [], accumulatorAndMomentum: SGDAccumulatorAndMomentum = SGDAccumulatorAndMomentum.Combined, accumType: DataType = DataType.UNDEFINED, accl1Type: DataType = DataType.UNDEFINED) -> None:
        """
        `params`: dict of name to value or (value, isConst): defaultLearningRate (0.1), defaultWeightDecay (0), defaultMomentum (0), defaultDampening (0), defaultVelocityScaling (1), nesterov (0), lossScaling (1); unknown names raise. A bare value is constant. `clip_norm_settings`: list of ClipNormSettings. accumType/accl1Type: types of the accumulator and momentum tensors (UNDEFINED: the weight's).
        """
    @typing.overload
    def __init__(self, learning_rate: typing.SupportsFloat | typing.SupportsIndex) -> None:
        """
        Plain SGD with a non-constant learning rate (changeable with updateOptimizerFromHost).
        """
    def dampenings(self) -> OptimizerValueMap:
        """
        The dampenings, an OptimizerValueMap.
        """
    def getAccl1Type(self) -> DataType:
        """
        The DataType of the momentum tensor (UNDEFINED: the weight's).
        """
    def getAccumType(self) -> DataType:
        """
        The DataType of the gradient accumulator (UNDEFINED: the weight's).
        """
    def getSGDAccumulatorAndMomentum(self) -> SGDAccumulatorAndMomentum:
        """
        Whether accumulation and momentum share a tensor (SGDAccumulatorAndMomentum).
        """
    def insertSpecific(self, weightId: str, params: dict) -> None:
        """
        Give weight `weightId` its own values, e.g. {"learningRate": (0.01, False)} (names without the "default" prefix); the others keep the defaults.
        """
    def learningRates(self) -> OptimizerValueMap:
        """
        The learning rates, an OptimizerValueMap.
        """
    def momentums(self) -> OptimizerValueMap:
        """
        The momentums, an OptimizerValueMap.
        """
    def nesterov(self) -> OptimizerValueMap:
        """
        The Nesterov switches (non-zero: on), an OptimizerValueMap.
        """
    def velocityScalings(self) -> OptimizerValueMap:
        """
        The velocity scalings, an OptimizerValueMap.
        """
    def weightDecays(self) -> OptimizerValueMap:
        """
        The weight decays, an OptimizerValueMap.
        """
class ConstSGD(SGD):
    """
    SGD whose learning rate, weight decay and loss scaling are constants compiled into the session.
    """
    def __init__(self, learning_rate: typing.SupportsFloat | typing.SupportsIndex, weight_decay: typing.SupportsFloat | typing.SupportsIndex = 0.0, loss_scaling: typing.SupportsFloat | typing.SupportsIndex = 1.0, clip_norm_settings: collections.abc.Sequence[ClipNormSettings] = []) -> None:
        """
        Constant SGD: learning_rate, weight_decay (default 0), loss_scaling (default 1), clip_norm_settings (default []).
        """
class Adam(Optimizer):
    """
    Adam and its variants (AdamNoBias, AdaMax, Lamb, LambNoBias; AdamW with WeightDecayMode.Decay), with loss scaling and gradient clipping.
    """
    def __init__(self, values: dict, mode: AdamMode = AdamMode.Adam, weight_decay_mode: WeightDecayMode = WeightDecayMode.Decay, accum_type: DataType = DataType.UNDEFINED, accl1_type: DataType = DataType.FLOAT, accl2_type: DataType = DataType.FLOAT, clip_norm_settings: collections.abc.Sequence[ClipNormSettings] = [], scaled_optimizer_state: bool = False) -> None:
        """
        `values`: dict of name to value or (value, isConst): defaultLearningRate (0.1), defaultWeightDecay (0), defaultBeta1 (0.9), defaultBeta2 (0.999), defaultEps (1e-6), defaultMaxWeightNorm (10, Lamb only), lossScaling (1). `mode`: an AdamMode (default Adam); `weight_decay_mode` (default Decay); types of the accumulator and the two moment tensors (default: weight's, FLOAT, FLOAT); `scaled_optimizer_state`: keep the moments multiplied by the loss scaling (default False).
        """
    def beta1s(self) -> OptimizerValueMap:
        """
        The first-moment decay rates, an OptimizerValueMap.
        """
    def beta2s(self) -> OptimizerValueMap:
        """
        The second-moment decay rates, an OptimizerValueMap.
        """
    def epss(self) -> OptimizerValueMap:
        """
        The epsilons added to the denominator, an OptimizerValueMap.
        """
    def getAccl1Type(self) -> DataType:
        """
        The DataType of the first-moment tensor.
        """
    def getAccl2Type(self) -> DataType:
        """
        The DataType of the second-moment tensor.
        """
    def getAccumType(self) -> DataType:
        """
        The DataType of the gradient accumulator.
        """
    def getMode(self) -> AdamMode:
        """
        The variant of Adam this optimizer runs (an AdamMode).
        """
    def getWeightDecayMode(self) -> WeightDecayMode:
        """
        How weight decay is applied (a WeightDecayMode).
        """
    def insertSpecific(self, weightId: str, values: dict) -> None:
        """
        Give weight `weightId` its own values, e.g. {"beta1": (0.8, True)} (names without the "default" prefix).
        """
    def learningRates(self) -> OptimizerValueMap:
        """
        The learning rates, an OptimizerValueMap.
        """
    def maxWeightNorms(self) -> OptimizerValueMap:
        """
        Lamb's largest weight norms, an OptimizerValueMap.
        """
    def scaledOptimizerState(self) -> bool:
        """
        Whether the moments are kept multiplied by the loss scaling.
        """
    def weightDecays(self) -> OptimizerValueMap:
        """
        The weight decays, an OptimizerValueMap.
        """
class Adaptive(Optimizer):
    """
    Adaptive-learning-rate optimizers: AdaGrad, RMSProp, CenteredRMSProp and AdaDelta, with weight decay and loss scaling.
    """
    def __init__(self, values: dict, mode: AdaptiveMode = AdaptiveMode.RMSProp, weight_decay_mode: WeightDecayMode = WeightDecayMode.Decay, accum_type: DataType = DataType.UNDEFINED, accl1_type: DataType = DataType.UNDEFINED, accl2_type: DataType = DataType.UNDEFINED, accl3_type: DataType = DataType.UNDEFINED, rmsprop_tf_variant: bool = False, clip_norm_settings: collections.abc.Sequence[ClipNormSettings] = []) -> None:
        """
        `values`: dict of name to value or (value, isConst): defaultLearningRate (0.1), defaultWeightDecay (0), defaultAlpha (0.99), defaultMomentum (0), defaultEps (1e-6), lossScaling (1). `mode`: an AdaptiveMode (default RMSProp); `weight_decay_mode` (default Decay); types of the state tensors (UNDEFINED: the weight's); `rmsprop_tf_variant`: TensorFlow's RMSProp formula (default False); `clip_norm_settings`: list of ClipNormSettings (default []).
        """
    def alphas(self) -> OptimizerValueMap:
        """
        The decay rates of the squared-gradient averages, an OptimizerValueMap.
        """
    def epss(self) -> OptimizerValueMap:
        """
        The epsilons added to the denominator, an OptimizerValueMap.
        """
    def getMode(self) -> AdaptiveMode:
        """
        The variant this optimizer runs (an AdaptiveMode).
        """
    def getWeightDecayMode(self) -> WeightDecayMode:
        """
        How weight decay is applied (a WeightDecayMode).
        """
    def insertSpecific(self, weightId: str, values: dict) -> None:
        """
        Give weight `weightId` its own values (names without the "default" prefix).
        """
    def learningRates(self) -> OptimizerValueMap:
        """
        The learning rates, an OptimizerValueMap.
        """
    def momentums(self) -> OptimizerValueMap:
        """
        The momentums, an OptimizerValueMap.
        """
    def rmspropTFVariant(self) -> bool:
        """
        Whether TensorFlow's RMSProp formula is used.
        """
    def weightDecays(self) -> OptimizerValueMap:
        """
        The weight decays, an OptimizerValueMap.
        """
class OperatorIdentifier:
    """
    Identifies an op: domain ("ai.onnx", "ai.graphcore", a custom domain), type and opset version, with the numbers of inputs and outputs it takes.
    """
    def __eq__(self, arg0: OperatorIdentifier) -> bool:
        ...
    def __hash__(self) -> int:
        ...
    def __init__(self, domain: str, type: str, version: typing.SupportsInt | typing.SupportsIndex, numInputs: typing.Any = None, numOutputs: typing.SupportsInt | typing.SupportsIndex = -1) -> None:
        """
        numInputs: (min, max) inputs, None for any; numOutputs: -1 for any.
        """
    def __lt__(self, arg0: OperatorIdentifier) -> bool:
        ...
    def __ne__(self, arg0: OperatorIdentifier) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __str__(self) -> str:
        ...
    @property
    def domain(self) -> str:
        """
        The domain of the op, e.g. "ai.onnx".
        """
    @property
    def numInputs(self) -> tuple[int, int]:
        """
        The (min, max) number of inputs; -1 means unbounded.
        """
    @property
    def numOutputs(self) -> int:
        """
        The number of outputs (-1: variable).
        """
    @property
    def type(self) -> str:
        """
        The op's type name, e.g. "Relu".
        """
    @property
    def version(self) -> int:
        """
        The opset version the op was defined in.
        """
class OpDefinition:
    """
    What a registered op accepts: its inputs and outputs with their supported types, and its attributes with a pattern of allowed values.
    """
    class Input:
        """
        An input of an op: name, supported types, whether it must be constant.
        """
        def __init__(self, name: str, supportedTensors: collections.abc.Sequence[DataType], constant: bool = False) -> None:
            """
            An input `name` of the DataTypes `supportedTensors`; `constant`: known when the session is prepared.
            """
        @property
        def constant(self) -> bool:
            """
            Whether the value must be a compile-time constant.
            """
        @property
        def name(self) -> str:
            """
            The input's name.
            """
        @property
        def supportedTensors(self) -> list[DataType]:
            """
            The DataTypes accepted.
            """
    class Output:
        """
        An output of an op: name and the types it can have.
        """
        def __init__(self, name: str, supportedTensors: collections.abc.Sequence[DataType]) -> None:
            """
            An output `name` of the DataTypes `supportedTensors`.
            """
        @property
        def name(self) -> str:
            """
            The output's name.
            """
        @property
        def supportedTensors(self) -> list[DataType]:
            """
            The DataTypes it can have.
            """
    class Attribute:
        """
        An attribute of an op with a pattern of allowed values.
        """
        def __init__(self, supportedValuesRegex: str) -> None:
            """
            An attribute whose values (as text) match `supportedValuesRegex`.
            """
        @property
        def supportedValuesRegex(self) -> str:
            """
            The regular expression allowed values match ("*": any).
            """
    def __init__(self, inputs: collections.abc.Sequence[OpDefinition.Input], outputs: collections.abc.Sequence[OpDefinition.Output], attributes: collections.abc.Mapping[str, OpDefinition.Attribute]) -> None:
        """
        From lists of (name, Input), (name, Output) and (name, Attribute).
        """
    @property
    def attributes(self) -> dict[str, OpDefinition.Attribute]:
        """
        The attributes, a dict of name to Attribute.
        """
    @property
    def inputs(self) -> list[OpDefinition.Input]:
        """
        The inputs, a list of (name, Input).
        """
    @property
    def outputs(self) -> list[OpDefinition.Output]:
        """
        The outputs, a list of (name, Output).
        """
class GraphTransformer:
    """
    Whole-model rewrites of an ONNX model before it is given to a session.
    """
    def __init__(self, modelProtoOrFilename: typing.Any) -> None:
        """
        Load the model to transform (bytes or file name).
        """
    def convertAllFixedPointInitializersToConstants(self) -> None:
        """
        Turn every integer initializer into a Constant node.
        """
    def convertFloatsToHalfs(self) -> None:
        """
        Turn every FLOAT tensor, initializer and attribute into FLOAT16.
        """
    def convertInitializersToConstants(self, ids: collections.abc.Sequence[str]) -> None:
        """
        Turn the initializers `ids` into Constant nodes (they stop being weights).
        """
    def getModelProto(self) -> bytes:
        """
        The transformed model as ModelProto bytes.
        """
    def prepareNodesForTraining(self) -> None:
        """
        Give each one-output BatchNormalization node its mean and variance outputs, which training needs.
        """
    def removeUnusedInputs(self) -> None:
        """
        Remove graph inputs no node reads.
        """
    def saveInitializersExternally(self, ids: collections.abc.Sequence[str], fileName: str) -> None:
        """
        Store the data of the initializers `ids` in the external file `fileName`.
        """
class TensorRemapType:
    """
    Layouts of the ai.graphcore Remap op: FwdBwdReverse, FwdBwd, Fwd.
    
    Members:
    
      FwdBwdReverse
    
      FwdBwd
    
      Fwd
    """
    Fwd: typing.ClassVar[TensorRemapType]
    FwdBwd: typing.ClassVar[TensorRemapType]
    FwdBwdReverse: typing.ClassVar[TensorRemapType]
    __members__: typing.ClassVar[dict[str, TensorRemapType]]
    @typing.overload
    def __eq__(self, other: TensorRemapType) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: TensorRemapType) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class AnchorReturnTypeId:
    """
    Which micro-batches an anchor returns: Final, EveryN, All or Sum.
    
    Members:
    
      Final
    
      EveryN
    
      All
    
      Sum
    """
    All: typing.ClassVar[AnchorReturnTypeId]
    EveryN: typing.ClassVar[AnchorReturnTypeId]
    Final: typing.ClassVar[AnchorReturnTypeId]
    Sum: typing.ClassVar[AnchorReturnTypeId]
    __members__: typing.ClassVar[dict[str, AnchorReturnTypeId]]
    @typing.overload
    def __eq__(self, other: AnchorReturnTypeId) -> bool:
        ...
    @typing.overload
    def __eq__(self, other: typing.Any) -> bool:
        ...
    def __getstate__(self) -> int:
        ...
    def __hash__(self) -> int:
        ...
    def __index__(self) -> int:
        ...
    def __init__(self, value: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __int__(self) -> int:
        ...
    @typing.overload
    def __ne__(self, other: AnchorReturnTypeId) -> bool:
        ...
    @typing.overload
    def __ne__(self, other: typing.Any) -> bool:
        ...
    def __repr__(self) -> str:
        ...
    def __setstate__(self, state: typing.SupportsInt | typing.SupportsIndex) -> None:
        ...
    def __str__(self) -> str:
        ...
    @property
    def name(self) -> str:
        ...
    @property
    def value(self) -> int:
        ...
class AnchorReturnType:
    """
    Which values of an anchor one session.run() returns: "All" (every micro-batch: the anchor array gains a batchesPerStep dimension), "Final" (the last one), "EveryN" (every N-th, N = returnPeriod) or "Sum" (their sum).
    """
    @typing.overload
    def __init__(self, anchorReturnTypeString: str, tileSet: TileSet = TileSet.Compute, exchangeStrategy: ExchangeStrategy = ExchangeStrategy.JustInTime) -> None:
        """
        From "All", "Final" or "Sum". tileSet and exchangeStrategy are IPU placement hints, stored only.
        """
    @typing.overload
    def __init__(self, anchorReturnTypeString: str, returnPeriod: typing.SupportsInt | typing.SupportsIndex, tileSet: TileSet = TileSet.Compute, exchangeStrategy: ExchangeStrategy = ExchangeStrategy.JustInTime) -> None:
        """
        From "EveryN" and the period N (batchesPerStep must be a multiple of it).
        """
    def __repr__(self) -> str:
        ...
    def exchangeStrategy(self) -> ExchangeStrategy:
        """
        The ExchangeStrategy hint (stored only).
        """
    def id(self) -> AnchorReturnTypeId:
        """
        The kind, an AnchorReturnTypeId.
        """
    def rp(self) -> int:
        """
        The return period of EveryN (0 for the other kinds).
        """
    def str(self) -> str:
        """
        The kind as text: "All", "Final", "EveryN" or "Sum".
        """
    def tileSet(self) -> TileSet:
        """
        The TileSet hint (stored only).
        """
class DataFlow:
    """
    What one session.run() processes: batchesPerStep micro-batches, and the anchors (tensors copied back to the host) with their AnchorReturnType.
    """
    @typing.overload
    def __init__(self) -> None:
        """
        One batch per step, no anchors.
        """
    @typing.overload
    def __init__(self, batchesPerStep: typing.SupportsInt | typing.SupportsIndex, anchorTensors: collections.abc.Mapping[str, AnchorReturnType]) -> None:
        """
        `anchorTensors`: dict of tensor id to AnchorReturnType.
        """
    @typing.overload
    def __init__(self, batchesPerStep: typing.SupportsInt | typing.SupportsIndex, anchorIds: collections.abc.Sequence[str], anchorReturnType: AnchorReturnType = ...) -> None:
        """
        The tensors `anchorIds`, all with `anchorReturnType` (default AnchorReturnType("All")).
        """
    def anchors(self) -> list[str]:
        """
        The anchored tensor ids.
        """
    def art(self, anchorId: str) -> AnchorReturnType:
        """
        The AnchorReturnType of anchor `anchorId`.
        """
    def batchesPerStep(self) -> int:
        """
        The number of micro-batches per run().
        """
    def isAnchored(self, tensorId: str) -> bool:
        """
        Whether `tensorId` is an anchor.
        """
    def nAnchors(self) -> int:
        """
        The number of anchors.
        """
    def setBatchesPerStep(self, batchesPerStep: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        Change the number of micro-batches per run().
        """
class InputShapeInfo:
    """
    Types and shapes of model inputs that the model itself leaves unknown, given when a session is created.
    """
    def __init__(self) -> None:
        """
        No shapes given.
        """
    def add(self, tensorId: str, info: _TensorInfoCore) -> None:
        """
        Give input `tensorId` the TensorInfo `info`.
        """
    def get(self, tensorId: str) -> _TensorInfoCore:
        """
        The TensorInfo given for `tensorId`.
        """
    def has(self, tensorId: str) -> bool:
        """
        Whether a TensorInfo was given for `tensorId`.
        """
class _SessionCore:
    """
    Methods shared by inference and training sessions.
    """
    def _bindRemoteEntry(self, bufferId: typing.SupportsInt | typing.SupportsIndex, index: typing.SupportsInt | typing.SupportsIndex, tensorId: str) -> None:
        """
        On every local replica, entry `index` of remote buffer `bufferId` is variable `tensorId`'s device buffer.
        """
    def _readRemoteEntry(self, bufferId: typing.SupportsInt | typing.SupportsIndex, index: typing.SupportsInt | typing.SupportsIndex, replica: typing.SupportsInt | typing.SupportsIndex, entry: _TensorInfoCore, out: numpy.ndarray) -> None:
        """
        Copies entry `index` of remote buffer `bufferId` on local replica `replica` into `out`.
        """
    def _writeRemoteEntry(self, bufferId: typing.SupportsInt | typing.SupportsIndex, index: typing.SupportsInt | typing.SupportsIndex, replica: typing.SupportsInt | typing.SupportsIndex, entry: _TensorInfoCore, data: numpy.ndarray) -> None:
        """
        Sets entry `index` of remote buffer `bufferId` on local replica `replica` to the bytes of `data`.
        """
class _InferenceSessionCore(_SessionCore):
    """
    The C++ inference session; use popart.InferenceSession.
    """
    @typing.overload
    def __init__(self, fnModel: typing.Any, dataFlow: DataFlow, deviceInfo: DeviceInfo, inputShapeInfo: InputShapeInfo = ..., userOptions: SessionOptions = ..., patterns: Patterns = ..., name: str = 'inference') -> None:
        """
        An inference session for an ONNX model (bytes or file name) on `deviceInfo`.
        """
    @typing.overload
    def __init__(self, ir: _ir.Ir, deviceInfo: DeviceInfo, name: str = 'fromIr') -> None:
        """
        An inference session for an Ir built op by op (popart._internal.ir.Ir).
        """
    def _getNumpyDtype(self, arg0: str) -> numpy.dtype[typing.Any]:
        ...
    def _irDataFlow(self) -> DataFlow:
        ...
    def _irSessionOptions(self) -> SessionOptions:
        ...
    def _serializeIr(self, format: IrSerializationFormat) -> str:
        ...
    def areHostWeightsInSync(self) -> bool:
        """
        Whether the host weights equal the device weights (False after training until weightsToHost).
        """
    def broadcastWeights(self, rootRank: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        """
        Copy the weights of process rootRank to the others; within one process they are already identical.
        """
    def checkInplacingAmbiguity(self) -> None:
        """
        Raise when two in-place ops could modify one tensor in either order.
        """
    def compileAndExport(self, filename: str, err: typing.Any = None) -> None:
        """
        prepareDevice(loadEngine=False), then saveExecutable(filename). `err` is accepted and unused.
        """
    def connectStreamToCallback(self, streamHandle: str, callback: collections.abc.Callable, index: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        """
        Call callback(capsule) with a pointer to the buffer of tensor `streamHandle` each time run() writes it (an input after it is read, other tensors after their producer), for replica `index` (default 0). The callback may read or change the data.
        """
    def copyDeviceWeightsToHost(self) -> None:
        """
        weightsToHost(), unless the host weights are already in sync.
        """
    def getAllTensorIds(self) -> set[str]:
        """
        The ids of every tensor of every graph, as a set.
        """
    def getCycleCount(self, id: str = '') -> int:
        """
        Time-stamp-counter ticks (rdtsc) spent in the last run(); 0 before any run. `id` is ignored.
        """
    def getDevice(self) -> DeviceInfo:
        """
        The DeviceInfo the session runs on.
        """
    def getInfo(self, tensorId: str) -> _TensorInfoCore:
        """
        The TensorInfo (type and shape) of tensor `tensorId`.
        """
    def getIr(self) -> _ir.Ir:
        """
        The session's IR (popart._internal.ir.Ir).
        """
    def getRNGState(self) -> list[int]:
        """
        The random-number state (seed and counters) as a list of ints.
        """
    def getRandomSeed(self) -> int:
        """
        The seed set last with setRandomSeed.
        """
    def getReport(self) -> str:
        """
        The summary report, without resetting the timings.
        """
    def getSerializedGraph(self) -> bytes:
        """
        The prepared IR as JSON bytes: {"maingraph": [ops...], <subgraph>: [...]}.
        """
    def getSummaryReport(self, resetProfile: bool = True) -> str:
        """
        A text report: per op type, calls and time spent since the last reset, and the planned activation and weight memory. resetProfile (default True) clears the timings afterwards.
        """
    def getTensorIds(self) -> list[str]:
        """
        The ids of the tensors of the main graph.
        """
    def hasInfo(self, tensorId: str) -> bool:
        """
        Whether the session has a tensor `tensorId`.
        """
    def loadEngineAndConnectStreams(self) -> None:
        """
        Make a session prepared with loadEngine=False runnable.
        """
    def loadExecutable(self, filename: str) -> None:
        """
        Restore the variables saved by saveExecutable; the file must match this session's IR (checked, with a checksum).
        """
    def markHostWeightsInSync(self) -> None:
        """
        Declare the host weights equal to the device's.
        """
    def markHostWeightsOutOfSync(self) -> None:
        """
        Declare the host weights stale.
        """
    def modelToHost(self, fileName: str) -> None:
        """
        Write the ONNX model with the device's current weights (and optimizer state) to `fileName`.
        """
    def prepareDevice(self, loadEngine: bool = True) -> None:
        """
        Compile the session: prepare the IR (patterns, autodiff and optimizer updates for training, constant folding, in-placing), schedule it, plan memory, set up every kernel once and copy the weights to the device. With loadEngine False the session is compiled but not yet runnable.
        """
    def readWeights(self, weightsIo: IWeightsIO) -> None:
        """
        Copy host weights into the arrays of a PyWeightsIO (call weightsToHost first after training).
        """
    def resetHostWeights(self, modelProtoOrFilename: typing.Any, ignoreWeightsInModelWithoutCorrespondingHostWeight: bool = False) -> None:
        """
        Replace the host weights by the initializers of a model (bytes or file name) and copy them to the device. Model weights the session does not have raise unless the second argument is True.
        """
    @typing.overload
    def run(self, stepio: IStepIO, debugName: str = '') -> None:
        """
        Run one step: batchesPerStep micro-batches (times accumulation and replication) read from `stepio`, anchors written to it; training sessions also update the weights.
        """
    @typing.overload
    def run(self, programHandle: str, stepio: IStepIO, debugName: str = '') -> None:
        """
        Run the named program ("" or "main": the main program) with `stepio`.
        """
    def saveExecutable(self, path: str, savePopartMetadata: bool = True, saveVariables: bool = True) -> None:
        """
        Save the compiled session: a fingerprint of the prepared IR and, with saveVariables (default True), the weights and optimizer state. `path` is a file, or a folder to write <name>.popart_cpu into.
        """
    def saveVariables(self, path: str) -> None:
        """
        Save only the weights and optimizer state, in the executable format.
        """
    def setEngineIsLoaded(self, isLoaded: bool) -> None:
        """
        With False, the next run() reloads the engine (copying the host weights if needed).
        """
    def setRNGState(self, rngState: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> None:
        """
        Restore a state returned by getRNGState, so random ops repeat from that point.
        """
    def setRandomSeed(self, seedValue: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        Seed the random ops (Dropout, RandomNormal, ...): the same seed gives the same masks and values.
        """
    def updateEngineCache(self) -> None:
        """
        With SessionOptions.enableEngineCaching, write the executable into cachePath.
        """
    def updateExternallySavedTensorLocations(self, fromLocation: str, toLocation: str) -> None:
        """
        Make the tensors saved in the external data file `fromLocation` be read from and written to `toLocation` instead.
        """
    def weightsFromHost(self) -> None:
        """
        Copy the host weights to the device.
        """
    def weightsToHost(self) -> None:
        """
        Copy the device weights (e.g. after training) to the host weights.
        """
    def writeWeights(self, weightsIo: IWeightsIO) -> None:
        """
        Copy the arrays of a PyWeightsIO into the host weights (then weightsFromHost to use them). Refused for tensors that are compile-time constants.
        """
class _TrainingSessionCore(_SessionCore):
    """
    The C++ training session; use popart.TrainingSession.
    """
    @typing.overload
    def __init__(self, fnModel: typing.Any, dataFlow: DataFlow, loss: str, optimizer: Optimizer, deviceInfo: DeviceInfo, inputShapeInfo: InputShapeInfo = ..., userOptions: SessionOptions = ..., patterns: Patterns = ..., name: str = 'training') -> None:
        """
        A training session for an ONNX model (bytes or file name), minimising tensor `loss` with `optimizer`.
        """
    @typing.overload
    def __init__(self, ir: _ir.Ir, deviceInfo: DeviceInfo, name: str = 'fromIr', optimizer: Optimizer = None) -> None:
        """
        A training session for an Ir built op by op, with the Ir's loss and `optimizer` (or the Ir's).
        """
    def _getNumpyDtype(self, arg0: str) -> numpy.dtype[typing.Any]:
        ...
    def _irDataFlow(self) -> DataFlow:
        ...
    def _irSessionOptions(self) -> SessionOptions:
        ...
    def _serializeIr(self, format: IrSerializationFormat) -> str:
        ...
    def areHostWeightsInSync(self) -> bool:
        """
        Whether the host weights equal the device weights (False after training until weightsToHost).
        """
    def broadcastWeights(self, rootRank: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        """
        Copy the weights of process rootRank to the others; within one process they are already identical.
        """
    def checkInplacingAmbiguity(self) -> None:
        """
        Raise when two in-place ops could modify one tensor in either order.
        """
    def compileAndExport(self, filename: str, err: typing.Any = None) -> None:
        """
        prepareDevice(loadEngine=False), then saveExecutable(filename). `err` is accepted and unused.
        """
    def connectStreamToCallback(self, streamHandle: str, callback: collections.abc.Callable, index: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
        """
        Call callback(capsule) with a pointer to the buffer of tensor `streamHandle` each time run() writes it (an input after it is read, other tensors after their producer), for replica `index` (default 0). The callback may read or change the data.
        """
    def copyDeviceWeightsToHost(self) -> None:
        """
        weightsToHost(), unless the host weights are already in sync.
        """
    def getAllTensorIds(self) -> set[str]:
        """
        The ids of every tensor of every graph, as a set.
        """
    def getCycleCount(self, id: str = '') -> int:
        """
        Time-stamp-counter ticks (rdtsc) spent in the last run(); 0 before any run. `id` is ignored.
        """
    def getDevice(self) -> DeviceInfo:
        """
        The DeviceInfo the session runs on.
        """
    def getInfo(self, tensorId: str) -> _TensorInfoCore:
        """
        The TensorInfo (type and shape) of tensor `tensorId`.
        """
    def getIr(self) -> _ir.Ir:
        """
        The session's IR (popart._internal.ir.Ir).
        """
    def getRNGState(self) -> list[int]:
        """
        The random-number state (seed and counters) as a list of ints.
        """
    def getRandomSeed(self) -> int:
        """
        The seed set last with setRandomSeed.
        """
    def getReport(self) -> str:
        """
        The summary report, without resetting the timings.
        """
    def getSerializedGraph(self) -> bytes:
        """
        The prepared IR as JSON bytes: {"maingraph": [ops...], <subgraph>: [...]}.
        """
    def getSummaryReport(self, resetProfile: bool = True) -> str:
        """
        A text report: per op type, calls and time spent since the last reset, and the planned activation and weight memory. resetProfile (default True) clears the timings afterwards.
        """
    def getTensorIds(self) -> list[str]:
        """
        The ids of the tensors of the main graph.
        """
    def hasInfo(self, tensorId: str) -> bool:
        """
        Whether the session has a tensor `tensorId`.
        """
    def loadEngineAndConnectStreams(self) -> None:
        """
        Make a session prepared with loadEngine=False runnable.
        """
    def loadExecutable(self, filename: str) -> None:
        """
        Restore the variables saved by saveExecutable; the file must match this session's IR (checked, with a checksum).
        """
    def markHostWeightsInSync(self) -> None:
        """
        Declare the host weights equal to the device's.
        """
    def markHostWeightsOutOfSync(self) -> None:
        """
        Declare the host weights stale.
        """
    def modelToHost(self, fileName: str) -> None:
        """
        Write the ONNX model with the device's current weights (and optimizer state) to `fileName`.
        """
    def prepareDevice(self, loadEngine: bool = True) -> None:
        """
        Compile the session: prepare the IR (patterns, autodiff and optimizer updates for training, constant folding, in-placing), schedule it, plan memory, set up every kernel once and copy the weights to the device. With loadEngine False the session is compiled but not yet runnable.
        """
    def readWeights(self, weightsIo: IWeightsIO) -> None:
        """
        Copy host weights into the arrays of a PyWeightsIO (call weightsToHost first after training).
        """
    def resetHostWeights(self, modelProtoOrFilename: typing.Any, ignoreWeightsInModelWithoutCorrespondingHostWeight: bool = False) -> None:
        """
        Replace the host weights by the initializers of a model (bytes or file name) and copy them to the device. Model weights the session does not have raise unless the second argument is True.
        """
    @typing.overload
    def run(self, stepio: IStepIO, debugName: str = '') -> None:
        """
        Run one step: batchesPerStep micro-batches (times accumulation and replication) read from `stepio`, anchors written to it; training sessions also update the weights.
        """
    @typing.overload
    def run(self, programHandle: str, stepio: IStepIO, debugName: str = '') -> None:
        """
        Run the named program ("" or "main": the main program) with `stepio`.
        """
    def saveExecutable(self, path: str, savePopartMetadata: bool = True, saveVariables: bool = True) -> None:
        """
        Save the compiled session: a fingerprint of the prepared IR and, with saveVariables (default True), the weights and optimizer state. `path` is a file, or a folder to write <name>.popart_cpu into.
        """
    def saveVariables(self, path: str) -> None:
        """
        Save only the weights and optimizer state, in the executable format.
        """
    def setEngineIsLoaded(self, isLoaded: bool) -> None:
        """
        With False, the next run() reloads the engine (copying the host weights if needed).
        """
    def setRNGState(self, rngState: collections.abc.Sequence[typing.SupportsInt | typing.SupportsIndex]) -> None:
        """
        Restore a state returned by getRNGState, so random ops repeat from that point.
        """
    def setRandomSeed(self, seedValue: typing.SupportsInt | typing.SupportsIndex) -> None:
        """
        Seed the random ops (Dropout, RandomNormal, ...): the same seed gives the same masks and values.
        """
    def updateEngineCache(self) -> None:
        """
        With SessionOptions.enableEngineCaching, write the executable into cachePath.
        """
    def updateExternallySavedTensorLocations(self, fromLocation: str, toLocation: str) -> None:
        """
        Make the tensors saved in the external data file `fromLocation` be read from and written to `toLocation` instead.
        """
    def updateOptimizerFromHost(self, optimizer: Optimizer) -> None:
        """
        Replace the values of the non-constant hyper-parameters by those of `optimizer`, without preparing again. Changing a constant value or the optimizer's type raises an error naming it.
        """
    def weightsFromHost(self) -> None:
        """
        Copy the host weights to the device.
        """
    def weightsToHost(self) -> None:
        """
        Copy the device weights (e.g. after training) to the host weights.
        """
    def writeWeights(self, weightsIo: IWeightsIO) -> None:
        """
        Copy the arrays of a PyWeightsIO into the host weights (then weightsFromHost to use them). Refused for tensors that are compile-time constants.
        """
def _attachHostAllReduce(session: _SessionCore) -> None:
    """
    Averages the session's gradients over the processes (hostAllReduce).
    """
def _broadcastWeightsOverProcesses(session: _SessionCore, root_rank: typing.SupportsInt | typing.SupportsIndex = 0) -> None:
    ...
def _clearProcessGroup() -> None:
    ...
def _getLogLevel(arg0: str) -> str:
    ...
def _hasProcessGroup() -> bool:
    ...
def _log(arg0: str, arg1: str, arg2: str) -> None:
    ...
def _onnxRoundTrip(modelBytes: bytes) -> bytes:
    """
    Parses ModelProto bytes and serialises them again (no external data).
    """
def _onnxRoundTripFile(path: str) -> bytes:
    """
    Loads a model file (resolving external data) and serialises it.
    """
def _opSchemas() -> list:
    ...
def _operatorTable(includeInternal: bool = False) -> list:
    ...
def _processGroupAllGather(send: typing_extensions.Buffer, recv: typing_extensions.Buffer, what: str = 'a collective') -> None:
    """
    recv := every process's `send` bytes in rank order, through the registered process group (`what` names the exchange in errors).
    """
def _processGroupTransport() -> str:
    """
    What carries the registered process group's data ('' when none is registered).
    """
def _replicaVariableData(session: _SessionCore, id: str, localReplica: typing.SupportsInt | typing.SupportsIndex) -> bytes:
    """
    The bytes of variable `id` on local replica `localReplica` of the session's device.
    """
def _setLogLevel(arg0: str, arg1: str) -> None:
    ...
def _setProcessGroup(rank: typing.SupportsInt | typing.SupportsIndex, size: typing.SupportsInt | typing.SupportsIndex, allGather: collections.abc.Callable) -> None:
    """
    Registers allGather(send: memoryview, recv: memoryview) of this process's group (rank of size).
    """
def _setReplicaVariableData(session: _SessionCore, id: str, localReplica: typing.SupportsInt | typing.SupportsIndex, data: typing_extensions.Buffer) -> None:
    """
    Writes `data` (C-contiguous, the variable's bytes) to variable `id` on local replica `localReplica`.
    """
def _setShmProcessGroup(rank: typing.SupportsInt | typing.SupportsIndex, size: typing.SupportsInt | typing.SupportsIndex, name: str, timeout: typing.SupportsFloat | typing.SupportsIndex) -> None:
    """
    Registers a process group of `size` processes on this host exchanging through the POSIX shared memory `name` (the same on every process), waiting at most `timeout` seconds for the others.
    """
def getSupportedOperations(includeInternal: bool) -> list[OperatorIdentifier]:
    """
    The OperatorIdentifiers of every registered op (with includeInternal, also gradient and in-place ops).
    """
def getSupportedOperationsDefinition(includeInternal: bool) -> dict[OperatorIdentifier, OpDefinition]:
    """
    A dict of OperatorIdentifier to OpDefinition for every registered op.
    """
def getUnsupportedOperations(opsetVersion: typing.SupportsInt | typing.SupportsIndex) -> list[str]:
    """
    The ai.onnx op types defined at `opsetVersion` that no registered op implements.
    """
def packageHash() -> str:
    """
    An identifier of the source the library was built from.
    """
def reservedAccl1Prefix() -> str:
    """
    The reserved tensor-id prefix "Accl1___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedAccl2Prefix() -> str:
    """
    The reserved tensor-id prefix "Accl2___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedAccl3Prefix() -> str:
    """
    The reserved tensor-id prefix "Accl3___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedAcclFinalOutPrefix() -> str:
    """
    The reserved tensor-id prefix "AcclOut___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedAcclPrefix() -> str:
    """
    The reserved tensor-id prefix "Accl___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedAcclToReducePrefix() -> str:
    """
    The reserved tensor-id prefix "AcclToReduce___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedAcclToUpdatePrefix() -> str:
    """
    The reserved tensor-id prefix "AcclToUpdate___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedAccumPrefix() -> str:
    """
    The reserved tensor-id prefix "Accum___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedAccumulatorPrefixes() -> list[str]:
    """
    The prefixes of the gradient and optimizer accumulator tensors, as a list.
    """
def reservedAdamUpdaterPrefix() -> str:
    """
    The reserved tensor-id prefix "AdamUpdater___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedAdaptiveUpdaterPrefix() -> str:
    """
    The reserved tensor-id prefix "AdaptiveUpdater___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedConcatInitPrefix() -> str:
    """
    The reserved tensor-id prefix "ConcatInit___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedConstValuePrefix() -> str:
    """
    The reserved tensor-id prefix "ConstValue___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedCounterPrefix() -> str:
    """
    The reserved tensor-id prefix "Counter___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultAdamBeta1Prefix() -> str:
    """
    The reserved tensor-id prefix "adamBeta1___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultAdamBeta2Prefix() -> str:
    """
    The reserved tensor-id prefix "adamBeta2___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultAdamEpsPrefix() -> str:
    """
    The reserved tensor-id prefix "adamEps___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultAdamGradientScalingPrefix() -> str:
    """
    The reserved tensor-id prefix "adamGradientScaling___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultAdaptiveAlphaPrefix() -> str:
    """
    The reserved tensor-id prefix "adaptiveAlpha___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultAdaptiveEpsPrefix() -> str:
    """
    The reserved tensor-id prefix "adaptiveEps___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultAdaptiveGradientScalingPrefix() -> str:
    """
    The reserved tensor-id prefix "adaptiveGradientScaling___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultAdaptiveMomentumPrefix() -> str:
    """
    The reserved tensor-id prefix "adaptiveMomentum___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultDampeningScaleFactor1Prefix() -> str:
    """
    The reserved tensor-id prefix "dampeningScaleFactor1___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultLearningRatePrefix() -> str:
    """
    The reserved tensor-id prefix "learningRate___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultLossScalingPrefix() -> str:
    """
    The reserved tensor-id prefix "lossScaling___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultMaxWeightNormPrefix() -> str:
    """
    The reserved tensor-id prefix "maxWeightNorm___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultNesterovDampeningScaleFactor1Prefix() -> str:
    """
    The reserved tensor-id prefix "nesterovDampeningScaleFactor1___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultNesterovGradScaleFactor1Prefix() -> str:
    """
    The reserved tensor-id prefix "nesterovGradScaleFactor1___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultScaledLearningRate0Prefix() -> str:
    """
    The reserved tensor-id prefix "scaledLearningRate0___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultScaledLearningRate1Prefix() -> str:
    """
    The reserved tensor-id prefix "scaledLearningRate1___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultScaledMomentum1Prefix() -> str:
    """
    The reserved tensor-id prefix "scaledMomentum1___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultScaledWeightDecay1Prefix() -> str:
    """
    The reserved tensor-id prefix "scaledWeightDecay1___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultWeightDecayPrefix() -> str:
    """
    The reserved tensor-id prefix "weightDecay___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedDefaultWeightDecayScaleFactor0Prefix() -> str:
    """
    The reserved tensor-id prefix "weightDecayScaleFactor0___default___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedGlobalNormPrefix() -> str:
    """
    The reserved tensor-id prefix "GlobalNorm___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedGradientPrefix() -> str:
    """
    The reserved tensor-id prefix "Gradient___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedIndexPrefix() -> str:
    """
    The reserved tensor-id prefix "Index___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedInitPrefix() -> str:
    """
    The reserved tensor-id prefix "Init___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedLambR1SqPrefix() -> str:
    """
    The reserved tensor-id prefix "LambR1Sq___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedLambR2SqPrefix() -> str:
    """
    The reserved tensor-id prefix "LambR2Sq___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedLoopCondPrefix() -> str:
    """
    The reserved tensor-id prefix "LoopCond___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedLoopIteratorPrefix() -> str:
    """
    The reserved tensor-id prefix "LoopIterator___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedLossScalingPrefix() -> str:
    """
    The reserved tensor-id prefix "lossScaling_": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedLossScalingRatioPrefix() -> str:
    """
    The reserved tensor-id prefix "LossScalingRatio___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedOptimizerPrefixes() -> list[str]:
    """
    The prefixes of every optimizer state and hyper-parameter tensor, as a list.
    """
def reservedOptimizerStatePrefixes() -> list[str]:
    """
    The prefixes of the optimizer state tensors (accumulators, moments, step counters), as a list.
    """
def reservedPrefixes() -> list[str]:
    """
    Every reserved tensor-id prefix, as a list.
    """
def reservedPreviousLossScalingPrefix() -> str:
    """
    The reserved tensor-id prefix "PreviousLossScaling___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedRandomSeedPrefix() -> str:
    """
    The reserved tensor-id prefix "randomSeed___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedRemoteArgPrefix() -> str:
    """
    The reserved tensor-id prefix "RemoteArg___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedRestoredPrefix() -> str:
    """
    The reserved tensor-id prefix "Restored___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSeedModifierPrefix() -> str:
    """
    The reserved tensor-id prefix "seedModifier___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificAdamBeta1Prefix() -> str:
    """
    The reserved tensor-id prefix "adamBeta1___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificAdamBeta2Prefix() -> str:
    """
    The reserved tensor-id prefix "adamBeta2___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificAdamEpsPrefix() -> str:
    """
    The reserved tensor-id prefix "adamEps___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificAdamGradientScalingPrefix() -> str:
    """
    The reserved tensor-id prefix "adamGradientScaling___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificAdaptiveAlphaPrefix() -> str:
    """
    The reserved tensor-id prefix "adaptiveAlpha___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificAdaptiveEpsPrefix() -> str:
    """
    The reserved tensor-id prefix "adaptiveEps___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificAdaptiveGradientScalingPrefix() -> str:
    """
    The reserved tensor-id prefix "adaptiveGradientScaling___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificAdaptiveMomentumPrefix() -> str:
    """
    The reserved tensor-id prefix "adaptiveMomentum___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificDampeningScaleFactor1Prefix() -> str:
    """
    The reserved tensor-id prefix "dampeningScaleFactor1___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificLearningRatePrefix() -> str:
    """
    The reserved tensor-id prefix "learningRate___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificLossScalingPrefix() -> str:
    """
    The reserved tensor-id prefix "lossScaling___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificMaxWeightNormPrefix() -> str:
    """
    The reserved tensor-id prefix "maxWeightNorm___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificNesterovDampeningScaleFactor1Prefix() -> str:
    """
    The reserved tensor-id prefix "nesterovDampeningScaleFactor1___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificNesterovGradScaleFactor1Prefix() -> str:
    """
    The reserved tensor-id prefix "nesterovGradScaleFactor1___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificScaledLearningRate0Prefix() -> str:
    """
    The reserved tensor-id prefix "scaledLearningRate0___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificScaledLearningRate1Prefix() -> str:
    """
    The reserved tensor-id prefix "scaledLearningRate1___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificScaledMomentum1Prefix() -> str:
    """
    The reserved tensor-id prefix "scaledMomentum1___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificScaledWeightDecay1Prefix() -> str:
    """
    The reserved tensor-id prefix "scaledWeightDecay1___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificWeightDecayPrefix() -> str:
    """
    The reserved tensor-id prefix "weightDecay___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedSpecificWeightDecayScaleFactor0Prefix() -> str:
    """
    The reserved tensor-id prefix "weightDecayScaleFactor0___specific___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedStashedPrefix() -> str:
    """
    The reserved tensor-id prefix "Stashed___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedStepPrefix() -> str:
    """
    The reserved tensor-id prefix "Step___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def reservedUpdatedVarPrefix() -> str:
    """
    The reserved tensor-id prefix "UpdatedVar___": tensors the IR creates (gradients, optimizer state, ...) are named with it followed by the id they belong to.
    """
def versionNumber() -> tuple[int, int, int]:
    """
    The version as a tuple of ints (major, minor, point).
    """
def versionString() -> str:
    """
    The version of popart-cpu as text, e.g. "0.1.0".
    """
defaultAiGraphcoreOpset: int = 1
defaultAiOnnxMlOpset: int = 1
defaultAiOnnxOpset: int = 11
