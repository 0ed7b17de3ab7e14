"""A static check of boto3 call sites against botocore's service models: every operation the code calls must exist,
and every keyword argument (and every key of a dict or list the code builds literally, however deep) must be a member
of the operation's input shape, with string constants among an enum's values. Read from the source, so call sites that
no test reaches are checked too; the models are those of the botocore installed (the layer's pin).

What counts as a client: `client("<service>", ...)` (the adapters' `session.client`), `<session>.client("<service>")`,
a local name or a `self.<attribute>` (property or method) bound to one. A call site is `<client>.<operation>(...)`,
`<client>.get_paginator("<operation>").paginate(...)` (directly or through a name), `getattr(<client>, <name>)(...)`
whose name takes its values from a module constant, and a bound `<client>.<operation>` passed to a module function
that calls it with its own `**kwargs`. Anything else that touches a client is reported as unresolved, so a new pattern
fails the check instead of escaping it.

Values are followed through local names (assignments, `name["Key"] = …`), module constants, conditional expressions,
comprehensions and the `return` of module functions (imported ones too). A `**spread` of something unknown (a
parameter) leaves the keys it adds unknown: such spreads are listed, not guessed.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import botocore.session
from botocore import xform_name
from botocore.model import ListShape, MapShape, OperationModel, ServiceModel, Shape, StructureShape

# botocore's parameter aliases (botocore.handlers._add_parameter_aliases): (service, alias) → the modelled name it
# stands for where the operation models that name (EC2's DescribeNatGateways takes `Filters` for its `Filter`).
ALIASES = {("ec2", "Filters"): "Filter"}
NOT_OPERATIONS = {
    "get_paginator",
    "get_waiter",
    "can_paginate",
    "close",
    "meta",
    "exceptions",
    "generate_presigned_url",
}


@dataclass
class DictValue:
    keys: dict[str, list[Any]] = field(default_factory=dict)
    open: bool = False  # a spread of unknown keys went into it


@dataclass
class ListValue:
    items: list[Any] = field(default_factory=list)


@dataclass(frozen=True)
class Const:
    value: object


UNKNOWN = object()


@dataclass(frozen=True)
class Finding:
    where: str
    message: str


@dataclass
class Report:
    call_sites: list[str] = field(default_factory=list)  # "<where> <service>.<Operation>"
    parameters: int = 0  # keys checked against a shape, at any depth
    findings: list[Finding] = field(default_factory=list)
    unresolved: list[str] = field(default_factory=list)
    unknown_spreads: list[str] = field(default_factory=list)


class _Module:
    def __init__(self, name: str, source: str) -> None:
        self.name = name
        self.tree = ast.parse(source)
        self.functions = {n.name: n for n in self.tree.body if isinstance(n, ast.FunctionDef)}
        self.classes = {n.name: n for n in self.tree.body if isinstance(n, ast.ClassDef)}
        self.constants: dict[str, ast.expr] = {}
        self.imports: dict[str, tuple[str, str]] = {}
        for node in self.tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.constants[node.targets[0].id] = node.value
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                self.constants[node.target.id] = node.value
            elif isinstance(node, ast.ImportFrom) and node.module:
                for alias in node.names:
                    self.imports[alias.asname or alias.name] = (node.module, alias.name)


@dataclass
class _Scope:
    module: _Module
    function: ast.FunctionDef | None
    cls: ast.ClassDef | None
    assigned: dict[str, list[ast.expr]] = field(default_factory=dict)
    keyed: dict[str, list[tuple[str, ast.expr]]] = field(default_factory=dict)
    unpacked: dict[str, list[tuple[int, ast.expr]]] = field(default_factory=dict)
    looped: dict[str, list[ast.expr]] = field(default_factory=dict)  # `for a, b in ((x, y), ...)`: each value
    opaque: set[str] = field(default_factory=set)  # a comprehension's own names


class Checker:
    def __init__(self, modules: Mapping[str, str], models: botocore.session.Session | None = None) -> None:
        self._modules = {name: _Module(name, source) for name, source in modules.items()}
        self._session = models or botocore.session.get_session()
        self._services: dict[str, ServiceModel] = {}
        self._depth = 0
        self.report = Report()

    # --- walking ------------------------------------------------------------------------------

    def run(self) -> Report:
        for module in self._modules.values():
            for node in module.tree.body:
                if isinstance(node, ast.FunctionDef):
                    self._function(module, node, None)
                elif isinstance(node, ast.ClassDef):
                    for item in node.body:
                        if isinstance(item, ast.FunctionDef):
                            self._function(module, item, node)
        return self.report

    def _function(self, module: _Module, function: ast.FunctionDef, cls: ast.ClassDef | None) -> None:
        scope = self._scope(module, function, cls)
        handled: set[int] = set()
        for node in ast.walk(function):
            if isinstance(node, ast.Call):
                self._call(scope, node, handled)
        for node in ast.walk(function):
            if isinstance(node, ast.Attribute) and id(node) not in handled and node.attr not in NOT_OPERATIONS:
                service = self._client(scope, node.value)
                if service is not None:
                    self.report.unresolved.append(f"{self._where(module, node)} {service}.{node.attr}")

    def _scope(self, module: _Module, function: ast.FunctionDef | None, cls: ast.ClassDef | None) -> _Scope:
        scope = _Scope(module, function, cls)
        for node in ast.walk(function) if function else ():
            if isinstance(node, ast.For) and isinstance(node.target, ast.Tuple) and isinstance(node.iter, ast.Tuple):
                for row in node.iter.elts:
                    for element, value in zip(node.target.elts, getattr(row, "elts", []), strict=False):
                        if isinstance(element, ast.Name):
                            scope.looped.setdefault(element.id, []).append(value)
            targets = []
            if isinstance(node, ast.Assign):
                targets, value = node.targets, node.value
            elif isinstance(node, ast.AnnAssign) and node.value is not None:
                targets, value = [node.target], node.value
            for target in targets:
                if isinstance(target, ast.Name):
                    scope.assigned.setdefault(target.id, []).append(value)
                elif isinstance(target, ast.Tuple):
                    for index, element in enumerate(target.elts):
                        if isinstance(element, ast.Name):
                            scope.unpacked.setdefault(element.id, []).append((index, value))
                elif (
                    isinstance(target, ast.Subscript)
                    and isinstance(target.value, ast.Name)
                    and isinstance(target.slice, ast.Constant)
                    and isinstance(target.slice.value, str)
                ):
                    scope.keyed.setdefault(target.value.id, []).append((target.slice.value, value))
        return scope

    def _call(self, scope: _Scope, call: ast.Call, handled: set[int]) -> None:
        func = call.func
        if isinstance(func, ast.Attribute):
            if func.attr == "paginate":
                operation = self._paginated(scope, func.value)
                if operation is not None:
                    handled.add(id(func))
                    self._site(scope, call, *operation, paginate=True)
                return
            service = self._client(scope, func.value)
            if service is None:
                return
            handled.add(id(func))
            if func.attr == "get_paginator":
                return  # checked where it is paginated
            if func.attr not in NOT_OPERATIONS:
                self._site(scope, call, service, func.attr)
            return
        if isinstance(func, ast.Name):
            for value in scope.looped.get(func.id, []):
                if isinstance(value, ast.Attribute):
                    service = self._client(scope, value.value)
                    if service is not None:
                        handled.add(id(value))
                        self._site(scope, call, service, value.attr)
            for value in scope.assigned.get(func.id, []):
                if self._is_getattr(value):
                    service = self._client(scope, value.args[0])  # type: ignore[attr-defined]
                    if service is not None:
                        for operation in self._strings(scope, value.args[1]):  # type: ignore[attr-defined]
                            self._site(scope, call, service, operation)
            for argument in call.args:
                if isinstance(argument, ast.Attribute) and self._passes_kwargs(scope, func.id):
                    service = self._client(scope, argument.value)
                    if service is not None:
                        handled.add(id(argument))
                        self._site(scope, call, service, argument.attr, skip_positional=True)

    @staticmethod
    def _is_getattr(value: ast.expr) -> bool:
        return (
            isinstance(value, ast.Call)
            and isinstance(value.func, ast.Name)
            and value.func.id == "getattr"
            and len(value.args) == 2
        )

    def _passes_kwargs(self, scope: _Scope, name: str) -> bool:
        """A module function `f(call, **kwargs)` that calls `call(**kwargs)`."""
        function = scope.module.functions.get(name)
        return bool(function and function.args.kwarg and len(function.args.args) == 1)

    def _paginated(self, scope: _Scope, expr: ast.expr) -> tuple[str, str] | None:
        candidates = [expr]
        if isinstance(expr, ast.Name):
            candidates = scope.assigned.get(expr.id, [])
        for candidate in candidates:
            if (
                isinstance(candidate, ast.Call)
                and isinstance(candidate.func, ast.Attribute)
                and candidate.func.attr == "get_paginator"
                and candidate.args
                and isinstance(candidate.args[0], ast.Constant)
            ):
                service = self._client(scope, candidate.func.value)
                if service is not None:
                    return service, str(candidate.args[0].value)
        return None

    def _client(self, scope: _Scope, expr: ast.expr) -> str | None:
        """The service of the client `expr` evaluates to, if it is one."""
        if isinstance(expr, ast.Call):
            func = expr.func
            named = (isinstance(func, ast.Name) and func.id == "client") or (
                isinstance(func, ast.Attribute) and func.attr == "client"
            )
            if named and expr.args and isinstance(expr.args[0], ast.Constant) and isinstance(expr.args[0].value, str):
                return expr.args[0].value
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self":
                return self._member_client(scope, func.attr)
            return None
        if isinstance(expr, ast.Name):
            services = {self._client(scope, value) for value in scope.assigned.get(expr.id, [])} - {None}
            return next(iter(services)) if len(services) == 1 else None
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id == "self":
            return self._member_client(scope, expr.attr)
        return None

    def _member_client(self, scope: _Scope, name: str) -> str | None:
        """A property or method of the class that returns a client."""
        if scope.cls is None:
            return None
        for item in scope.cls.body:
            if isinstance(item, ast.FunctionDef) and item.name == name:
                inner = self._scope(scope.module, item, scope.cls)
                for node in ast.walk(item):
                    if isinstance(node, ast.Return) and node.value is not None:
                        service = self._client(inner, node.value)
                        if service is not None:
                            return service
        return None

    # --- values -------------------------------------------------------------------------------

    def _strings(self, scope: _Scope, expr: ast.expr) -> list[str]:
        """The string values an expression can take: a constant, or a name unpacked from a module dict's values."""
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return [expr.value]
        found: list[str] = []
        if isinstance(expr, ast.Name):
            for value in scope.assigned.get(expr.id, []):
                found += self._strings(scope, value)
            for index, value in scope.unpacked.get(expr.id, []):
                if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
                    table = scope.module.constants.get(value.value.id)
                    if isinstance(table, ast.Dict):
                        for entry in table.values:
                            if isinstance(entry, ast.Tuple) and isinstance(entry.elts[index], ast.Constant):
                                found.append(str(entry.elts[index].value))
        return found

    def _values(self, scope: _Scope, expr: ast.expr | None) -> list[Any]:
        if expr is None or self._depth > 12:
            return [UNKNOWN]
        self._depth += 1
        try:
            return self._evaluate(scope, expr)
        finally:
            self._depth -= 1

    def _evaluate(self, scope: _Scope, expr: ast.expr) -> list[Any]:
        if isinstance(expr, ast.Constant):
            return [Const(expr.value)]
        if isinstance(expr, ast.Dict):
            value = DictValue()
            for key, item in zip(expr.keys, expr.values, strict=True):
                if key is None:
                    self._spread(scope, value, item)
                elif isinstance(key, ast.Constant) and isinstance(key.value, str):
                    value.keys.setdefault(key.value, []).extend(self._values(scope, item))
                else:
                    value.open = True
            return [value]
        if isinstance(expr, ast.List | ast.Tuple | ast.Set):
            return [ListValue([v for element in expr.elts for v in self._values(scope, element)])]
        if isinstance(expr, ast.ListComp | ast.GeneratorExp):
            return [ListValue(self._values(self._comprehension(scope, expr), expr.elt))]
        if isinstance(expr, ast.DictComp):
            keys = self._iterated_strings(scope, expr)
            if keys is None:
                return [UNKNOWN]
            return [DictValue({key: [UNKNOWN] for key in keys})]
        if isinstance(expr, ast.IfExp):
            return self._values(scope, expr.body) + self._values(scope, expr.orelse)
        if isinstance(expr, ast.Name):
            return self._name(scope, expr.id)
        if isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name):
            return self._returned(scope, expr.func.id)
        return [UNKNOWN]

    def _spread(self, scope: _Scope, into: DictValue, item: ast.expr) -> None:
        for value in self._values(scope, item):
            if isinstance(value, DictValue):
                for key, values in value.keys.items():
                    into.keys.setdefault(key, []).extend(values)
                into.open = into.open or value.open
            else:
                into.open = True

    def _comprehension(self, scope: _Scope, expr: ast.ListComp | ast.GeneratorExp) -> _Scope:
        """The comprehension's own names are unknown values inside it."""
        inner = _Scope(scope.module, scope.function, scope.cls, scope.assigned, scope.keyed, scope.unpacked)
        inner.opaque = scope.opaque | {
            node.id
            for generator in expr.generators
            for node in ast.walk(generator.target)
            if isinstance(node, ast.Name)
        }
        return inner

    def _iterated_strings(self, scope: _Scope, expr: ast.DictComp) -> list[str] | None:
        """`{key: ... for key in CONSTANT ...}` over a module tuple of strings: its keys."""
        (generator, *rest) = expr.generators
        if rest or not (isinstance(expr.key, ast.Name) and isinstance(generator.target, ast.Name)):
            return None
        if expr.key.id != generator.target.id or not isinstance(generator.iter, ast.Name):
            return None
        constant = scope.module.constants.get(generator.iter.id)
        if isinstance(constant, ast.Tuple | ast.List) and all(isinstance(e, ast.Constant) for e in constant.elts):
            return [str(element.value) for element in constant.elts]  # type: ignore[attr-defined]
        return None

    def _name(self, scope: _Scope, name: str) -> list[Any]:
        if name in scope.opaque:
            return [UNKNOWN]
        if name in scope.assigned or name in scope.keyed:
            values = [v for expr in scope.assigned.get(name, []) for v in self._values(scope, expr)] or [DictValue()]
            for key, expr in scope.keyed.get(name, []):
                for value in values:
                    if isinstance(value, DictValue):
                        value.keys.setdefault(key, []).extend(self._values(scope, expr))
            return values
        if name in scope.module.constants:
            return self._values(_Scope(scope.module, None, None), scope.module.constants[name])
        return [UNKNOWN]

    def _returned(self, scope: _Scope, name: str) -> list[Any]:
        module, function = scope.module, scope.module.functions.get(name)
        if function is None and name in module.imports:
            source, original = module.imports[name]
            module = self._modules.get(source)  # type: ignore[assignment]
            function = module.functions.get(original) if module else None
        if function is None:
            return [UNKNOWN]
        inner = self._scope(module, function, None)
        returns = [node.value for node in ast.walk(function) if isinstance(node, ast.Return) and node.value]
        return [value for expr in returns for value in self._values(inner, expr)] or [UNKNOWN]

    # --- checking -----------------------------------------------------------------------------

    def _site(
        self,
        scope: _Scope,
        call: ast.Call,
        service: str,
        method: str,
        paginate: bool = False,
        skip_positional: bool = False,
    ) -> None:
        where = self._where(scope.module, call)
        model = self._service(service)
        if model is None:
            self.report.findings.append(Finding(where, f"unknown service {service!r}"))
            return
        names = {xform_name(name): name for name in model.operation_names}
        if method not in names:
            self.report.findings.append(Finding(where, f"{service} has no operation {method} in botocore"))
            return
        operation = model.operation_model(names[method])
        self.report.call_sites.append(f"{where} {service}.{operation.name}")
        if call.args and not skip_positional:
            self.report.findings.append(Finding(where, f"{operation.name} takes keyword arguments only"))
        arguments = DictValue()
        for keyword in call.keywords:
            if keyword.arg is None:
                self._spread(scope, arguments, keyword.value)
            else:
                arguments.keys.setdefault(keyword.arg, []).extend(self._values(scope, keyword.value))
        if arguments.open:
            self.report.unknown_spreads.append(f"{where} {service}.{operation.name}")
        self._arguments(where, operation, arguments, paginate)

    def _arguments(self, where: str, operation: OperationModel, arguments: DictValue, paginate: bool) -> None:
        shape = operation.input_shape
        members = dict(shape.members) if shape is not None else {}
        service = operation.service_model.service_name
        for given, values in arguments.keys.items():
            self.report.parameters += 1
            name = given if given in members else ALIASES.get((service, given), given)
            if paginate and name == "PaginationConfig":
                continue
            if name not in members:
                self.report.findings.append(Finding(where, f"{operation.name} has no parameter {name}"))
                continue
            for value in values:
                self._value(where, f"{operation.name}.{name}", members[name], value)

    def _value(self, where: str, path: str, shape: Shape, value: Any) -> None:
        if isinstance(value, DictValue):
            if isinstance(shape, StructureShape):
                for key, values in value.keys.items():
                    self.report.parameters += 1
                    if key not in shape.members:
                        self.report.findings.append(Finding(where, f"{path} ({shape.name}) has no member {key}"))
                        continue
                    for item in values:
                        self._value(where, f"{path}.{key}", shape.members[key], item)
            elif isinstance(shape, MapShape):
                for values in value.keys.values():
                    for item in values:
                        self._value(where, f"{path}.<value>", shape.value, item)
            else:
                self.report.findings.append(Finding(where, f"{path} is a {shape.type_name}, given a dict"))
        elif isinstance(value, ListValue):
            if not isinstance(shape, ListShape):
                self.report.findings.append(Finding(where, f"{path} is a {shape.type_name}, given a list"))
                return
            for item in value.items:
                self._value(where, f"{path}[]", shape.member, item)
        elif isinstance(value, Const) and isinstance(value.value, str) and shape.enum and value.value not in shape.enum:
            self.report.findings.append(Finding(where, f"{path} must be one of {shape.enum}, not {value.value!r}"))

    def _service(self, service: str) -> ServiceModel | None:
        if service not in self._services:
            try:
                self._services[service] = self._session.get_service_model(service)
            except botocore.exceptions.UnknownServiceError:
                return None
        return self._services[service]

    @staticmethod
    def _where(module: _Module, node: ast.AST) -> str:
        return f"{module.name}:{getattr(node, 'lineno', 0)}"


def lambda_modules(functions: Path) -> dict[str, str]:
    """Every module of the Lambda asset (functions/ minus infra and sandbox), by dotted name."""
    modules = {}
    for path in sorted(functions.rglob("*.py")):
        relative = path.relative_to(functions)
        if relative.parts[0] in ("infra", "sandbox"):
            continue
        name = ".".join(relative.with_suffix("").parts).removesuffix(".__init__")
        modules[name] = path.read_text()
    return modules


def sdk_integrations(statemachines: Path) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """(file, service, Action, Parameters) of every `aws-sdk:` Task in the ASL definitions, at any depth."""

    def walk(node: Any) -> Iterator[dict[str, Any]]:
        if isinstance(node, dict):
            if node.get("Type") == "Task":
                yield node
            for item in node.values():
                yield from walk(item)
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)

    for path in sorted(statemachines.glob("*.asl.json")):
        for task in walk(json.loads(path.read_text())):
            resource = str(task.get("Resource", ""))
            if ":states:::aws-sdk:" in resource:
                service, action = resource.split(":states:::aws-sdk:", 1)[1].split(".")[0].split(":")[:2]
                yield path.name, service, action, task.get("Parameters") or {}
