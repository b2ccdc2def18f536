"""The study expression language: the metrics, claims, plan values and figure models of a
``study.toml`` are expressions in it.

It looks like Python but is not Python: an expression is parsed with :func:`ast.parse`, its tree is
checked against a whitelist of constructs and evaluated here, each node by a closure that does only
what its construct does; it is never compiled by Python or handed to ``eval``. An expression sees
only the names it is given (its *namespace*): it cannot reach a module, a class, an attribute of a
Python object or a builtin the namespace does not hold, so a study folder is data, safe to run
whoever wrote it.

What it has (studies/README.md, "The expression language", says the same for the reader):

* constants: numbers, strings, ``True``, ``False``, ``None``; f-strings (``f"{x:.1f}"``);
* names: those of the namespace and those a comprehension binds (none starting with ``_``);
* ``+ - * / // % **``, unary ``- + not``, ``and or``, comparisons (``< <= == != >= > in not in is
  is not``, chained), ``a if c else b``;
* lists, tuples, dicts and sets, written out or as comprehensions (``[f(x) for x in xs if
  c]``, generator expressions; a ``for`` binds names or tuples of names);
* subscripts ``xs[i]``, ``xs[i:j:k]``, ``d['key']`` on lists, tuples, strings and dicts;
* calls of the namespace's functions (with keyword arguments), and of these methods only:
  ``.get .keys .values .items`` of a dict, ``.join .split .strip .lower .upper .startswith
  .endswith`` of a string, ``.index .count`` of a list or tuple.

What an evaluation may use is bounded (:data:`LIMITS`): the text, the tree's size and depth, the
steps it takes, the elements it creates, the size of an integer and a format's width, so that no
expression can take the machine's memory or run for long.
"""

from __future__ import annotations

import ast
import functools
import itertools
import math
import operator
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

#: The bounds of one expression and one evaluation.
MAX_TEXT = 10_000  # characters of an expression
MAX_NODES = 5_000  # nodes of its syntax tree
MAX_DEPTH = 100  # nesting of its syntax tree
MAX_STEPS = 5_000_000  # steps: the nodes of each loop iteration, the elements handed to functions
MAX_ITEMS = 5_000_000  # elements (of lists, dicts, strings ...) an evaluation makes, in total
MAX_INT_BITS = 4_096  # an integer result (about 1233 decimal digits)
MAX_RANGE = 1_000_000  # elements of a range()
MAX_FORMAT = 100  # width and precision of a format specification
LIMITS = {
    "characters of an expression": MAX_TEXT,
    "nodes of its syntax tree": MAX_NODES,
    "nesting depth": MAX_DEPTH,
    "evaluation steps": MAX_STEPS,
    "elements created": MAX_ITEMS,
    "bits of an integer": MAX_INT_BITS,
    "elements of a range()": MAX_RANGE,
    "width or precision of a format": MAX_FORMAT,
}

HELP = "see studies/README.md, 'The expression language'"


class ExprError(ValueError):
    """An expression the language refuses, or one whose evaluation failed; the message is one
    line."""


class ExprRefused(ExprError):
    """The expression uses a construct the language does not have (found before it runs)."""


class ExprLimit(ExprError):
    """The evaluation passed one of the language's bounds (steps, elements, integer size ...)."""


class ExprFailed(ExprError):
    """The evaluation raised an ordinary error (a division by zero, a missing key ...); the
    message is ``"TypeName: message"`` of that error, as Python would have said it."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.error = error


def describe(e: BaseException) -> str:
    """``"TypeName: message"`` of an evaluation's error (of the wrapped one for
    :class:`ExprFailed`)."""
    if isinstance(e, ExprFailed):
        return str(e)
    return f"{type(e).__name__}: {e}"


# -- what the language has -----------------------------------------------------------------------

_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_UNARY: dict[type, Callable[[Any], Any]] = {
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
    ast.Not: operator.not_,
}
_CMPOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
    ast.Is: operator.is_,
    ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b,
    ast.NotIn: lambda a, b: a not in b,
}
#: The methods an expression may call, by the type of the value they are called on.
METHODS: dict[type, dict[str, Callable[..., Any]]] = {
    dict: {"get": dict.get, "keys": dict.keys, "values": dict.values, "items": dict.items},
    str: {
        "join": str.join,
        "split": str.split,
        "strip": str.strip,
        "lower": str.lower,
        "upper": str.upper,
        "startswith": str.startswith,
        "endswith": str.endswith,
    },
    list: {"index": list.index, "count": list.count},
    tuple: {"index": tuple.index, "count": tuple.count},
}
_METHOD_NAMES = sorted({m for ms in METHODS.values() for m in ms})
_CONSTANTS = (int, float, str, bool, type(None))

# What a refused construct is called in an error message.
_NAMES = {
    ast.Attribute: "attribute access",
    ast.Lambda: "lambda (an expression cannot define functions)",
    ast.NamedExpr: "assignment (:=)",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield from",
    ast.Starred: "* unpacking",
    ast.BitAnd: "the operator &",
    ast.BitOr: "the operator |",
    ast.BitXor: "the operator ^",
    ast.LShift: "the operator <<",
    ast.RShift: "the operator >>",
    ast.MatMult: "the operator @",
    ast.Invert: "the operator ~",
}


def _snippet(text: str, node: ast.AST) -> str:
    seg = ast.get_source_segment(text, node) or ""
    seg = " ".join(seg.split())
    return seg if len(seg) <= 60 else seg[:57] + "..."


class _Checker:
    """Checks a parsed expression against the whitelist; ``names`` (when given) are the names
    the expression may read besides those its comprehensions bind, and ``functions`` those of
    them that are functions (called, never read as a value)."""

    def __init__(
        self, text: str, names: frozenset[str] | None, functions: frozenset[str] = frozenset()
    ) -> None:
        self.text = text
        self.names = names
        self.functions = functions

    def refuse(self, node: ast.AST, what: str) -> ExprRefused:
        seg = _snippet(self.text, node)
        at = f" in `{seg}`" if seg else ""
        return ExprRefused(f"not allowed: {what}{at} ({HELP})")

    def check(self, node: ast.AST, bound: frozenset[str]) -> None:
        t = type(node)
        if t is ast.Expression:
            self.check(node.body, bound)  # type: ignore[attr-defined]
        elif t is ast.Constant:
            v = node.value  # type: ignore[attr-defined]
            if type(v) not in _CONSTANTS:
                raise self.refuse(node, f"a constant of type {type(v).__name__}")
            if isinstance(v, int) and v.bit_length() > MAX_INT_BITS:
                raise self.refuse(node, f"an integer of more than {MAX_INT_BITS} bits")
        elif t is ast.Name:
            self.name(node, node.id, bound)  # type: ignore[attr-defined]
            if node.id in self.functions and node.id not in bound:  # type: ignore[attr-defined]
                raise self.refuse(
                    node,
                    f"the function `{node.id}` as a value (a function is only called: "  # type: ignore[attr-defined]
                    f"{node.id}(...))",  # type: ignore[attr-defined]
                )
        elif t is ast.BinOp:
            if type(node.op) not in _BINOPS:  # type: ignore[attr-defined]
                raise self.refuse(node, _NAMES.get(type(node.op), "this operator"))  # type: ignore[attr-defined]
            left = node.left  # type: ignore[attr-defined]
            text_left = isinstance(left, ast.JoinedStr) or (
                isinstance(left, ast.Constant) and isinstance(left.value, str)
            )
            if isinstance(node.op, ast.Mod) and text_left:  # type: ignore[attr-defined]
                raise self.refuse(node, "% formatting of text (use an f-string)")
            self.check(node.left, bound)  # type: ignore[attr-defined]
            self.check(node.right, bound)  # type: ignore[attr-defined]
            self.constant_bounds(node)  # type: ignore[arg-type]
        elif t is ast.UnaryOp:
            if type(node.op) not in _UNARY:  # type: ignore[attr-defined]
                raise self.refuse(node, _NAMES.get(type(node.op), "this operator"))  # type: ignore[attr-defined]
            self.check(node.operand, bound)  # type: ignore[attr-defined]
        elif t is ast.BoolOp:
            for v in node.values:  # type: ignore[attr-defined]
                self.check(v, bound)
        elif t is ast.Compare:
            for op in node.ops:  # type: ignore[attr-defined]
                if type(op) not in _CMPOPS:
                    raise self.refuse(node, "this comparison")
            self.check(node.left, bound)  # type: ignore[attr-defined]
            for c in node.comparators:  # type: ignore[attr-defined]
                self.check(c, bound)
        elif t is ast.IfExp:
            for c in (node.test, node.body, node.orelse):  # type: ignore[attr-defined]
                self.check(c, bound)
        elif t in (ast.List, ast.Tuple, ast.Set):
            for e in node.elts:  # type: ignore[attr-defined]
                if isinstance(e, ast.Starred):
                    raise self.refuse(e, _NAMES[ast.Starred])
                self.check(e, bound)
        elif t is ast.Dict:
            for k, v in zip(node.keys, node.values, strict=True):  # type: ignore[attr-defined]
                if k is None:
                    raise self.refuse(v, "** unpacking")
                self.check(k, bound)
                self.check(v, bound)
        elif t in (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp):
            inner = self.comprehension(node.generators, bound)  # type: ignore[attr-defined]
            if t is ast.DictComp:
                self.check(node.key, inner)  # type: ignore[attr-defined]
                self.check(node.value, inner)  # type: ignore[attr-defined]
            else:
                self.check(node.elt, inner)  # type: ignore[attr-defined]
        elif t is ast.Subscript:
            self.check(node.value, bound)  # type: ignore[attr-defined]
            self.check(node.slice, bound)  # type: ignore[attr-defined]
        elif t is ast.Slice:
            for c in (node.lower, node.upper, node.step):  # type: ignore[attr-defined]
                if c is not None:
                    self.check(c, bound)
        elif t is ast.Call:
            self.call(node, bound)  # type: ignore[arg-type]
        elif t is ast.JoinedStr:
            for v in node.values:  # type: ignore[attr-defined]
                self.check(v, bound)
        elif t is ast.FormattedValue:
            if node.conversion not in (-1, ord("s"), ord("r"), ord("a")):  # type: ignore[attr-defined]
                raise self.refuse(node, "this conversion")
            self.check(node.value, bound)  # type: ignore[attr-defined]
            if node.format_spec is not None:  # type: ignore[attr-defined]
                self.check(node.format_spec, bound)  # type: ignore[attr-defined]
        elif t is ast.Attribute:
            attr = node.attr  # type: ignore[attr-defined]
            raise self.refuse(
                node,
                f"the attribute `.{attr}` (an expression reads no attributes; the methods it "
                f"may call are {', '.join('.' + m for m in _METHOD_NAMES)})",
            )
        else:
            raise self.refuse(node, _NAMES.get(t, f"the construct {t.__name__}"))

    def name(self, node: ast.AST, name: str, bound: frozenset[str]) -> None:
        if name.startswith("_"):
            raise self.refuse(node, f"the name `{name}` (no name starts with _)")
        if self.names is not None and name not in self.names and name not in bound:
            known = ", ".join(sorted(self.names))
            raise self.refuse(node, f"the unknown name `{name}` (known here: {known})")

    def target(self, node: ast.AST, out: set[str]) -> None:
        if isinstance(node, ast.Name):
            if node.id.startswith("_"):
                raise self.refuse(node, f"the name `{node.id}` (no name starts with _)")
            out.add(node.id)
        elif isinstance(node, ast.Tuple | ast.List):
            for e in node.elts:
                self.target(e, out)
        else:
            raise self.refuse(node, "this loop target (a `for` binds names or tuples of names)")

    def comprehension(self, gens: list[ast.comprehension], bound: frozenset[str]) -> frozenset[str]:
        for i, g in enumerate(gens):
            if g.is_async:
                raise self.refuse(g.iter, "async for")
            # The first iterable is read in the enclosing scope, the others in the loop's.
            self.check(g.iter, bound)
            names: set[str] = set()
            self.target(g.target, names)
            bound = bound | names
            for c in g.ifs:
                self.check(c, bound)
            del i
        return bound

    def call(self, node: ast.Call, bound: frozenset[str]) -> None:
        f = node.func
        if isinstance(f, ast.Name):
            if f.id in bound:
                raise self.refuse(
                    node, f"calling `{f.id}`, a loop variable (only the language's functions)"
                )
            self.name(f, f.id, bound)
        elif isinstance(f, ast.Attribute):
            if f.attr not in _METHOD_NAMES:
                raise self.refuse(
                    f,
                    f"the method `.{f.attr}` (the methods are "
                    f"{', '.join('.' + m for m in _METHOD_NAMES)})",
                )
            self.check(f.value, bound)
        else:
            raise self.refuse(node, "calling a value that is not one of the language's functions")
        for a in node.args:
            if isinstance(a, ast.Starred):
                raise self.refuse(a, _NAMES[ast.Starred])
            self.check(a, bound)
        for k in node.keywords:
            if k.arg is None:
                raise self.refuse(k.value, "** unpacking")
            if k.arg.startswith("_"):
                raise self.refuse(node, f"the keyword `{k.arg}` (no name starts with _)")
            self.check(k.value, bound)

    def constant_bounds(self, node: ast.BinOp) -> None:
        """A computation on constants alone (``10 ** 10 ** 10``, ``'x' * 10 ** 12``) that passes
        a bound is refused before anything runs."""
        plain = (
            ast.Constant
            | ast.BinOp
            | ast.UnaryOp
            | ast.List
            | ast.Tuple
            | ast.operator
            | ast.unaryop
            | ast.expr_context
        )
        if not all(isinstance(n, plain) for n in ast.walk(node)):
            return
        try:
            _Compiler().code(node, frozenset())(_State({}), {})
        except ExprLimit as e:
            raise self.refuse(node, str(e)) from None
        except Exception:  # an ordinary error (1 / 0): reported when it is evaluated
            pass


def _size_and_depth(tree: ast.AST) -> None:
    """Refuses a tree of more than MAX_NODES nodes or nested more than MAX_DEPTH deep (the
    checker and the evaluator recurse along it)."""
    count, stack = 0, [(tree, 1)]
    while stack:
        node, d = stack.pop()
        count += 1
        if count > MAX_NODES:
            raise ExprRefused(f"an expression of more than {MAX_NODES} syntax nodes")
        if d > MAX_DEPTH:
            raise ExprRefused(f"an expression nested more than {MAX_DEPTH} deep")
        for c in ast.iter_child_nodes(node):
            stack.append((c, d + 1))


@functools.lru_cache(maxsize=4096)
def parse(
    text: str, names: frozenset[str] | None = None, functions: frozenset[str] = frozenset()
) -> ast.Expression:
    """The checked syntax tree of ``text``, or :class:`ExprRefused` saying what is not allowed.
    With ``names``, a name that is neither one of them nor bound by a comprehension is
    refused too, and so is one of ``functions`` read as a value instead of called."""
    if not isinstance(text, str):
        raise ExprRefused(f"an expression is text, not {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise ExprRefused(f"an expression of {len(text)} characters (at most {MAX_TEXT})")
    if "\x00" in text:
        raise ExprRefused("a NUL character in the expression")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "invalid decimal literal" and the like
            tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as e:
        col = f" at column {e.offset}" if e.offset else ""
        raise ExprRefused(f"not an expression: {e.msg}{col}") from None
    except (RecursionError, MemoryError):
        raise ExprRefused("an expression nested too deep for the parser") from None
    except ValueError as e:
        raise ExprRefused(f"not an expression: {e}") from None
    _size_and_depth(tree)
    _Checker(text.strip(), names, functions).check(tree, frozenset())
    return tree


def check(text: str, names: Iterable[str] | None = None, functions: Iterable[str] = ()) -> None:
    """Raises :class:`ExprRefused` if ``text`` is not an expression of the language (or, with
    ``names``, reads a name it is not given, or reads one of ``functions`` as a value)."""
    parse(text, None if names is None else frozenset(names), frozenset(functions))


def evaluate(text: str, ns: Mapping[str, Any]) -> Any:
    """The value of ``text`` with the names of ``ns``. Raises :class:`ExprRefused` for a
    construct the language does not have, :class:`ExprLimit` when the evaluation passes a bound
    and :class:`ExprFailed` (wrapping the error) when it fails otherwise."""
    code = _compiled(text)
    try:
        return code(_State(ns), {})
    except ExprError:
        raise
    except RecursionError:
        raise ExprLimit("the evaluation nested too deep") from None
    except MemoryError:
        raise ExprLimit("the evaluation ran out of memory") from None
    except Exception as e:
        raise ExprFailed(e) from e


# -- the evaluator -------------------------------------------------------------------------------
#
# A checked tree is compiled once (cached with the parse) into Python closures, one per node,
# each taking the evaluation's state and the scope of the comprehension it is in. Nothing of the
# tree reaches Python's compiler: a closure does only what its node's construct does.

_CONTAINERS: tuple[type, ...] = (list, tuple, dict, set, frozenset, type({}.keys()),
                                  type({}.values()), type({}.items()))  # fmt: skip
_SEQUENCES = (list, tuple, str, range)
_SCALARS = frozenset({int, float, bool, type(None), complex})
_NUMBERS = frozenset({int, float, bool})
_CHEAP_METHODS = frozenset({dict.get, dict.keys, dict.values, dict.items})
_SIZED = (str, range, *_CONTAINERS)

Code = Callable[["_State", dict], Any]


class _State:
    """What one evaluation may still use, and the namespace it reads.

    *Steps*: each iteration of a loop counts the nodes of the loop's body, and a function,
    comparison or method counts the elements it is handed. *Items*: the elements of every list,
    tuple, dict, set and string the evaluation makes, counted deep (a list of 1000 references to
    one list of 1000 numbers is a million: that is what printing, comparing or hashing it
    costs)."""

    __slots__ = ("items", "ns", "sizes", "steps")

    def __init__(self, ns: Mapping[str, Any]) -> None:
        self.ns = ns
        self.steps = 0
        self.items = 0
        # id -> (deep size, the object, kept alive so that its id is not reused)
        self.sizes: dict[int, tuple[int, Any]] = {}

    def step(self, n: int = 1) -> None:
        self.steps += n
        if self.steps > MAX_STEPS:
            raise ExprLimit(f"the evaluation takes more than {_n(MAX_STEPS)} steps")

    def charge(self, n: int) -> None:
        self.items += n
        if self.items > MAX_ITEMS:
            raise ExprLimit(f"the evaluation makes more than {_n(MAX_ITEMS)} elements")

    def made(self, x: Any) -> Any:
        """Counts the deep size of a value the evaluation made."""
        if type(x) not in _SCALARS and isinstance(x, _SIZED):
            self.charge(self.deep(x))
        return x

    def deep(self, x: Any) -> int:
        """How many elements ``x`` holds, counting nested containers and the characters of
        strings (at most :data:`MAX_ITEMS` + 1: beyond that the count stops)."""
        if type(x) in _SCALARS:
            return 1
        if isinstance(x, str | range):
            return len(x) or 1
        if not isinstance(x, _CONTAINERS):
            return 1
        hit = self.sizes.get(id(x))
        if hit is not None:
            return hit[0]
        n = 1
        if isinstance(x, dict):
            for k, v in x.items():
                n += self.deep(k) + self.deep(v)
                if n > MAX_ITEMS:
                    break
        else:
            elements: Iterable[Any] = x
            for e in elements:
                n += self.deep(e)
                if n > MAX_ITEMS:
                    break
        n = min(n, MAX_ITEMS + 1)
        self.sizes[id(x)] = (n, x)
        return n

    def deep_all(self, xs: Iterable[Any]) -> int:
        n = 0
        for x in xs:
            n += 1 if type(x) in _SCALARS else self.deep(x)
        return n

    def room(self, v: Any) -> None:
        """Refuses to write out (``str``, ``format``, ``!r``) a value bigger than the elements
        left to make."""
        n = self.deep(v)
        if self.items + n > MAX_ITEMS:
            raise ExprLimit(f"writing out a value of more than {_n(MAX_ITEMS)} elements")
        self.step(n)

    def binop(self, op: type, a: Any, b: Any) -> Any:
        if type(a) in _SCALARS and type(b) in _SCALARS:
            if op is ast.Pow:
                _check_pow(a, b)
            elif op is ast.Mult:
                _check_mult(a, b)
            return _BINOPS[op](a, b)
        if op is ast.Mult:
            for seq, n in ((a, b), (b, a)):
                if (
                    isinstance(seq, _SEQUENCES)
                    and isinstance(n, int)
                    and n > 0
                    and self.deep(seq) * n + self.items > MAX_ITEMS
                ):
                    raise ExprLimit(f"a repetition of more than {_n(MAX_ITEMS)} elements")
        elif op is ast.Mod and isinstance(a, str | bytes):
            raise ExprRefused(f"not allowed: % formatting of text (use an f-string; {HELP})")
        elif op is ast.Add and isinstance(a, _SEQUENCES) and isinstance(b, _SEQUENCES):
            self.charge(self.deep(a) + self.deep(b))
            return _BINOPS[op](a, b)
        r = _BINOPS[op](a, b)
        return self.made(r) if isinstance(r, _SEQUENCES) else r

    def compare(self, op: type, a: Any, b: Any) -> Any:
        if type(a) not in _SCALARS or type(b) not in _SCALARS:
            if op is ast.In or op is ast.NotIn:
                self.step(self.deep(a) + self.deep(b))
            elif op is not ast.Is and op is not ast.IsNot:
                self.step(min(self.deep(a), self.deep(b)))
        return _CMPOPS[op](a, b)

    def subscript(self, obj: Any, key: Any) -> Any:
        if isinstance(obj, dict):
            if type(key) not in _SCALARS:
                self.step(self.deep(key))
            return obj[key]
        if isinstance(obj, _SEQUENCES):
            if isinstance(key, slice):
                return self.made(obj[key])
            if not isinstance(key, int):
                raise TypeError(
                    f"{type(obj).__name__} indices must be integers or slices, "
                    f"not {type(key).__name__}"
                )
            return obj[key]
        raise TypeError(f"'{type(obj).__name__}' object is not subscriptable")

    def call(self, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        try:
            fn = self.ns[name]
        except KeyError:
            raise NameError(f"name '{name}' is not defined") from None
        if not callable(fn):
            raise TypeError(f"'{name}' is not a function")
        self.steps += self.deep_all(args) + (self.deep_all(kwargs.values()) if kwargs else 0)
        if self.steps > MAX_STEPS:
            self.step(0)
        if (fn is safe_str or fn is safe_format) and args and type(args[0]) not in _SCALARS:
            self.room(args[0])  # str() and format() write out their argument
        r = fn(*args, **kwargs)
        return r if type(r) in _SCALARS else self.made(r)

    def method(self, recv: Any, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
        fn = _method(recv, name)
        if fn in _CHEAP_METHODS:
            self.step(self.deep_all(args))
            return fn(recv, *args, **kwargs)  # the dict's own values, or a view of them
        if fn is str.join and len(args) == 1 and not kwargs:
            parts = list(args[0])
            self.step(len(parts))
            self.charge(self.deep_all(parts) + len(parts) * len(recv))
            return str.join(recv, parts)
        self.step(self.deep(recv) + self.deep_all(args))
        return self.made(fn(recv, *args, **kwargs))

    def write(self, v: Any, conv: int, spec: str) -> str:
        if conv != -1 or not isinstance(v, str):
            self.room(v)
        if conv == ord("s"):
            v = str(v)
        elif conv == ord("r"):
            v = repr(v)
        elif conv == ord("a"):
            v = ascii(v)
        return self.made(safe_format(v, spec))


def _nodes(*trees: ast.AST | None) -> int:
    return sum(1 for t in trees if t is not None for n in ast.walk(t) if isinstance(n, ast.expr))


class _Compiler:
    """Makes the closures of a checked tree; ``bound`` are the names the comprehensions around
    a node bind (read from its scope), the others are read from the namespace."""

    def code(self, node: ast.AST, bound: frozenset[str]) -> Code:
        fn = getattr(self, "c_" + type(node).__name__, None)
        if fn is None:  # parse() lets no other node through
            raise ExprRefused(f"not allowed: the construct {type(node).__name__} ({HELP})")
        return fn(node, bound)

    def c_Constant(self, node: ast.Constant, bound: frozenset[str]) -> Code:
        v = node.value
        return lambda st, env: v

    def c_Name(self, node: ast.Name, bound: frozenset[str]) -> Code:
        name = node.id
        if name in bound:
            return lambda st, env: env[name]

        def read(st: _State, env: dict) -> Any:
            try:
                v = st.ns[name]
            except KeyError:
                raise NameError(f"name '{name}' is not defined") from None
            if callable(v):
                # Handed to sorted(key=...) or max(key=...), a function would be called for
                # every element by Python, where no step is counted.
                raise ExprRefused(
                    f"not allowed: the function `{name}` as a value (a function is only "
                    f"called: {name}(...); {HELP})"
                )
            return v

        return read

    def c_BinOp(self, node: ast.BinOp, bound: frozenset[str]) -> Code:
        a, b, op = self.code(node.left, bound), self.code(node.right, bound), type(node.op)
        if op is ast.Pow or op is ast.Mult:
            return lambda st, env: st.binop(op, a(st, env), b(st, env))
        f = _BINOPS[op]

        def run(st: _State, env: dict) -> Any:
            x, y = a(st, env), b(st, env)
            if type(x) in _NUMBERS and type(y) in _NUMBERS:
                return f(x, y)  # + - / // % of two numbers: nothing to bound
            return st.binop(op, x, y)

        return run

    def c_UnaryOp(self, node: ast.UnaryOp, bound: frozenset[str]) -> Code:
        a, f = self.code(node.operand, bound), _UNARY[type(node.op)]
        return lambda st, env: f(a(st, env))

    def c_BoolOp(self, node: ast.BoolOp, bound: frozenset[str]) -> Code:
        parts = [self.code(v, bound) for v in node.values]
        is_and = isinstance(node.op, ast.And)

        def run(st: _State, env: dict) -> Any:
            v = None
            for p in parts:
                v = p(st, env)
                if bool(v) is not is_and:
                    return v
            return v

        return run

    def c_Compare(self, node: ast.Compare, bound: frozenset[str]) -> Code:
        first = self.code(node.left, bound)
        rest = [
            (type(op), self.code(c, bound))
            for op, c in zip(node.ops, node.comparators, strict=True)
        ]

        def run(st: _State, env: dict) -> Any:
            left = first(st, env)
            res: Any = True
            for op, c in rest:
                right = c(st, env)
                res = st.compare(op, left, right)
                if not res:
                    return res
                left = right
            return res

        return run

    def c_IfExp(self, node: ast.IfExp, bound: frozenset[str]) -> Code:
        t, a, b = (self.code(n, bound) for n in (node.test, node.body, node.orelse))
        return lambda st, env: a(st, env) if t(st, env) else b(st, env)

    def c_List(self, node: ast.List, bound: frozenset[str]) -> Code:
        parts = [self.code(e, bound) for e in node.elts]
        return lambda st, env: st.made([p(st, env) for p in parts])

    def c_Tuple(self, node: ast.Tuple, bound: frozenset[str]) -> Code:
        parts = [self.code(e, bound) for e in node.elts]
        return lambda st, env: st.made(tuple(p(st, env) for p in parts))

    def c_Set(self, node: ast.Set, bound: frozenset[str]) -> Code:
        parts = [self.code(e, bound) for e in node.elts]
        return lambda st, env: st.made({p(st, env) for p in parts})

    def c_Dict(self, node: ast.Dict, bound: frozenset[str]) -> Code:
        pairs = [
            (self.code(k, bound), self.code(v, bound))  # type: ignore[arg-type]
            for k, v in zip(node.keys, node.values, strict=True)
        ]

        def run(st: _State, env: dict) -> Any:
            d = {}
            for k, v in pairs:
                key = k(st, env)
                d[key] = v(st, env)
            return st.made(d)

        return run

    def loops(
        self, gens: list[ast.comprehension], bound: frozenset[str], body: list[ast.AST]
    ) -> tuple[Callable[[_State, dict], Iterator[dict]], frozenset[str]]:
        """The scopes of a comprehension's iterations, and the names it binds. The first
        iterable is evaluated at once, in the enclosing scope (as Python does); the others
        lazily, in the loop's. Each iteration counts the nodes it evaluates as steps."""
        first = self.code(gens[0].iter, bound)
        levels = []
        for i, g in enumerate(gens):
            names: set[str] = set()
            _Checker("", None).target(g.target, names)
            bound = bound | names
            ifs = [self.code(c, bound) for c in g.ifs]
            nxt = self.code(gens[i + 1].iter, bound) if i + 1 < len(gens) else None
            weight = 1 + _nodes(*g.ifs) + (_nodes(gens[i + 1].iter) if nxt else _nodes(*body))
            levels.append((_binder(g.target), ifs, nxt, weight))

        def scopes(st: _State, env: dict) -> Iterator[dict]:
            scope = dict(env)
            it0 = iter(first(st, env))

            def rec(i: int, it: Iterator[Any]) -> Iterator[dict]:
                bind, ifs, nxt, weight = levels[i]
                for item in it:
                    st.steps += weight
                    if st.steps > MAX_STEPS:
                        st.step(0)
                    bind(scope, item)
                    if ifs and not all(c(st, scope) for c in ifs):
                        continue
                    if nxt is None:
                        yield scope
                    else:
                        yield from rec(i + 1, iter(nxt(st, scope)))

            return rec(0, it0)

        return scopes, bound

    def c_ListComp(self, node: ast.ListComp, bound: frozenset[str]) -> Code:
        scopes, inner = self.loops(node.generators, bound, [node.elt])
        elt = self.code(node.elt, inner)

        def run(st: _State, env: dict) -> Any:
            out = []
            for scope in scopes(st, env):
                v = elt(st, scope)
                st.charge(1 if type(v) in _SCALARS else st.deep(v))
                out.append(v)
            return out

        return run

    def c_SetComp(self, node: ast.SetComp, bound: frozenset[str]) -> Code:
        scopes, inner = self.loops(node.generators, bound, [node.elt])
        elt = self.code(node.elt, inner)

        def run(st: _State, env: dict) -> Any:
            out = set()
            for scope in scopes(st, env):
                v = elt(st, scope)
                st.charge(st.deep(v))
                out.add(v)
            return out

        return run

    def c_DictComp(self, node: ast.DictComp, bound: frozenset[str]) -> Code:
        scopes, inner = self.loops(node.generators, bound, [node.key, node.value])
        key, value = self.code(node.key, inner), self.code(node.value, inner)

        def run(st: _State, env: dict) -> Any:
            out = {}
            for scope in scopes(st, env):
                k = key(st, scope)
                v = value(st, scope)
                st.charge(st.deep(k) + st.deep(v))
                out[k] = v
            return out

        return run

    def c_GeneratorExp(self, node: ast.GeneratorExp, bound: frozenset[str]) -> Code:
        # Lazy, as Python's: all(...) and any(...) stop at the first answer, so that a claim
        # asks only for the values it reads.
        scopes, inner = self.loops(node.generators, bound, [node.elt])
        elt = self.code(node.elt, inner)
        return lambda st, env: (elt(st, scope) for scope in scopes(st, env))

    def c_Subscript(self, node: ast.Subscript, bound: frozenset[str]) -> Code:
        obj, key = self.code(node.value, bound), self.code(node.slice, bound)
        return lambda st, env: st.subscript(obj(st, env), key(st, env))

    def c_Slice(self, node: ast.Slice, bound: frozenset[str]) -> Code:
        parts = [
            None if c is None else self.code(c, bound) for c in (node.lower, node.upper, node.step)
        ]
        return lambda st, env: slice(*(None if p is None else p(st, env) for p in parts))

    def c_Call(self, node: ast.Call, bound: frozenset[str]) -> Code:
        args = [self.code(a, bound) for a in node.args]
        kws = [(str(k.arg), self.code(k.value, bound)) for k in node.keywords]
        f = node.func
        if isinstance(f, ast.Name):
            if f.id in bound or f.id.startswith("_"):
                raise ExprRefused(f"not allowed: calling `{f.id}` ({HELP})")
            name = f.id
            if not kws:
                return lambda st, env: st.call(name, [a(st, env) for a in args], {})
            return lambda st, env: st.call(
                name, [a(st, env) for a in args], {k: v(st, env) for k, v in kws}
            )
        if not isinstance(f, ast.Attribute):
            raise ExprRefused(f"not allowed: this call ({HELP})")
        recv, attr = self.code(f.value, bound), f.attr
        return lambda st, env: st.method(
            recv(st, env), attr, [a(st, env) for a in args], {k: v(st, env) for k, v in kws}
        )

    def c_JoinedStr(self, node: ast.JoinedStr, bound: frozenset[str]) -> Code:
        parts = [self.code(v, bound) for v in node.values]
        return lambda st, env: st.made("".join([str(p(st, env)) for p in parts]))

    def c_FormattedValue(self, node: ast.FormattedValue, bound: frozenset[str]) -> Code:
        v, conv = self.code(node.value, bound), node.conversion
        spec = None if node.format_spec is None else self.code(node.format_spec, bound)
        return lambda st, env: st.write(v(st, env), conv, "" if spec is None else spec(st, env))


def _binder(target: ast.AST) -> Callable[[dict, Any], None]:
    if isinstance(target, ast.Name):
        name = target.id

        def bind_name(scope: dict, item: Any) -> None:
            scope[name] = item

        return bind_name
    subs = [_binder(e) for e in target.elts]  # type: ignore[attr-defined]
    n = len(subs)

    def unpack(scope: dict, item: Any) -> None:
        vals = list(itertools.islice(iter(item), n + 1))
        if len(vals) > n:
            raise ValueError(f"too many values to unpack (expected {n})")
        if len(vals) < n:
            raise ValueError(f"not enough values to unpack (expected {n}, got {len(vals)})")
        for b, v in zip(subs, vals, strict=True):
            b(scope, v)

    return unpack


@functools.lru_cache(maxsize=4096)
def _compiled(text: str) -> Code:
    return _Compiler().code(parse(text).body, frozenset())


def _n(x: int) -> str:
    return f"{x:,}".replace(",", " ")


def _method(recv: Any, name: str) -> Callable[..., Any]:
    for t, ms in METHODS.items():
        if isinstance(recv, t):
            if name in ms:
                return ms[name]
            break
    raise TypeError(f"'{type(recv).__name__}' value has no method '{name}' in the language")


def _bits(x: Any) -> int:
    return abs(int(x)).bit_length() if isinstance(x, int) else 0


def _check_pow(a: Any, b: Any) -> None:
    # |a| ** b has about b * log2|a| bits.
    if (
        isinstance(a, int)
        and isinstance(b, int)
        and b > 0
        and abs(a) > 1
        and (b > MAX_INT_BITS or b * math.log2(abs(a)) > MAX_INT_BITS)
    ):
        raise ExprLimit(f"an integer power of more than {MAX_INT_BITS} bits")


def _check_mult(a: Any, b: Any) -> None:
    if isinstance(a, int) and isinstance(b, int) and _bits(a) + _bits(b) > MAX_INT_BITS:
        raise ExprLimit(f"an integer product of more than {MAX_INT_BITS} bits")


# -- the functions every namespace may take ------------------------------------------------------

_SPEC_NUMBERS = re.compile(r"\d+")


def safe_format(value: Any, spec: Any = "") -> str:
    """``format(value, spec)`` with the width and precision at most :data:`MAX_FORMAT`."""
    if not isinstance(spec, str):
        raise TypeError(f"format() argument 2 must be str, not {type(spec).__name__}")
    if len(spec) > 30 or any(int(n) > MAX_FORMAT for n in _SPEC_NUMBERS.findall(spec)):
        raise ExprLimit(f"a format wider or more precise than {MAX_FORMAT}: {spec[:30]!r}")
    return format(value, spec)


def safe_str(value: Any = "") -> str:
    """``str(value)`` (one argument)."""
    return str(value)


def safe_round(x: Any, ndigits: Any = None) -> Any:
    """``round(x, ndigits)`` with ``|ndigits|`` at most 400 (a float has no more digits)."""
    if ndigits is None:
        return round(x)
    if isinstance(ndigits, int) and abs(ndigits) > 400:
        raise ExprLimit("round() to more than 400 digits")
    return round(x, ndigits)


def safe_range(*args: Any) -> range:
    """``range(...)`` of at most :data:`MAX_RANGE` elements."""
    r = range(*args)
    try:
        n = len(r)
    except OverflowError:
        n = MAX_RANGE + 1
    if n > MAX_RANGE:
        raise ExprLimit(f"a range of more than {_n(MAX_RANGE)} elements")
    return r
