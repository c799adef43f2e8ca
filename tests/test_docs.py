"""The documentation's promises that a reader acts on: its links lead somewhere, its commands are
commands this package has, the settings it lists are settings the code reads, and the figures it
quotes from the code (the number of migrations) are the code's."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def _anchors(text: str) -> set[str]:
    """GitHub's anchors for a page's headings: lower case, punctuation dropped, spaces to '-'."""
    out = set()
    for heading in re.findall(r"^#+ (.+)$", text, re.M):
        out.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return out


def _code_lines(text: str) -> list[str]:
    """Indented code-block lines, continuation lines joined."""
    lines, current = [], ""
    for line in text.splitlines():
        if not line.startswith("    "):
            current = ""
            continue
        current += line.strip()
        if current.endswith("\\"):
            current = current[:-1] + " "
            continue
        lines.append(current)
        current = ""
    return lines


def _commerce_argv(line: str) -> list[str] | None:
    """The arguments after `commerce` in a shell line, without comments, optional `[...]` parts,
    a trailing `...` and environment assignments; None when the line runs no `commerce`."""
    if not re.search(r"(^|[\s/])commerce\s", line + " "):
        return None
    line = re.sub(r"\s#.*$", "", line)
    line = re.sub(r"\[[^\]]*\]", "", line).replace(" ...", "")
    for part in line.split("&&"):
        words = shlex.split(part)
        for i, word in enumerate(words):
            if word == "commerce" or word.endswith("/commerce"):
                return words[i + 1:]
    return None


def test_every_page_is_linked_from_the_readme():
    readme = (ROOT / "README.md").read_text()
    for page in PAGES[1:]:
        assert f"(docs/{page.name})" in readme, f"{page.name} is not in the README's table"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_lead_to_a_file_and_heading_that_exist(page):
    text = page.read_text()
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name}: link to {target} leads nowhere"
        if anchor:
            assert anchor in _anchors(linked.read_text()), f"{page.name}: no heading for #{anchor} in {linked.name}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_documented_commands_parse(page):
    from workers.cli import _parser

    parser = _parser()
    for line in _code_lines(page.read_text()):
        argv = _commerce_argv(line)
        if argv is None:
            continue
        try:
            parser.parse_args(argv)
        except SystemExit as stop:
            pytest.fail(f"{page.name}: `commerce {' '.join(argv)}` does not parse (exit {stop.code})")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_documented_subcommands_exist(page):
    from workers.cli import _parser

    parser = _parser()
    for span in re.findall(r"`(?:\.venv/bin/)?commerce ([a-z][a-z0-9 -]*)", page.read_text()):
        words = [w for w in span.split() if re.fullmatch(r"[a-z][a-z0-9-]*", w)]
        try:
            parser.parse_known_args(words[:2])
        except SystemExit as stop:
            # a subcommand that needs more arguments exits 2 with "required"; an unknown one too,
            # so tell them apart by what the parser knows
            assert _knows(parser, words[:2]), f"{page.name}: `commerce {span}` is not a command ({stop.code})"


def _knows(parser, words: list[str]) -> bool:
    import argparse

    for word in words:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not subs:
            return True
        if word not in subs[0].choices:
            return False
        parser = subs[0].choices[word]
    return True


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_documented_python_modules_exist(page):
    for module in set(re.findall(r"python -m ([a-z_][a-z0-9_.]*)", page.read_text())):
        path = ROOT.joinpath(*module.split("."))
        assert path.with_suffix(".py").is_file() or (path / "__main__.py").is_file(), f"{page.name}: no module {module}"


def test_every_listed_setting_is_read_by_the_code():
    table = (ROOT / "docs" / "configuration.md").read_text()
    names = set()
    for first_cell in re.findall(r"^\| ([^|]+) \|", table, re.M):
        names.update(re.findall(r"`([A-Z][A-Z0-9_]+)`", first_cell))
    assert len(names) > 30
    code = "\n".join(p.read_text() for d in ("app", "services", "workers", "jobs") for p in (ROOT / d).rglob("*.py"))
    missing = sorted(n for n in names if f'"{n}"' not in code and f"'{n}'" not in code)
    assert not missing, f"settings documented but never read: {missing}"


def test_the_readme_counts_the_migrations_there_are():
    readme = (ROOT / "README.md").read_text()
    quoted = re.search(r"migrating: \d+/(\d+) ", readme)
    migrations = [p for p in (ROOT / "models" / "migrations").glob("[0-9][0-9][0-9][0-9]_*.py")]
    assert quoted and int(quoted.group(1)) == len(migrations)
