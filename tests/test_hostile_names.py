"""Names from someone else's file: no file written outside the chosen folder, and every name
shown literally on the terminal (never read as markup, never an escape sequence).

Each test runs the CLI as a user would, in a ``work`` folder inside its temporary directory, and
compares the files of the whole temporary directory before and after: a name like ``../../x``
once made ``--pcap caps`` write ``x.pcap`` two folders up, a flow named ``[/bold]`` ended
``bufferlab run`` with exit 3, and ``\\x1b[2J`` in a name cleared the terminal.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import tomli_w

from bufferlab.display import markup, printable
from bufferlab.safe_path import child_path
from conftest import run_cli

ESC_TITLE = "\x1b]0;pwned\x07"  # sets the terminal's window title
ESC_CLEAR = "\x1b[2J"  # clears the screen
# A control character of any kind (C0, DEL, C1) but the newline ending each line.
RAW_CONTROL = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]")


def scenario(link: str = "bottleneck", nodes: tuple[str, str] = ("a", "b"), **kw: object) -> str:
    """Two nodes, one link, two CBR flows (names in ``flows``), as TOML text."""
    flows = kw.pop("flows", ("f1", "f2"))
    sc = {
        "name": kw.pop("name", "hostile"),
        "duration": "1s",
        "seed": 1,
        "topology": {"kind": "custom", "nodes": list(nodes)},
        "links": {
            link: {
                "between": list(nodes),
                "rate": "10Mbps",
                "delay": "1ms",
                "queue": {"kind": "droptail", "limit": "50p"},
            }
        },
        "flows": [
            {
                "name": f,
                "src": nodes[0],
                "dst": nodes[1],
                "app": {"kind": "cbr", "rate": "1Mbps", "packet_size": "1000B"},
            }
            for f in flows  # type: ignore[attr-defined]
        ],
    }
    return tomli_w.dumps(sc)


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def outside(root: Path, work: Path) -> set[str]:
    """Files of ``root`` that are neither in ``work`` nor one of the folders holding it."""
    inner = work.relative_to(root)
    holders = {str(p) for p in inner.parents} | {str(inner)}
    return {f for f in files_under(root) if f not in holders and not f.startswith(f"{inner}/")}


@pytest.fixture
def work(tmp_path: Path) -> Path:
    w = tmp_path / "a" / "b" / "work"  # room above it for ../../x to land in tmp_path
    w.mkdir(parents=True)
    return w


def no_raw_control(*texts: str) -> None:
    for t in texts:
        m = RAW_CONTROL.search(t)
        assert m is None, f"raw control character {m.group()!r} in {t!r}"


# -- no file written outside the chosen folder ------------------------------------------------


@pytest.mark.parametrize(
    ("link", "nodes", "extra", "refused"),
    [
        ("../../x", ("a", "b"), [], 'link name "../../x"'),
        ("../../x", ("a", "b"), ["--pcap-link", "../../x"], 'link name "../../x"'),
        ("ABS/x", ("a", "b"), [], 'link name "/'),
        ("l", ("a", "../../n"), [], 'node name "../../n"'),
        ("..", ("a", "b"), [], 'link name ".."'),
        ("l\\..\\..\\x", ("a", "b"), [], 'link name "l\\..\\..\\x"'),
    ],
)
def test_pcap_is_refused_for_a_name_that_is_no_file_name(
    work: Path, link: str, nodes: tuple[str, str], extra: list[str], refused: str
) -> None:
    root = work.parents[2]
    link = link.replace("ABS", str(root))  # an absolute path into the temporary directory
    if "--pcap-link" in extra:
        extra = ["--pcap-link", link]
    (work / "s.toml").write_text(scenario(link, nodes))
    before = files_under(root)
    r = run_cli("run", "s.toml", "--pcap", "caps", *extra, cwd=work)
    assert r.code == 2, r.stderr
    assert files_under(root) == before, "files were written"
    assert r.stderr.count("\n") == 1 and r.stderr.startswith(f"error: pcap: {refused}")
    assert "cannot be a file name" in r.stderr and "; rename it" in r.stderr


def test_pcap_files_of_two_links_are_never_one_file(work: Path) -> None:
    """A link "x" from a to b writes x_a-b.pcap; a link named "x_a-b" would write the same file:
    refused, rather than mixing two captures in one file."""
    sc = scenario("x").replace('[links.x]', '[links.x_a-b]\nbetween = ["a", "b"]\n'
                                'rate = "1Mbps"\ndelay = "1ms"\n\n[links.x]')  # fmt: skip
    (work / "s.toml").write_text(sc)
    r = run_cli("run", "s.toml", "--pcap", "caps", cwd=work)
    assert r.code == 2, r.stderr
    assert 'would both be "x_a-b.pcap"; rename a link or a node' in r.stderr
    assert not (work / "caps").exists()


SWEEP = """\
[sweep]
name = {name}
base = "base.toml"
replications = 1
metrics = ["flows.goodput_bps"]
traces = {{ dir = "tr", ns2 = true, pcap = {pcap} }}

[grid]
duration = ["1s", "2s"]
"""


def test_a_sweep_s_pcap_traces_stay_in_their_folder(work: Path) -> None:
    root = work.parents[2]
    (work / "base.toml").write_text(scenario("../../x"))
    name = tomli_w.dumps({"n": "../../sweep"}).split("=", 1)[1].strip()
    (work / "sweep.toml").write_text(SWEEP.format(name=name, pcap="true"))
    r = run_cli("sweep", "sweep.toml", "--db", "r.duckdb", "-j", "1", "-q", cwd=work)
    assert r.code == 0, r.stderr
    assert outside(root, work) == set()
    assert "0 ok, 2 failed" in r.stderr
    assert ': pcap: link name "../../x" cannot be a file name' in r.stderr


def test_no_output_of_any_command_lands_outside_its_folder(work: Path) -> None:
    """Every command that writes files, on a scenario and a sweep whose every name is hostile:
    run --out/--trace-ns2, run --pcap (refused), sweep with ns-2 and pcap traces, results
    --csv, report, plot. Only the files asked for are written, all inside ``work``."""
    root = work.parents[2]
    names = {"name": "../../s", "flows": ("../../f", "/etc/f")}
    (work / "s.toml").write_text(scenario("l", ("a", "b"), **names))
    (work / "bad.toml").write_text(scenario("../../x", ("../a", "/b"), **names))
    r = run_cli("run", "s.toml", "--out", "res", "--trace-ns2", "t.tr", cwd=work)
    assert r.code == 0, r.stderr
    r = run_cli("run", "bad.toml", "--pcap", "caps", "--out", "res2", cwd=work)
    assert r.code == 2 and "cannot be a file name" in r.stderr
    (work / "base.toml").write_text(scenario("l", ("a", "b"), **names))
    (work / "sweep.toml").write_text(SWEEP.format(name='"../../sw"', pcap="true"))
    r = run_cli("sweep", "sweep.toml", "--db", "r.duckdb", "-q", cwd=work)
    assert r.code == 0 and "2 ok, 0 failed" in r.stderr, r.stderr
    for args in (
        ["results", "../../sw", "--db", "r.duckdb", "--csv", "runs.csv"],
        ["report", "../../sw", "--db", "r.duckdb", "-o", "report.html"],
    ):
        r = run_cli(*args, cwd=work)
        assert r.code == 0, r.stderr
    assert outside(root, work) == set()
    top = {f.split("/")[0] for f in files_under(work)}
    assert top == {"s.toml", "bad.toml", "base.toml", "sweep.toml", "res", "t.tr", "tr",
                   "r.duckdb", "r.series", "runs.csv", "report.html"}  # fmt: skip
    assert not (work / "caps").exists() and not (work / "res2").exists()
    for d in (work / "tr").glob("*.pcap"):
        assert sorted(p.name for p in d.iterdir()) == ["l.pcap", "l_a-b.pcap", "l_b-a.pcap"]


def test_child_path_stays_in_its_folder_or_says_why(tmp_path: Path) -> None:
    assert child_path(tmp_path, "flows", ".csv") == tmp_path / "flows.csv"
    assert child_path(tmp_path, "é ...x") == tmp_path / "é ...x"
    for name, why in [
        ("../../x", 'contains "/"'),
        ("/abs/x", 'contains "/"'),
        ("a\\b", 'contains "\\"'),
        ("", "is empty"),
        (".", "names a folder"),
        ("..", "names a folder"),
        ("a\x00b", "U+0000"),
        (ESC_TITLE, "U+001B"),
        ("x" * 251, "256 bytes"),
    ]:
        with pytest.raises(ValueError, match=re.escape(why)) as e:
            child_path(tmp_path, name, ".pcap")
        no_raw_control(str(e.value))
    assert child_path(tmp_path, "x" * 250, ".pcap").name == "x" * 250 + ".pcap"


# -- names shown literally ---------------------------------------------------------------------


def test_a_flow_named_like_markup_is_shown_literally(work: Path) -> None:
    sc = scenario("[bold red]l", name="[/bold]s", flows=("[/bold]", "[bold red]x", ":smile:"))
    (work / "s.toml").write_text(sc)
    r = run_cli("run", "s.toml", cwd=work)
    assert r.code == 0, r.stderr
    for shown in ("[/bold]s  seed 1", "[/bold]", "[bold red]x", ":smile:", "[bold red]l a→b"):
        assert shown in r.stdout, (shown, r.stdout)
    assert "flows ([/bold], [bold red]x, :smile:)" in r.stdout


def test_escape_sequences_in_names_never_reach_the_terminal(work: Path) -> None:
    sc = scenario(f"l{ESC_CLEAR}", name=f"s{ESC_TITLE}", flows=(ESC_CLEAR + "f", "g\u202eh"))
    (work / "s.toml").write_text(sc)
    r = run_cli("run", "s.toml", cwd=work)
    no_raw_control(r.stdout, r.stderr)
    assert r.code in (0, 2), r.stderr  # shown in the report, or refused in one error line
    if r.code == 0:
        assert "s\\x1b]0;pwned\\x07" in r.stdout
        assert "\\x1b[2Jf" in r.stdout and "g\\u202eh" in r.stdout
    # Error lines: a name the user typed, echoed back by the core.
    (work / "plain.toml").write_text(scenario("l"))
    r = run_cli("run", "plain.toml", "--pcap", "c", "--pcap-link", f"no{ESC_TITLE}", cwd=work)
    assert r.code == 2 and r.stderr.startswith("error: ")
    no_raw_control(r.stdout, r.stderr)
    assert "no\\x1b]0;pwned\\x07" in r.stderr


def test_sweep_and_results_show_names_literally(work: Path) -> None:
    """A sweep named like markup with an escape sequence: its progress, summary, the list of
    sweeps and its runs table show it as written."""
    (work / "base.toml").write_text(scenario("l"))
    name = f"[/bold]{ESC_CLEAR}[red]sw"
    shown = "[/bold]\\x1b[2J[red]sw"
    toml_name = tomli_w.dumps({"n": name}).split("=", 1)[1].strip()
    (work / "sweep.toml").write_text(SWEEP.format(name=toml_name, pcap="false"))
    r = run_cli("sweep", "sweep.toml", "--db", "r.duckdb", "-j", "1", cwd=work)
    assert r.code == 0, r.stderr
    no_raw_control(r.stdout, r.stderr.replace("\r", ""))
    assert f"sweep {shown}: 2 points" in r.stderr and f"{shown}: 2 ok" in r.stderr
    r = run_cli("results", "--db", "r.duckdb", cwd=work)
    assert r.code == 0, r.stderr
    no_raw_control(r.stdout, r.stderr)
    assert shown in r.stdout
    r = run_cli("results", name, "--db", "r.duckdb", cwd=work)
    assert r.code == 0, r.stderr
    no_raw_control(r.stdout, r.stderr)
    assert shown in r.stdout
    r = run_cli("results", name, "--db", "r.duckdb", "--table", "runs", cwd=work)
    assert r.code == 0, r.stderr
    no_raw_control(r.stdout, r.stderr)
    assert f"{shown}: runs" in r.stdout


def test_advise_shows_the_link_name_literally(work: Path) -> None:
    (work / "s.toml").write_text(scenario("[bold red]l"))
    r = run_cli("advise", "s.toml", "--link", "[bold red]l", "--rules-only", cwd=work)
    assert r.code == 0, r.stderr
    assert "Sizing rules for [bold red]l a->b" in " ".join(r.stdout.split())


def test_names_with_dollar_signs_are_text_in_figures(work: Path) -> None:
    """matplotlib read "$...$" in a name as a formula: a link named $\\frac{x$ stopped
    `bufferlab report` with exit 3 and `plot` with a misleading --x error."""
    link = "$\\frac{x$"
    sc = scenario(link, name="$\\foo$", flows=("$\\bar{$", "$x^$"))
    (work / "s.toml").write_text(sc.replace('"1Mbps"', '"6Mbps"'))
    sweep = tomli_w.dumps(
        {
            "sweep": {"name": "$\\frac{s$", "base": "s.toml", "replications": 1,
                      "metrics": ["flows.goodput_bps"]},
            "grid": {f"links.{link}.queue.limit": ["5p", "20p"]},
        }
    )  # fmt: skip
    (work / "sweep.toml").write_text(sweep)
    r = run_cli("sweep", "sweep.toml", "--db", "r.duckdb", "-q", cwd=work)
    assert r.code == 0 and "2 ok" in r.stderr, r.stderr
    for args in (
        ["report", "$\\frac{s$", "--db", "r.duckdb", "-o", "r.html"],
        ["plot", "$\\frac{s$", "--db", "r.duckdb", "-o", "m.png"],
        ["plot", "$\\frac{s$", "--db", "r.duckdb", "-o", "f.png", "--kind", "flows"],
        ["advise", "s.toml", "--link", link, "--sizes", "5p,20p", "-r", "1", "-o", "a.png"],
    ):
        r = run_cli(*args, cwd=work)
        assert r.code == 0, (args, r.stderr)
        assert (work / args[args.index("-o") + 1]).stat().st_size > 0


def test_error_lines_show_control_characters_as_escapes() -> None:
    from bufferlab.cli._boundary import _one_line

    assert _one_line(f"bad {ESC_TITLE}\nsecond\tline") == "bad \\x1b]0;pwned\\x07 second\\tline"
    assert printable("a\x9bb\x7f") == "a\\x9bb\\x7f"
    assert markup("[bold]x\x1b") == "\\[bold]x\\x1b"
