"""The rule catalog: one rule a file, registered here explicitly and sorted by code."""

from __future__ import annotations

from breaklint.rule import Rule

from .autograd_call_in_region import AutogradCallInRegion
from .boolean_mask_assignment import BooleanMaskAssignment
from .c_extension_call import CExtensionCall
from .compiled_ddp_wrapper import CompiledDdpWrapper
from .compiled_module_state_change import CompiledModuleStateChange
from .complex_tensor import ComplexTensor
from .cond_in_cudagraph_region import CondInCudagraphRegion
from .cpu_tensor_in_region import CpuTensorInRegion
from .cudagraph_call_with_grad import CudagraphCallWithGrad
from .data_dependent_branch import DataDependentBranch
from .ddp_graph_split import DdpGraphSplit
from .decode_error import DecodeError
from .deepcopy_in_region import DeepcopyInRegion
from .dynamic_shape_op import DynamicShapeOp
from .exception_escapes_region import ExceptionEscapesRegion
from .explicit_graph_break import ExplicitGraphBreak
from .fake_kernel_raises import FakeKernelRaises
from .file_io import FileIo
from .fsdp_sharded_call import FsdpShardedCall
from .inference_mode_query import InferenceModeQuery
from .forced_static_shapes import ForcedStaticShapes
from .grad_mode_flip import GradModeFlip
from .growing_cudagraph_input import GrowingCudagraphInput
from .growing_input_shape import GrowingInputShape
from .guarded_global_write import GuardedGlobalWrite
from .inductor_fallback_op import InductorFallbackOp
from .internal_error import InternalError
from .iterator_argument import IteratorArgument
from .module_hook_in_region import ModuleHookInRegion
from .mutated_input import MutatedInput
from .mutated_python_state import MutatedPythonState
from .opaque_custom_op import OpaqueCustomOp
from .parameter_created_in_region import ParameterCreatedInRegion
from .per_instance_specialization import PerInstanceSpecialization
from .prebuilt_context_manager import PrebuiltContextManager
from .python_side_effect import PythonSideEffect
from .python_value_from_tensor import PythonValueFromTensor
from .requires_grad_mutation import RequiresGradMutation
from .rnn_module import RnnModule
from .side_effect_in_higher_order_op import SideEffectInHigherOrderOp
from .sparse_tensor import SparseTensor
from .syntax_error import SyntaxErrorRule
from .tensor_id import TensorId
from .tensor_to_scalar import TensorToScalar
from .unreadable_file import UnreadableFile
from .unsupported_builtin import UnsupportedBuiltin
from .untraceable_collective import UntraceableCollective
from .untraceable_numpy_call import UntraceableNumpyCall
from .untraceable_stdlib_call import UntraceableStdlibCall
from .untraceable_tensor_method import UntraceableTensorMethod
from .varying_call_argument import VaryingCallArgument
from .unused_suppression import UnusedSuppression

ALL_RULES: tuple[type[Rule], ...] = (
    SyntaxErrorRule,  # BL001
    DecodeError,  # BL002
    UnreadableFile,  # BL003
    UnusedSuppression,  # BL004
    InternalError,  # BL005
    TensorToScalar,  # BL101
    DataDependentBranch,  # BL102
    UntraceableNumpyCall,  # BL103
    DynamicShapeOp,  # BL104
    ExplicitGraphBreak,  # BL105
    PythonSideEffect,  # BL106
    UntraceableStdlibCall,  # BL107
    FileIo,  # BL108
    UnsupportedBuiltin,  # BL109
    CExtensionCall,  # BL110
    RnnModule,  # BL111
    InferenceModeQuery,  # BL112
    RequiresGradMutation,  # BL113
    ParameterCreatedInRegion,  # BL114
    SparseTensor,  # BL115
    DeepcopyInRegion,  # BL116
    UntraceableTensorMethod,  # BL117
    PythonValueFromTensor,  # BL118
    SideEffectInHigherOrderOp,  # BL119
    FakeKernelRaises,  # BL120
    ExceptionEscapesRegion,  # BL121
    IteratorArgument,  # BL122
    PrebuiltContextManager,  # BL123
    MutatedPythonState,  # BL201
    PerInstanceSpecialization,  # BL202
    TensorId,  # BL203
    GradModeFlip,  # BL204
    ForcedStaticShapes,  # BL210
    VaryingCallArgument,  # BL211
    CompiledModuleStateChange,  # BL212
    GuardedGlobalWrite,  # BL213
    GrowingInputShape,  # BL214
    AutogradCallInRegion,  # BL301
    ModuleHookInRegion,  # BL302
    InductorFallbackOp,  # BL401
    ComplexTensor,  # BL402
    OpaqueCustomOp,  # BL403
    MutatedInput,  # BL501
    CpuTensorInRegion,  # BL502
    CondInCudagraphRegion,  # BL503
    BooleanMaskAssignment,  # BL504
    GrowingCudagraphInput,  # BL505
    CudagraphCallWithGrad,  # BL506
    DdpGraphSplit,  # BL601
    UntraceableCollective,  # BL602
    CompiledDdpWrapper,  # BL603
    FsdpShardedCall,  # BL604
)
