"""Regenerate breaklint/analysis/dynamo_tables.py from the installed torch (run by hand after a torch bump).

    python tools/gen_dynamo_tables.py > breaklint/analysis/dynamo_tables.py

`breaklint check` must not import torch, so what Dynamo's trace rules decide about a callable
(torch/_dynamo/trace_rules.py, its polyfills and its graph-break registry) is read here once and
committed as plain data. Each table answers one question the rules ask:

- SKIPPED_C_FUNCTIONS: a function of a standard-library module, written in C (it has no Python
  code Dynamo could inline) that Dynamo neither models as a builtin nor polyfills: it sits on
  the skip list, and a call breaks the graph ("Attempted to call function marked as skipped").
- SKIPPED_MODULES: the modules whose Python functions Dynamo skips (BUILTIN_SKIPLIST,
  THIRDPARTY_SKIPLIST, and `unittest`, which check_file skips unless enable_trace_unittest).
- POLYFILLED: builtins and stdlib functions Dynamo replaces with a traceable Python version.
- TORCH_C_TRACED: the `torch._C` functions Dynamo has a rule for (in-graph or handled); any
  other `torch._C` function is C code without a rule, and a call is skipped (a break).
- DYNAMIC_OUTPUT_OPS: ATen ops whose output shape depends on their input's values.
- TORCH_C_QUERIES_THAT_BREAK: `torch._C` settings queries that break (run through Dynamo).
- GB_TYPES: each graph-break id's Gb_type, as the registry of this torch states it.
"""

from __future__ import annotations

import importlib
import inspect
import json
import re
import textwrap
import types
from pathlib import Path

import torch
import torch._dynamo  # noqa: F401  (loads the polyfills, which edit the builtin tables)
from torch._dynamo import trace_rules
from torch._dynamo.variables import SkipFunctionVariable

# The standard-library modules the rules look at: clocks, process and OS state, threads, tests,
# frames, hashing and compression. A module only matters when user code in a region can call it.
STDLIB = ("time", "os", "gc", "uuid", "threading", "_thread", "inspect", "sys", "zlib", "hashlib",
          "binascii", "lzma", "bz2", "socket", "select", "signal", "resource", "faulthandler",
          "tracemalloc", "platform", "getpass", "pickle", "marshal", "atexit", "weakref")


def _public(module: types.ModuleType) -> list[tuple[str, object]]:
    return [(name, getattr(module, name)) for name in sorted(dir(module))
            if not name.startswith("_") and callable(getattr(module, name, None))]


def _special_cased() -> set[str]:
    """Callables VariableBuilder wraps by identity before any trace rule (`value is sys.exc_info`)."""
    from torch._dynamo.variables import builder

    source = Path(builder.__file__).read_text(encoding="utf-8")
    return set(re.findall(r"value is ([a-z_]+\.[A-Za-z_]+)\b", source))


def skipped_c_functions() -> list[str]:
    special = _special_cased()
    found = []
    for module_name in STDLIB:
        module = importlib.import_module(module_name)
        for name, obj in _public(module):
            if inspect.isclass(obj) or not isinstance(obj, types.BuiltinFunctionType):
                continue  # Python code is inlined (or skipped by module, below); classes are built
            if not isinstance(getattr(obj, "__self__", module), types.ModuleType):
                continue  # a method of a value (`iskeyword` is `frozenset.__contains__`): modelled
            if f"{module_name}.{name}" in special:
                continue
            if trace_rules.is_builtin_callable(obj) or trace_rules.is_polyfilled_callable(obj):
                continue
            if trace_rules.lookup(obj) is SkipFunctionVariable:
                found.append(f"{module_name}.{name}")
    return found


def skipped_modules() -> list[str]:
    names = {m.__name__ for m in trace_rules.BUILTIN_SKIPLIST} | set(trace_rules.THIRDPARTY_SKIPLIST)
    return sorted(names | {"unittest"})


def polyfilled() -> list[str]:
    from torch._dynamo.polyfills import loader

    names = set()
    for module in loader.POLYFILLED_MODULES:
        for handler_name in module.__all__:
            original = getattr(module, handler_name).__torch_dynamo_original__
            owner = getattr(original, "__module__", None) or module.__name__.rpartition(".")[2].lstrip("_")
            names.add(f"{owner}.{getattr(original, '__qualname__', handler_name)}")
    return sorted(names)


def torch_c_traced() -> list[str]:
    names = set()
    for table in trace_rules.torch_name_rule_map:
        for key, rule in table.items():  # type: ignore[attr-defined]
            if key.startswith("torch._C.") and rule is not SkipFunctionVariable:
                names.add(key)
    return sorted(names)


# torch._C's settings queries (`torch._C._get_cudnn_enabled()`): Dynamo lists them as in-graph
# functions, but one whose result is a Python value it does not fold breaks the graph
# ("torch.* op returned non-Tensor"). Which ones do is not written in any table, so each query
# that takes no argument is run once through Dynamo here, and what it said is recorded.
QUERY = re.compile(r"torch\._C\._(get|is|are|has|can)_?[A-Za-z]")


def torch_c_queries_that_break() -> dict[str, str]:
    from breaklint.confirm.capture import capture_dynamo

    found = {}
    for name in sorted(trace_rules.torch_c_binding_in_graph_functions):
        if not QUERY.match(name) or name.count(".") != 2:
            continue
        query = trace_rules.load_object(name)
        try:
            query()
        except Exception:
            continue  # needs arguments (or a device this machine lacks): not a zero-argument query

        def probe(x: torch.Tensor, query=query) -> torch.Tensor:  # type: ignore[no-untyped-def]
            query()
            return x * 2

        torch._dynamo.reset()
        with capture_dynamo() as capture:
            torch.compile(probe, backend="eager")(torch.ones(2))
        ids = sorted({b.gb_id for b in capture.graph_breaks if b.gb_id})
        if ids:
            found[name] = ids[0]
    return found


def dynamic_output_ops() -> list[str]:
    """ATen ops torch tags `dynamic_output_shape`: their fake kernel cannot size the output, so
    Dynamo breaks on them unless capture_dynamic_output_shape_ops ("Dynamic shape operator")."""
    names = set()
    for schema in torch._C._jit_get_all_schemas():
        if not schema.name.startswith("aten::"):
            continue
        packet = getattr(torch.ops.aten, schema.name[len("aten::"):], None)
        op = getattr(packet, schema.overload_name or "default", None) if packet is not None else None
        if op is not None and torch.Tag.dynamic_output_shape in op.tags:
            names.add(schema.name[len("aten::"):])
    return sorted(names)


def gb_types() -> dict[str, str]:
    registry = json.loads((Path(trace_rules.__file__).parent / "graph_break_registry.json").read_text())
    return {gb_id: entries[0]["Gb_type"] for gb_id, entries in sorted(registry.items())}  # newest first


def _set(name: str, values: list[str], why: str) -> str:
    body = textwrap.fill(", ".join(f'"{v}"' for v in values), 96, initial_indent="    ", subsequent_indent="    ")
    return f"# {why}\n{name} = frozenset({{\n{body}\n}})\n"


def main() -> None:
    version = torch.__version__.split("+")[0]
    print(f'"""What Dynamo\'s trace rules decide, read from torch {version} (torch/_dynamo/trace_rules.py,\n'
          'its polyfills and graph_break_registry.json).\n\n'
          'Generated by tools/gen_dynamo_tables.py; do not edit by hand."""\n')
    print(f'TORCH_VERSION = "{version}"\n')
    print(_set("SKIPPED_C_FUNCTIONS", skipped_c_functions(),
               "Standard-library C functions on Dynamo's skip list: a call breaks (GB0007)."))
    print(_set("SKIPPED_MODULES", skipped_modules(), "Modules whose Python functions Dynamo skips."))
    print(_set("POLYFILLED", polyfilled(), "Builtins and stdlib functions Dynamo traces through a polyfill."))
    print(_set("TORCH_C_TRACED", torch_c_traced(), "torch._C functions Dynamo has a tracing rule for."))
    print(_set("DYNAMIC_OUTPUT_OPS", dynamic_output_ops(), "ATen ops tagged dynamic_output_shape."))
    print("# torch._C queries that break when called in a region (run through Dynamo by the generator).")
    print("TORCH_C_QUERIES_THAT_BREAK = {")
    for name, gb_id in torch_c_queries_that_break().items():
        print(f"    {name!r}: {gb_id!r},")
    print("}\n")
    print("# Each graph-break id's Gb_type (the registry's newest entry for it, listed first).")
    print("GB_TYPES = {")
    for gb_id, gb_type in gb_types().items():
        print(f"    {gb_id!r}: {gb_type!r},")
    print("}")


if __name__ == "__main__":
    main()
