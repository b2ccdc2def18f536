"""A study folder is data (issue #37, docs/reliability.md "A study folder is data"): whoever wrote
it, `bufferlab study run` never runs its text as code, never writes outside its output folders,
and never puts its text on the docs site as HTML.

* Expressions (metrics, claims, plan values, figure models) are a small language walked by
  `bufferlab.study.expr`, not Python's `eval`: the escapes that reached `os.system` through
  `eval` with empty builtins are refused when the study is loaded, with exit code 2 and one line
  naming the field; evaluation is bounded in steps, elements and integer size.
* A study's text (titles, labels, claims, evidence, discussion.md) is escaped on its page.
* A name that would make a file (the study's folder, a figure id) cannot leave the folder, and a
  file the study names (scenario, published.json) must be inside the study's folder.
* Hypothesis throws random and hostile expressions and texts at all of it.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
import sys
import time
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import markdown
import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bufferlab.study import expr
from bufferlab.study.spec import (
    CLAIM_NAMES,
    METRIC_NAMES,
    MODEL_NAMES,
    PLAN_NAMES,
    VLINE_NAMES,
    StudyError,
    load_study,
)
from conftest import POISSON, run_cli

# -- a small study ---------------------------------------------------------------------------------


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def make_study(root: Path, name: str = "small", discussion: str | None = None, **over: Any) -> Path:
    """``root/name``: a two-point study of a 3 s Poisson dumbbell with one metric, table, figure
    and claim; ``over`` replaces parts of its study.toml."""
    d = root / name
    d.mkdir(parents=True)
    (d / "scenario.toml").write_text(POISSON)
    doc: dict[str, Any] = {
        "study": {"title": "A small study", "paper": "none", "summary": "Two buffer sizes."},
        "experiment": [
            {
                "name": "main",
                "scenario": "scenario.toml",
                "replications": 1,
                "params": {
                    "limit": {"values": [10, 20], "set": {"links.bottleneck.queue.limit": "{}p"}}
                },
            }
        ],
        "metrics": {"gp": {"expr": "flow('p', 'goodput_bps') / 1e6", "label": "goodput"}},
        "table": [
            {"id": "Table 1", "title": "goodput", "experiment": "main", "rows": ["limit"],
             "columns": ["gp"]}
        ],
        "figure": [
            {"id": "Figure 1", "title": "goodput", "experiment": "main", "kind": "line",
             "x": "limit", "y": "gp"}
        ],
        "claim": [
            {"text": "goodput is positive", "check": "m('gp', limit=20) > 0",
             "evidence": "{m('gp', limit=20):.2f} Mbit/s"}
        ],
    }  # fmt: skip
    (d / "study.toml").write_text(tomli_w.dumps(_merge(doc, over)))
    if discussion is not None:
        (d / "discussion.md").write_text(discussion)
    return d


def run_study(studies: Path, name: str, tmp: Path, *more: str) -> Any:
    return run_cli(
        "study", "run", name, "--tiny", "--studies", str(studies), "--out", str(tmp / "out"),
        "--db", str(tmp / "db" / "s.duckdb"), *more,
    )  # fmt: skip


def one_line_error(r: Any, *words: str) -> None:
    assert r.code == 2, (r.code, r.stdout[-2000:], r.stderr[-2000:])
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), r.stderr
    assert "Traceback" not in r.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])


# -- the escapes that eval let through -------------------------------------------------------------

# Each reached Python objects through `eval(expr, {"__builtins__": {}, ...})`: the object graph
# (subclasses, a function's globals, a generator's frame), str.format's attribute walk, and the
# builtins module behind `format`.
ESCAPES = [
    "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'][0]"
    ".__init__.__globals__['system']('id')",
    "().__class__.__base__.__subclasses__()",
    "[x for x in ()].__class__",
    "(x for x in [1]).gi_frame.f_globals",
    "(x for x in [1]).gi_frame.f_back",
    "format.__self__.__import__('os')",
    "len.__self__",
    "'{0.__class__.__init__.__globals__}'.format(flows)",
    "'{}'.format(R)",
    "str.format('{0.__class__}', 1)",
    "P.__class__",
    "R.get.__self__",
    "flows.__globals__",
    "flows.__code__.co_consts",
    "flow.__closure__[0].cell_contents",
    "(lambda: 0).__code__",
    "__import__('os').system('id')",
    "__builtins__",
    "_get",
    "getattr(flows, '__globals__')",
    "eval('1')",
    "exec('x=1')",
    "open('/etc/passwd').read()",
    "type(P)",
    "vars(P)",
    "[].__class__.__mro__[1].__subclasses__()",
    "f'{flows.__globals__}'",
    "f'{R!r:{\"x\"}}'.__class__",
    "(y := 1)",
    "[g(1) for g in [len]]",
    "{**R}",
    "max(*[[1, 2]])",
    "flows(**P)",
    "b'x'",
    "...",
    "1 if True else ().__class__",
    "not P.__class__",
    "[x for x.y in [1]]",
    "R.pop('flows')",
    "R.update({})",
    "R.setdefault('x', 1)",
    "R.__getitem__('flows')",
    "'x'.__add__('y')",
    "'%s' % R",
]


@pytest.mark.parametrize("text", ESCAPES)
def test_escapes_are_refused_by_the_language(text: str) -> None:
    with pytest.raises(expr.ExprRefused):
        expr.check(text, METRIC_NAMES)


@pytest.mark.parametrize("text", ESCAPES)
def test_escapes_never_run(text: str) -> None:
    """Evaluated without the load's check (names unknown), each is still an ExprError."""
    from bufferlab.study.metrics import metric_namespace

    ns = {**metric_namespace({"flows": []}, {}), "F": None}
    with pytest.raises(expr.ExprError):
        expr.evaluate(text, ns)


def test_a_metric_that_ran_os_system_is_refused_with_exit_2_and_runs_nothing(
    tmp_path: Path,
) -> None:
    """The escape that ran `os.system` through `bufferlab study run NAME --studies DIR`: the
    study is refused when it is loaded (exit 2, one line naming the metric and what is not
    allowed), no run starts and the command it carried is never run."""
    marker = tmp_path / "pwned"
    payload = (
        "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close'][0]"
        f".__init__.__globals__['system']('touch {marker}')"
    )
    studies = tmp_path / "studies"
    make_study(studies, metrics={"pwn": {"expr": payload}})
    r = run_study(studies, "small", tmp_path)
    one_line_error(r, "study.toml", "metrics.pwn", "not allowed", "__subclasses__")
    assert not marker.exists()
    assert not (tmp_path / "db").exists() or not list((tmp_path / "db").glob("*.duckdb"))
    # `study list` loads every study: the same one line.
    one_line_error(run_cli("study", "list", "--studies", str(studies)), "metrics.pwn")
    assert not marker.exists()


@pytest.mark.parametrize(
    "over",
    [
        {"claim": [{"text": "x", "check": "format.__self__.__import__('os').system('true')"}]},
        {"claim": [{"text": "x", "evidence": "{format.__self__}"}]},
        {"figure": [{"id": "F", "experiment": "main", "kind": "line", "x": "limit", "y": "gp",
                     "model": "sqrt.__self__.__import__('os')"}]},
        {"figure": [{"id": "F", "experiment": "main", "kind": "line", "x": "limit", "y": "gp",
                     "vlines": [{"at": "P.__class__", "label": "x"}]}]},
        {"experiment": [{"name": "main", "scenario": "scenario.toml", "params": {"limit": {
            "values": [10], "set": {"links.bottleneck.queue.limit": "= str.__class__"}}}}]},
        {"experiment": [{"name": "main", "scenario": "scenario.toml", "params": {"limit": {
            "values": [10], "set": {"links.bottleneck.queue.limit": "{0.__class__}"}}}}]},
    ],
    ids=["claim check", "claim evidence", "figure model", "figure vline", "plan value",
         "plan template"],
)  # fmt: skip
def test_every_kind_of_expression_is_checked_when_the_study_is_loaded(
    tmp_path: Path, over: dict[str, Any]
) -> None:
    d = make_study(tmp_path, **over)
    with pytest.raises(StudyError) as e:
        load_study(d)
    msg = str(e.value)
    assert "\n" not in msg and "study.toml" in msg
    assert any(w in msg for w in ("claim[0]", "figure[0]", "experiment.params.limit")), msg


def test_a_function_is_only_called_never_handed_to_another(tmp_path: Path) -> None:
    """`sorted(range(10**6), key=m)` would have Python call a study function a million times
    where no step is counted: a function of the namespace is only ever called."""
    d = make_study(tmp_path, claim=[{"text": "x", "check": "sorted(range(10**6), key=m)[0]"}])
    with pytest.raises(StudyError, match=r"claim\[0\]\.check: .*the function `m` as a value"):
        load_study(d)
    with pytest.raises(expr.ExprRefused, match="the function `len` as a value"):
        expr.evaluate("max(xs, key=len)", {"max": max, "len": len, "xs": [[1], []]})


def test_unknown_names_are_refused_at_load_naming_the_field(tmp_path: Path) -> None:
    d = make_study(tmp_path, metrics={"gp": {"expr": "flow('p', 'goodput_bps') / bogus"}})
    with pytest.raises(StudyError, match=r"metrics\.gp: .*unknown name `bogus`"):
        load_study(d)


def test_a_plan_value_that_fails_is_exit_2_naming_its_field(tmp_path: Path) -> None:
    """A plan value is checked at load but computed per point: one that fails there (here a
    division by zero) stops the run with one line naming it (it was a traceback)."""
    studies = tmp_path / "studies"
    make_study(
        studies,
        experiment=[{"name": "main", "scenario": "scenario.toml", "params": {"limit": {
            "values": [10, 0], "set": {"links.bottleneck.queue.limit": "= str(100 // v) + 'p'"}}}}],
    )  # fmt: skip
    r = run_study(studies, "small", tmp_path)
    one_line_error(r, "experiment.params.limit.set.links.bottleneck.queue.limit",
                   "ZeroDivisionError")  # fmt: skip


def test_a_metric_past_a_bound_while_running_is_nan_with_a_warning(tmp_path: Path) -> None:
    """A bound reached while a metric is evaluated (it depends on the run) stops that metric:
    NaN and a warning naming it, as any metric that fails; the study goes on."""
    studies = tmp_path / "studies"
    make_study(
        studies,
        metrics={
            "gp": {"expr": "flow('p', 'goodput_bps') / 1e6"},
            "big": {"expr": "P['limit'] ** 10**6"},
        },
    )
    t0 = time.perf_counter()
    r = run_study(studies, "small", tmp_path)
    assert r.code == 0, r.stderr[-2000:]
    assert time.perf_counter() - t0 < 120
    assert "warning: big: ExprLimit: an integer power of more than 4096 bits" in r.stdout
    data = json.loads((tmp_path / "out" / "small.json").read_text())
    assert data["errors"]["big"].startswith("ExprLimit")
    assert all(run["metrics"]["big"] is None for run in data["runs"])
    assert all(run["metrics"]["gp"] > 0 for run in data["runs"])


# -- bounds ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ["10**10**10", "'x' * 10**12", "[0] * 10**9", "2 ** 100000", "-(9 ** 9 ** 9)",
     "(10 ** 1000) * (10 ** 1000) * (10 ** 1000) * (10 ** 1000) * (10 ** 1000)"],
)  # fmt: skip
def test_huge_constants_are_refused_before_anything_runs(text: str) -> None:
    t0 = time.process_time()
    with pytest.raises(expr.ExprRefused):
        expr.check(text)
    assert time.process_time() - t0 < 1.0


def test_a_10_10_10_metric_is_exit_2(tmp_path: Path) -> None:
    studies = tmp_path / "studies"
    make_study(studies, metrics={"big": {"expr": "10**10**10"}})
    t0 = time.perf_counter()
    r = run_study(studies, "small", tmp_path)
    one_line_error(r, "metrics.big", "4096 bits")
    assert time.perf_counter() - t0 < 60


# Each would take the machine's memory or minutes of CPU with Python's eval; each stops at a
# bound within seconds.
RUNTIME_BOUNDS = [
    ("x ** y", {"x": 10, "y": 10**10}),
    ("x * 'ab'", {"x": 10**12}),
    ("[0] * x", {"x": 10**12}),
    ("len(range(x))", {"x": 10**12}),
    ("sum([1 for a in range(10**6) for b in range(10**6)])", {}),
    ("len([xs for i in range(10**6)])", {"xs": list(range(10**6))}),
    ("str([xs] * 10**6)", {"xs": list(range(10**6))}),
    ("len(str([[0] * 10**6] * 10**6))", {}),
    ("round(1, -10**9)", {}),
    ("format(1.5, '999999999')", {}),
    ("f'{x:999999999}'", {"x": 1}),
    ("f'{x:.999999999f}'", {"x": 1.0}),
    ("sorted(sorted(xs) for i in range(10**6))", {"xs": list(range(10**6))}),
    ("any(xs != ys for i in range(10**6))", {"xs": list(range(10**6)), "ys": list(range(10**6))}),
    ("' '.join(str(i) for i in range(10**6)) * 100", {}),
    ("x * x * x * x * x", {"x": 10**1200}),
]


@pytest.mark.parametrize(("text", "names"), RUNTIME_BOUNDS)
def test_evaluation_is_bounded(text: str, names: dict[str, Any]) -> None:
    from bufferlab.study.expr import safe_format, safe_range, safe_round, safe_str

    ns = {"range": safe_range, "round": safe_round, "format": safe_format, "str": safe_str,
          "len": len, "sum": sum, "sorted": sorted, "any": any, **names}  # fmt: skip
    t0 = time.process_time()
    with pytest.raises((expr.ExprLimit, expr.ExprRefused)):  # refused at once if constant
        expr.evaluate(text, ns)
    assert time.process_time() - t0 < 20, text  # CPU seconds (a few, unloaded)


def test_the_languages_numbers_and_errors_are_pythons() -> None:
    """Arithmetic and errors as Python says them (a metric that fails says why, as before)."""
    ns = {"sqrt": math.sqrt, "P": {"N": 10}, "xs": [3, 1, 2], "d": {"a": 1}}
    cases = {
        "1 / 3 + 2 ** 0.5 - 7 // 2 % 3": 1 / 3 + 2**0.5 - 7 // 2 % 3,
        "sqrt(P['N']) * 1e3": math.sqrt(10) * 1e3,
        "[x * 2 for x in xs if x > 1]": [6, 4],
        "{k: v for k, v in d.items()}": {"a": 1},
        "xs[1:] + xs[:1]": [1, 2, 3],
        "1 < 2 < 3 > 2 != 5": True,
        "0 or '' or None": None,
        "'a' if xs else 'b'": "a",
        "f\"{P['N']:.2f}|{'x'!r}|{1e-05}\"": "10.00|'x'|1e-05",
        "', '.join(str(x) for x in xs)": "3, 1, 2",
        "d.get('b', 5)": 5,
    }
    from bufferlab.study.expr import safe_str

    for text, want in cases.items():
        assert expr.evaluate(text, {**ns, "str": safe_str}) == want, text
    with pytest.raises(expr.ExprFailed, match=r"^ZeroDivisionError: division by zero$"):
        expr.evaluate("1 / 0", ns)
    with pytest.raises(expr.ExprFailed, match=r"^KeyError: 'x'$"):
        expr.evaluate("P['x']", ns)


def test_the_namespaces_are_the_names_the_load_checks() -> None:
    """The names the load checks expressions against are those the namespaces give."""
    from bufferlab.study.claims import claim_namespace
    from bufferlab.study.metrics import MATH, metric_namespace

    assert set(metric_namespace({}, {})) | {"F"} == METRIC_NAMES
    assert set(MATH) | {"v"} == PLAN_NAMES

    class FakeOutcome:
        study = type("S", (), {"experiments": []})()

    assert set(claim_namespace(FakeOutcome())) == CLAIM_NAMES  # type: ignore[arg-type]
    src = (Path(expr.__file__).parent / "figures.py").read_text()
    for name in MODEL_NAMES - {"x"}:
        assert f'"{name}":' in src
    assert VLINE_NAMES <= MODEL_NAMES


# -- the page --------------------------------------------------------------------------------------

HOSTILE_TEXT = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "[click](javascript:alert(1))",
    "![x](javascript:alert(1))",
    "<javascript:alert(1)>",
    "x {: onclick=alert(1) }",
    "<!-- x --><iframe src=//evil>",
    "a\n\n<script>alert(2)</script>\n# heading",
    "[x]: javascript:alert(3)",
    "| pipe | in | cell |",
    "<div markdown=1>*x*</div>",
]
EXTENSIONS = ["attr_list", "md_in_html", "tables", "footnotes", "admonition", "toc"]


def _tags(html: str) -> list[tuple[str, dict[str, str | None]]]:
    p = _Tags()
    p.feed(html)
    return p.found


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.found.append((tag, dict(attrs)))

    def handle_comment(self, data: str) -> None:
        self.found.append(("<!--", {}))


# What Python-Markdown makes of Markdown itself (headings, paragraphs, lists, tables, emphasis,
# code, links, images, admonitions, footnotes): anything else came from the study's text.
SAFE_TAGS = {"h1", "h2", "h3", "h4", "h5", "h6", "p", "table", "thead", "tbody", "tr", "th",
             "td", "ul", "ol", "li", "strong", "em", "code", "pre", "a", "img", "blockquote",
             "hr", "br", "sup", "div"}  # fmt: skip
SAFE_ATTRS = {"id", "href", "src", "alt", "class", "title"}


def assert_safe_html(html: str, text: str = "") -> None:
    """No tag, attribute, comment or link target of the study's own in the rendered page."""
    p = _Tags()
    p.feed(html)
    for tag, attrs in p.found:
        assert tag in SAFE_TAGS, (tag, text, html)
        assert set(attrs) <= SAFE_ATTRS, (tag, attrs, text, html)
        for k in ("href", "src"):
            v = "".join((attrs.get(k) or "").split()).lower()
            assert not re.match(r"[a-z][a-z0-9+.-]*:", v) or v.startswith(
                ("http://", "https://", "mailto:")
            ), (tag, attrs, text, html)


def test_a_study_page_shows_hostile_text_as_text(tmp_path: Path) -> None:
    """Titles, notes, labels, claims and discussion.md written like HTML or Markdown links end up
    as text on the page: rendered with the site's Markdown extensions, the page has no tag,
    attribute or javascript: link that was not bufferlab's own."""
    evil = " ".join(HOSTILE_TEXT)
    studies = tmp_path / "studies"
    discussion = "## Discussion\n\n" + "\n\n".join(HOSTILE_TEXT) + "\n\n[ok](https://example.org)\n"
    make_study(
        studies,
        discussion=discussion,
        study={"title": "<script>alert(1)</script>", "paper": evil, "summary": evil},
        metrics={"gp": {"expr": "flow('p', 'goodput_bps') / 1e6", "label": evil}},
        table=[{"id": evil, "title": evil, "note": evil, "experiment": "main", "rows": ["limit"],
                "columns": ["gp"]}],
        figure=[{"id": "Figure <b>1</b>", "title": evil, "note": evil, "experiment": "main",
                 "kind": "line", "x": "limit", "y": "gp", "xlabel": "$\\frac{", "ylabel": evil}],
        claim=[{"text": evil, "source": evil, "note": evil, "check": "m('gp', limit=20) > 0",
                "evidence": "<script>alert(4)</script> {m('gp', limit=20):.2f}"}],
    )  # fmt: skip
    docs = tmp_path / "docs"
    r = run_study(studies, "small", tmp_path, "--docs", "--docs-dir", str(docs))
    assert r.code == 0, r.stderr[-3000:]
    page = (docs / "small.md").read_text()
    assert "<script>" not in page and "&lt;script>alert(1)&lt;/script>" in page
    html = markdown.markdown(page, extensions=EXTENSIONS)
    assert_safe_html(html)
    imgs = [a["src"] for t, a in _tags(html) if t == "img"]
    assert len(imgs) == 1 and imgs[0].startswith("small/small_figure_"), imgs
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # shown, as text
    # A tiny page leaves the discussion out (it quotes a full run's numbers); a full page
    # writes it through md_document, which keeps its own link and nothing else
    assert "[ok](https://example.org)" not in page and "is left out of this tiny page" in page
    from bufferlab.study.page import md_document

    disc = markdown.markdown(md_document(discussion), extensions=EXTENSIONS)
    assert_safe_html(disc)
    assert '<a href="https://example.org">ok</a>' in disc  # the discussion's own link stays
    # The terminal saw the text too, as text.
    assert "<script>alert(1)</script>" in r.stdout


def test_rich_markup_and_escape_sequences_in_a_title_stay_text(tmp_path: Path) -> None:
    """A title with rich's markup ('[/]' made `study list` crash) or a terminal escape sequence
    (OSC 52 writes the clipboard) is printed as text."""
    studies = tmp_path / "studies"
    make_study(studies, study={"title": "a [/] b [bold]c\x1b]52;c;SGVsbG8=\x07 d\x1b[2J"})
    r = run_cli("study", "list", "--studies", str(studies))
    assert r.code == 0, r.stderr
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout
    assert "a [/] b [bold]c" in r.stdout


# -- names and files -------------------------------------------------------------------------------


def test_figure_ids_make_file_names_inside_the_output_folder(tmp_path: Path) -> None:
    """A figure id with '../', an absolute path, NUL or control characters makes a plain file
    name inside --out (a NUL once crashed the run with a traceback)."""
    studies = tmp_path / "studies"
    make_study(
        studies,
        figure=[{"id": "../../../../x\x00y/\x1b[31m/etc/passwd", "title": "t", "experiment": "main",
                 "kind": "line", "x": "limit", "y": "gp"}],
    )  # fmt: skip
    out = tmp_path / "out"
    r = run_study(studies, "small", tmp_path, "--docs", "--docs-dir", str(tmp_path / "docs"))
    assert r.code == 0, r.stderr[-3000:]
    pngs = list(out.glob("*.png"))
    assert len(pngs) == 1 and pngs[0].parent == out, pngs
    assert all(c.isalnum() or c in "._+-" for c in pngs[0].name), pngs[0].name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["db", "docs", "out", "studies"]
    assert [p.name for p in (tmp_path / "docs" / "small").iterdir()] == [pngs[0].name]


@pytest.mark.parametrize("name", ["bad\x1bname", "x\ny", "-rf", "..x", "a b", "é"])
def test_a_study_folder_name_that_cannot_name_files_is_refused(tmp_path: Path, name: str) -> None:
    studies = tmp_path / "studies"
    make_study(studies, name=name)
    r = run_cli("study", "list", "--studies", str(studies))
    one_line_error(r, "folder name", "rename its folder")
    assert "\x1b" not in r.stderr


@pytest.mark.parametrize(
    "over",
    [
        {"experiment": [{"name": "main", "scenario": "../outside.toml", "params": {}}]},
        {"experiment": [{"name": "main", "scenario": "/etc/hostname", "params": {}}]},
        {"study": {"published": "../secret.json"}},
        {"study": {"peers": "/etc/hostname"}},
    ],
    ids=["scenario ../", "scenario absolute", "published ../", "peers absolute"],
)
def test_files_a_study_names_must_be_in_its_folder(tmp_path: Path, over: dict[str, Any]) -> None:
    (tmp_path / "outside.toml").write_text(POISSON)
    (tmp_path / "secret.json").write_text('{"tables": {"t": [{"x": 1}]}}')
    d = make_study(tmp_path, **over)
    with pytest.raises(StudyError, match="outside the study's folder"):
        load_study(d)


# -- fuzzing ---------------------------------------------------------------------------------------

# Every Python-level event a run of code would raise (sys.addaudithook): while an expression is
# evaluated, none may happen.
_AUDIT: list[str] | None = None
_WATCHED = ("os.", "subprocess.", "open", "exec", "compile", "import", "object.__getattr__",
            "builtins.input", "socket.", "shutil.", "ctypes.", "sys._getframe",
            "code.")  # fmt: skip


def _audit(event: str, args: Any) -> None:
    if _AUDIT is not None and event.startswith(_WATCHED):
        _AUDIT.append(event)


sys.addaudithook(_audit)

NAMES = sorted(METRIC_NAMES | CLAIM_NAMES | {"x", "y", "xs", "d", "s", "i", "__class__",
               "__globals__", "__builtins__", "__import__", "eval", "exec", "open", "getattr",
               "type", "object", "gi_frame", "f_globals", "format", "_get"})  # fmt: skip
ATTRS = [".get", ".keys", ".values", ".items", ".join", ".split", ".upper", ".index", ".count",
         ".__class__", ".__globals__", ".__subclasses__", ".gi_frame", ".f_globals", ".format",
         ".__init__", ".__self__", ".__dict__", ".mro", ".pop", ".update", ".__code__"]  # fmt: skip
ATOMS = st.one_of(
    st.sampled_from(NAMES),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
    st.floats(allow_nan=False).map(repr),
    st.sampled_from(["'x'", "''", "'{0.__class__}'", "True", "None", "nan", "10**10**10",
                     "'a' * 10**9", "2**4000", "()", "[]", "{}", "1e308", "-0.0"]),
)  # fmt: skip


def _compound(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    two = st.tuples(children, children)
    return st.one_of(
        st.builds(lambda a, op, b: f"({a} {op} {b})", children,
                  st.sampled_from(["+", "-", "*", "/", "//", "%", "**", "<", "==", "in", "and",
                                   "or", "is", "&", "<<", "@"]), children),
        st.builds(lambda op, a: f"({op}{a})", st.sampled_from(["-", "not ", "~", "+"]), children),
        st.builds(lambda a, at: f"{a}{at}", children, st.sampled_from(ATTRS)),
        st.builds(lambda a, at, b: f"{a}{at}({b})", children, st.sampled_from(ATTRS), children),
        st.builds(lambda f, args: f"{f}({', '.join(args)})", st.sampled_from(NAMES),
                  st.lists(children, max_size=3)),
        st.builds(lambda a, b: f"{a}[{b}]", children, children),
        st.builds(lambda a, b: f"{a}[{b}:]", children, children),
        st.builds(lambda ab: f"[{ab[0]} for x in {ab[1]}]", two),
        st.builds(lambda ab: f"({ab[0]} for x, y in {ab[1]} if x)", two),
        st.builds(lambda ab: f"{{{ab[0]}: {ab[1]} for x in range(3)}}", two),
        st.builds(lambda ab: f"[{ab[0]}, {ab[1]}]", two),
        st.builds(lambda ab: f"{{{ab[0]}: {ab[1]}}}", two),
        st.builds(lambda ab: f"({ab[0]} if x else {ab[1]})", two),
        st.builds(lambda a: f"f'{{{a}}}'", children),
        st.builds(lambda a: f"f'{{{a}:>{{x}}}}'", children),
        st.builds(lambda a: f"(lambda: {a})", children),
        st.builds(lambda a: f"(x := {a})", children),
    )  # fmt: skip


EXPRESSIONS = st.recursive(ATOMS, _compound, max_leaves=12)


def _namespace() -> dict[str, Any]:
    from bufferlab.study.metrics import metric_namespace

    report = {
        "flows": [{"name": "tcp0", "goodput_bps": 1e6, "protocol": "tcp"},
                  {"name": "udp", "goodput_bps": 5e5, "protocol": "udp"}],
        "queues": [{"link": "bottleneck", "drops": 3, "arrivals": 100}],
        "series": {"queues": [{"link": "bottleneck", "average": [1.0, None, 2.0] * 50}]},
    }  # fmt: skip
    ns = metric_namespace(report, {"N": 10, "q": "RED"})
    return {**ns, "F": "tcp0", "x": 3, "y": 2.5, "xs": list(range(100)), "d": {"a": 1, "b": [2]},
            "s": "text", "i": 7}  # fmt: skip


def _evaluate_guarded(text: str) -> None:
    """Evaluates ``text``: a value, or an ExprError; no audited event (no code run, no file
    opened, no import), within a few seconds."""
    global _AUDIT
    try:
        expr.parse(text)  # parsing calls compile(): audited, so done before watching
    except expr.ExprRefused:
        return
    ns = _namespace()
    _AUDIT = []
    t0 = time.process_time()
    try:
        expr.evaluate(text, ns)
    except expr.ExprError:
        pass
    finally:
        seen, _AUDIT = _AUDIT, None
    assert not seen, (text, seen)
    assert time.process_time() - t0 < 10, text


@settings(
    max_examples=400,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(EXPRESSIONS)
def test_fuzz_expressions_evaluate_or_are_refused_and_run_no_code(text: str) -> None:
    _evaluate_guarded(text)
    # The load's check: a refused text is an ExprRefused, never another error.
    with contextlib.suppress(expr.ExprRefused):
        expr.check(text, METRIC_NAMES)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.text(alphabet=st.characters(codec="utf-8"), max_size=60))
def test_fuzz_any_text_evaluates_or_is_refused(text: str) -> None:
    _evaluate_guarded(text)


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    st.text(
        alphabet=st.sampled_from([*"()[]{}<>!:;'\"`*_#|\\/.=&%$^ \n\tax1", "\x00", "\x1b"]),
        max_size=40,
    ).map(lambda s: s + "".join(HOSTILE_TEXT[: len(s) % len(HOSTILE_TEXT)]))
)
def test_fuzz_page_text_is_never_markup(text: str) -> None:
    """Any study text, written through the page's escaping and rendered with the site's
    extensions, gives no tag and no attribute of its own."""
    from bufferlab.study.page import md_document
    from bufferlab.study.tables import md_cell, md_text

    for line in (f"# {md_text(text)}", f"| {md_cell(text)} | x |\n|---|---|", md_text(text),
                 f"* {md_text(text)}: {md_text(text)}", md_document(text)):  # fmt: skip
        html = markdown.markdown(line, extensions=EXTENSIONS)
        assert_safe_html(html, text)
        assert not [t for t, _ in _tags(html) if t == "img"], (text, html)


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    field=st.sampled_from(["metric", "check", "evidence", "model", "vline", "plan", "title",
                           "figure id", "label"]),
    text=st.one_of(EXPRESSIONS, st.sampled_from(ESCAPES + HOSTILE_TEXT)),
)  # fmt: skip
def test_fuzz_study_folders_load_or_are_refused(
    tmp_path_factory: Any, field: str, text: str
) -> None:
    """A study folder with a random or hostile text in any expression or name loads, or is a
    StudyError: never another exception, never code run."""
    global _AUDIT
    root = tmp_path_factory.mktemp("fuzz")
    fig = {"id": "F", "experiment": "main", "kind": "line", "x": "limit", "y": "gp"}
    over: dict[str, Any] = {
        "metric": {"metrics": {"gp": {"expr": text}}},
        "check": {"claim": [{"text": "c", "check": text}]},
        "evidence": {"claim": [{"text": "c", "evidence": text}]},
        "model": {"figure": [{**fig, "model": text}]},
        "vline": {"figure": [{**fig, "vlines": [{"at": text}]}]},
        "plan": {"experiment": [{"name": "main", "scenario": "scenario.toml", "params": {
            "limit": {"values": [10], "set": {"links.bottleneck.queue.limit": "= " + text}}}}]},
        "title": {"study": {"title": text}},
        "figure id": {"figure": [{**fig, "id": text}]},
        "label": {"metrics": {"gp": {"expr": "1", "label": text}}},
    }[field]  # fmt: skip
    d = make_study(root, **over)
    _AUDIT = []
    try:
        load_study(d)
    except StudyError:
        pass
    finally:
        seen, _AUDIT = _AUDIT, None
    # Loading reads files and parses expressions (compile), but runs nothing.
    assert not [e for e in seen if e.startswith(("os.system", "subprocess", "exec"))], seen


# Values of any TOML type, nested, for the structure of study.toml.
TOML_VALUES = st.recursive(
    st.one_of(
        st.integers(min_value=-(2**63), max_value=2**63 - 1),
        st.floats(allow_nan=False),
        st.booleans(),
        st.text(max_size=12),
        st.sampled_from(["{}", "= v", "= 1/0", "../x", "/etc/hostname", "scenario.toml"]),
    ),
    lambda c: st.one_of(
        st.lists(c, max_size=3), st.dictionaries(st.text(max_size=6), c, max_size=3)
    ),
    max_leaves=6,
)
STRUCTURE = [
    ("study",), ("study", "title"), ("study", "published"), ("study", "tolerance"),
    ("experiment",), ("experiment", 0), ("experiment", 0, "params"),
    ("experiment", 0, "params", "limit"), ("experiment", 0, "params", "limit", "set"),
    ("experiment", 0, "params", "limit", "values"), ("experiment", 0, "replications"),
    ("experiment", 0, "scenario"), ("experiment", 0, "quick"), ("experiment", 0, "set"),
    ("experiment", 0, "per_replication"), ("metrics",), ("metrics", "gp"),
    ("metrics", "gp", "expr"), ("metrics", "gp", "each"), ("table",), ("table", 0),
    ("table", 0, "columns"), ("figure",), ("figure", 0), ("figure", 0, "vlines"),
    ("figure", 0, "model"), ("figure", 0, "id"), ("claim",), ("claim", 0),
    ("claim", 0, "check"), ("claim", 0, "evidence"),
]  # fmt: skip


@settings(max_examples=150, deadline=None, derandomize=True)
@given(where=st.sampled_from(STRUCTURE), value=TOML_VALUES)
def test_fuzz_study_file_structure_loads_or_is_a_study_error(
    tmp_path_factory: Any, where: tuple[Any, ...], value: Any
) -> None:
    """Any TOML value at any of the study file's main keys: the study loads, or one
    StudyError; never another exception (which the CLI would report as a bug, exit 3)."""
    import tomllib

    root = tmp_path_factory.mktemp("structure")
    d = make_study(root)
    doc = tomllib.loads((d / "study.toml").read_text())
    node: Any = doc
    for k in where[:-1]:
        node = node[k]
    node[where[-1]] = value
    (d / "study.toml").write_text(tomli_w.dumps(doc))
    try:
        study = load_study(d)
    except StudyError:
        return
    from bufferlab.study.plan import plan

    for mode in ("full", "quick", "tiny"):
        with contextlib.suppress(StudyError):
            plan(study, mode)
