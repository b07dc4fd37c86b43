from __future__ import annotations

import libcst as cst

from breaklint.finding import Confidence, Stage
from breaklint.rule import (DRAWS_THAT_BREAK, dynamo_tables, is_scalar_draw, Kind, numpy_name, RNG_BREAKING_METHODS,
                            RNG_CLASS, Rule)

from ._support import bindings, called_name
from .c_extension_call import C_PACKAGES
from .file_io import CALLS as FILE_CALLS
from .unsupported_builtin import FRAME_CALLS

SKIPPED = "GB0007"  # C functions and modules on Dynamo's skip list
UNSUPPORTED_METHOD = "GB0156"  # a method of an object Dynamo models, but not this method
WHY = {SKIPPED: "is on Dynamo's skip list (a C function or a module it does not trace)",
       UNSUPPORTED_METHOD: "is a method Dynamo does not trace"}
# The standard library's C functions come from Dynamo's own trace rules (dynamo_tables.py,
# generated from torch). The Python-level ones below were read from real runs on torch 2.13
# (testdata/rules/BL107): each of these breaks the graph. `random.randint`, `random.uniform`,
# `random.randrange`, `torch.seed()`, `np.random.seed()`, reading `os.environ`/`os.getenv` and
# `os.path.join` do not, and are not listed.
CALLS = {
    # File I/O (BL108), frame introspection (BL109) and C packages (BL110) are their rules' own.
    **{name: SKIPPED for name in dynamo_tables.SKIPPED_C_FUNCTIONS
       if name not in FILE_CALLS and name not in FRAME_CALLS and name.partition(".")[0] not in C_PACKAGES},
    **{f"random.{n}": SKIPPED for n in ("random", "choice", "choices", "shuffle", "sample", "gauss",
                                         "normalvariate", "lognormvariate", "getrandbits", "betavariate",
                                         "expovariate", "triangular", "seed", "getstate")},
    **{f"uuid.{n}": SKIPPED for n in ("uuid1", "uuid4")},
    "datetime.datetime.now": UNSUPPORTED_METHOD, "datetime.datetime.utcnow": UNSUPPORTED_METHOD,
    "datetime.date.today": UNSUPPORTED_METHOD,
    **{f"torch.{n}": SKIPPED for n in ("manual_seed", "get_rng_state", "set_rng_state", "random.get_rng_state",
                                        "random.set_rng_state", "random.manual_seed")},
    "threading.current_thread": SKIPPED, "importlib.import_module": SKIPPED,
    "torch.jit.isinstance": SKIPPED,  # TorchScript's type refinement: a SkipFunctionVariable in trace_rules
}
# Writing the environment calls the C function `putenv` (os.py's _Environ.__setitem__).
ENVIRON = "os.environ"
# A lock is a C object: Dynamo has no model of it as a context manager (measured on 2.13).
LOCKS = frozenset({"threading.Lock", "threading.RLock", "_thread.allocate_lock", "threading.Condition",
                   "threading.Semaphore", "threading.BoundedSemaphore"})
UNSUPPORTED_CONTEXT = "GB0142"
# unittest's files are skipped unless torch._dynamo.config.enable_trace_unittest (check_file).
UNITTEST_CASE = "unittest.TestCase"
# A `contextvars.ContextVar`'s methods (transformers' output capturing reads one in `forward`).
CONTEXT_VAR = "contextvars.ContextVar"
CONTEXT_VAR_METHODS = frozenset({"get", "set", "reset"})
CONTEXT_VAR_HELP = ("read the context variable before the compiled call and pass the value in as an argument "
                    "(or set a plain attribute the region reads)")
SKIPPED_INLINE = "GB0008"
# NumPy draws of one Python scalar (no `size`) break; arrays are traced as torch random ops
# (breaklint/analysis/numpy_api.py). The `np.random` functions torch._numpy lacks are BL103's.


class UntraceableStdlibCall(Rule):
    """## What it does
    Finds calls in a compiled region to standard-library and RNG functions that Dynamo cannot
    trace: clocks (`time.time()`, `time.perf_counter()`, `time.sleep()`), Python's `random`
    (`random.random()`, `random.choice()`, `random.shuffle()`, `random.seed()`; on a
    `random.Random(seed)` instance, every method but `random`, `randint`, `randrange`, `uniform`
    and the state methods: `rng.choice()`, `rng.shuffle()`, `rng.sample()`), `uuid`,
    `datetime.now()`, torch's global RNG state (`torch.manual_seed`, `torch.get_rng_state`),
    NumPy scalar draws (`np.random.rand()`, `np.random.uniform(0, 1)`) and every
    `np.random.choice(...)` (torch._numpy checks its probabilities with a Python `if` on a
    tensor), `os.getpid()`,
    `gc.collect()`, `importlib.import_module()`; every other standard-library C function on
    Dynamo's skip list (the table `breaklint/analysis/dynamo_tables.py`, generated from torch's
    trace rules); a write to `os.environ[...]`; a `with` on a module-level thread lock
    (`threading.Lock()`, `RLock()`); a `contextvars.ContextVar`'s `get()`, `set()` and `reset()`
    (a name or `self.attr` bound to one: transformers' output capturing); and `unittest`
    assertions (`self.assertEqual` in a `unittest.TestCase` subclass, `_CHECKS.assertEqual` on a
    module-level `TestCase()`), whose files Dynamo skips unless `enable_trace_unittest`.

    ## Why is this bad?
    These functions are written in C or sit on Dynamo's skip list, and their results are not
    tensors: Dynamo ends the graph, calls them eagerly and resumes in a new graph. When the
    value is then used (`x * random.random()`), the resumed graph is specialised on it, so the
    next call with a new value recompiles too.

    ## How to fix
    Draw random numbers with torch (`torch.rand(())`, `torch.randint(...)`, `torch.randperm`):
    they are traced. Take times and seeds outside the compiled function and pass them in as
    tensors. `random.randint`/`random.uniform` happen to be traced in 2.13, and so are
    `rng.random()`, `rng.randint()`, `rng.randrange()` and `rng.uniform()` of a
    `rng = random.Random(seed)`: draw an index with `rng.randrange(len(options))` instead of
    `rng.choice(options)`. For
    `np.random.choice(n, k, replace=False)` use `torch.randperm(n)[:k]`; with weights,
    `torch.multinomial(p, k)`.

    ## When it is fine
    Code outside the compiled region; a one-off debug measurement.

    ## Dynamo says
    `Attempted to call function marked as skipped` (GB0007) for `time`, `random`, `uuid`, `os`,
    `gc`, `importlib`, `os.environ[...] = ...` and torch's RNG-state functions; `Attempted to
    inline function marked as skipped` (GB0008) for `unittest` assertions; `Unsupported context
    manager` (GB0142) for `with lock:`; `Unsupported method call` (GB0156) for
    `datetime.now()` and `rng.choice()` on a `random.Random` instance; `Data dependent operator` (GB0033) for NumPy scalar draws and
    `np.random.choice`. The `np.random` functions that torch._numpy lacks
    (`np.random.permutation`, `np.random.default_rng`: GB0294) are BL103's.
    """

    code = "BL107"
    name = "untraceable-stdlib-call"
    stage = Stage.DYNAMO
    message = "`{function}()` in {region} {why} and forces a graph break"
    help = (
        "use torch RNG (torch.rand, torch.randint) inside the region, or compute the value outside "
        "and pass it in as a tensor"
    )
    dynamo_says = {
        "GB0007": "Attempted to call function marked as skipped",
        "GB0008": "Attempted to inline function marked as skipped",
        "GB0142": "Unsupported context manager",
        "GB0156": "Unsupported method call",
        "GB0033": "Data dependent operator",
    }
    bad = (
        "import time\nimport torch\n\n@torch.compile\ndef f(x):\n    start = time.perf_counter()\n    return x * 2\n",
        "import random\nimport torch\n\n@torch.compile\ndef f(x):\n    return x * random.random()\n",
    )
    good = (
        "import torch\n\n@torch.compile\ndef f(x):\n    return x * torch.rand(())\n",
        "import time\nimport torch\n\ndef f(x):\n    start = time.perf_counter()  # not compiled\n    return x * 2\n",
    )

    def report(self, node: cst.CSTNode, *, confidence: Confidence, says: str | tuple[str, ...] | None = None,
               help: str | None = None, **fields: str) -> None:
        fields.setdefault("why", WHY.get(says, WHY[SKIPPED]) if isinstance(says, str) else WHY[SKIPPED])
        super().report(node, confidence=confidence, says=says, help=help, **fields)

    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            if isinstance(target.target, cst.Subscript) and self.ctx.resolve(target.target.value) == ENVIRON:
                self.report(node, confidence=Confidence.CERTAIN, says=SKIPPED, function="os.environ.__setitem__")

    def visit_With(self, node: cst.With) -> None:
        for item in node.items:
            made = self._module_binding(item.item)
            if made in LOCKS:
                self.report(item, confidence=Confidence.CERTAIN, says=UNSUPPORTED_CONTEXT, function=f"{made}.__enter__")

    def _module_binding(self, expr: cst.BaseExpression) -> str | None:
        """What a module-level name was made by, when bound once to a call (`_LOCK = threading.Lock()`)."""
        if not isinstance(expr, cst.Name) or (self.ctx.function and self.ctx.function.binds_locally(expr.value)):
            return None
        bound = self.ctx.module.assigns.get(expr.value)
        if not bound or len(bound) != 1 or not isinstance(bound[0].expr, cst.Call):
            return None
        return self.ctx.resolve(bound[0].expr.func)

    def _context_var(self, receiver: cst.BaseExpression) -> bool:
        """A name or `self.attr` bound only to `contextvars.ContextVar(...)`."""
        bound = list(bindings(self.ctx, receiver))
        return bool(bound) and all(called_name(expr, module) == CONTEXT_VAR for expr, module in bound)

    def _test_case(self, receiver: cst.BaseExpression) -> bool:
        """`self` in a method of a unittest.TestCase subclass, or a module-level
        `unittest.TestCase()`: Dynamo skips unittest's files, so the assertion is not inlined."""
        if self._module_binding(receiver) == UNITTEST_CASE:
            return True
        fn = self.ctx.function
        cls = fn.class_info if fn is not None else None
        return (cls is not None and isinstance(receiver, cst.Name) and receiver.value == fn.self_name
                and any(self.ctx.resolve(base) == UNITTEST_CASE for base in cls.bases))

    def visit_Call(self, node: cst.Call) -> None:
        func = node.func
        if isinstance(func, cst.Attribute) and func.attr.value.startswith("assert") and self._test_case(func.value):
            self.report(node, confidence=Confidence.CERTAIN, says=SKIPPED_INLINE,
                        function=f"unittest.TestCase.{func.attr.value}")
            return
        if isinstance(func, cst.Attribute) and func.attr.value in RNG_BREAKING_METHODS \
                and self.ctx.value(func.value).kind is Kind.RNG:  # the name first: values cost a pass
            self.report(node, confidence=Confidence.CERTAIN, says=UNSUPPORTED_METHOD,
                        function=f"{RNG_CLASS}.{func.attr.value}")
            return
        if isinstance(func, cst.Attribute) and func.attr.value in CONTEXT_VAR_METHODS and self._context_var(func.value):
            self.report(node, confidence=Confidence.CERTAIN, says=UNSUPPORTED_METHOD,
                        function=f"{CONTEXT_VAR}.{func.attr.value}", help=CONTEXT_VAR_HELP)
            return
        resolved = self.ctx.resolve(node.func) or ""
        if resolved in CALLS:
            self.report(node, confidence=Confidence.CERTAIN, says=CALLS[resolved], function=resolved)
            return
        name = numpy_name(resolved)
        if name is not None:
            positional = [a for a in node.args if a.keyword is None and a.star == ""]
            sized = any(a.keyword is not None and a.keyword.value == "size" for a in node.args)
            if is_scalar_draw(name, len(positional), sized) or name in DRAWS_THAT_BREAK:
                self.report(node, confidence=Confidence.CERTAIN, says="GB0033", function=resolved)
