"""The house rules that a reader should not have to check by hand: no import cycle between our
modules (counting imports inside functions, which hide cycles from the interpreter), and each
layer imports only the layers below it (docs/architecture.md)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("app", "services", "models", "jobs", "workers")
# What each layer may import of ours besides itself (a package, or one module of another layer).
ALLOWED = {
    "models": set(),
    "services": {"models"},
    "app": {"services", "models", "jobs"},
    "jobs": {"services", "models"},
    "workers": {"jobs", "services", "models", "app"},
}


def _allowed(layer: str, target: str) -> bool:
    return target.split(".")[0] == layer or any(target == a or target.startswith(a + ".") for a in ALLOWED[layer])


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


MODULES = _modules()


def _resolve(name: str) -> str | None:
    """The module of ours that `name` (a module, or a name inside one) lives in."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports(module: str, path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            # `from package import module` imports the module; `from module import name`, the module
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for name in names:
            target = _resolve(name)
            if target and target != module:
                out.add(target)
    return out


GRAPH = {m: _imports(m, p) for m, p in MODULES.items()}


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1:
                out.append(sorted(part))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return out


def test_no_module_imports_itself_back_through_others():
    assert _cycles() == []


@pytest.mark.parametrize("layer", PACKAGES)
def test_each_layer_imports_only_the_layers_below_it(layer):
    wrong = sorted(
        f"{m} imports {t}" for m, targets in GRAPH.items() if m.split(".")[0] == layer
        for t in targets if not _allowed(layer, t)
    )
    assert wrong == []


# Documents a reader of this repository cannot open: a shared design note, reference notes cited by
# section, an issue tracker. Code and docstrings cite the code, the README and docs/, or Medusa's
# own documentation and source instead.
OUTSIDE_CITATIONS = re.compile(
    r"DESIGN(\.md)?\b|\breference (store|admin|extra|orders|catalogue)|landscape[ .§#]|stack-notes|"
    r"\bissue \d+|§(?!\d+\.\d+\)? *of RFC)"
)


def test_no_code_cites_a_document_outside_the_repository():
    found = []
    for folder in (*PACKAGES, "tests", "bench"):
        for path in (ROOT / folder).rglob("*.py"):
            for number, line in enumerate(path.read_text().splitlines(), 1):
                if OUTSIDE_CITATIONS.search(line) and "RFC" not in line and path.name != "test_layers.py":
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


# The areas of services/, lowest first (docs/architecture.md says why each sits where it does). An
# area imports only areas on floors below its own: a lower area that needs something done above it
# records an event that the upper area subscribes to (services/events/), or is handed what it needs
# by the composition root (services/setup.py).
AREA_FLOORS = (
    ("core",),
    ("events", "files", "fulfillment"),
    ("payments",),
    ("regions", "sales_channels", "users"),
    ("store",),
    ("inventory",),
    ("catalog", "customers"),
    ("discounts", "gift_cards", "shipping"),
    ("carts",),
    ("orders",),
    ("returns",),
    ("claims",),
    ("swaps", "order_edits", "draft_orders"),
    ("checkout",),
    ("notifications", "webhooks"),
    ("batch_jobs", "migration"),
)
FLOOR = {area: floor for floor, areas in enumerate(AREA_FLOORS) for area in areas}

# Modules directly in services/ (services/setup.py) are the composition root: above every floor, they
# wire the areas together and no area imports them.
COMPOSITION_ROOT = "(composition root)"


def _area(module: str) -> str | None:
    parts = module.split(".")
    if parts[0] != "services" or len(parts) < 2:
        return None
    return parts[1] if (ROOT / "services" / parts[1] / "__init__.py").exists() else COMPOSITION_ROOT


def _floor(area: str) -> int:
    return len(AREA_FLOORS) if area == COMPOSITION_ROOT else FLOOR[area]


def test_every_area_has_a_floor():
    areas = {p.name for p in (ROOT / "services").iterdir() if (p / "__init__.py").exists()}
    assert areas == set(FLOOR)


def test_each_area_imports_only_areas_below_it():
    upward: dict[tuple[str, str], list[str]] = {}
    for module, targets in GRAPH.items():
        area = _area(module)
        for target in targets:
            below = _area(target)
            if area and below and below != area and _floor(below) >= _floor(area):
                upward.setdefault((area, below), []).append(f"{module} imports {target}")
    assert upward == {}


# Every process sets the services up through one function, so none forgets a part (the worker once
# forgot the line and metadata bounds): the areas' own `configure` is called by the composition root
# only (or within its own area, as payments' gateways configure Stripe), and each entry point calls it.
SETUP = "services.setup"
ENTRY_POINTS = {
    "app.server": "create_app, for every web process (and embedded mode's jobs and scheduler)",
    "workers.boot": "each worker process",
    "workers.cli": "each `commerce` command, the scheduler's among them",
}


def _configure_calls(module: str, path: Path) -> set[str]:
    """The modules of ours whose `configure` this module calls (as `area.configure(...)`, or a
    `configure` imported by name)."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    local: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                base = ".".join(anchor[: len(anchor) - node.level + 1] + ([base] if base else []))
            for a in node.names:
                full = f"{base}.{a.name}"
                local[a.asname or a.name] = full if full in MODULES else base
        elif isinstance(node, ast.Import):
            for a in node.names:
                local[a.asname or a.name] = a.name
    out = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "configure":
            parts = []
            value = func.value
            while isinstance(value, ast.Attribute):
                parts.append(value.attr)
                value = value.value
            if isinstance(value, ast.Name) and value.id in local:
                target = ".".join([local[value.id], *reversed(parts)])
                if target in MODULES:
                    out.add(target)
        elif isinstance(func, ast.Name) and func.id == "configure" and func.id in local:
            if local["configure"] in MODULES:
                out.add(local["configure"])
    return out


def test_only_the_composition_root_configures_the_areas():
    wrong = sorted(
        f"{module} calls {target}.configure"
        for module, path in MODULES.items() for target in _configure_calls(module, path)
        if _area(target) not in (None, COMPOSITION_ROOT) and module != SETUP and _area(module) != _area(target)
    )
    assert wrong == []


def test_the_composition_root_configures_every_area_that_can_be_configured():
    configurable = {m for m, p in MODULES.items() if _area(m) not in (None, COMPOSITION_ROOT)
                    and re.search(r"^def configure\(", p.read_text(), re.M)}
    called = {t for m, p in MODULES.items() for t in _configure_calls(m, p) if m == SETUP or _area(m) == _area(t)}
    assert sorted(configurable - called) == []


@pytest.mark.parametrize("entry_point", sorted(ENTRY_POINTS))
def test_every_process_starts_through_the_one_configure(entry_point):
    assert SETUP in _configure_calls(entry_point, MODULES[entry_point]), ENTRY_POINTS[entry_point]


# Hand-written SQL (docs/architecture.md, the SQL toolkit): a module under services/ that runs a
# statement by hand (a connection's `execute_query*`, or services/core/sql.py's `execute`, `write`,
# `RowBuilder`, `Source`, `source`) is a reads module (`reads.py`, `*_reads.py`, each read held
# equal to the ORM's on both backends), or one of these, each for the reason given.
TOOLKIT = {
    "services/core/sql.py",  # the toolkit itself: marks, `execute`, instances, single-row writes
    "services/core/bulk_writes.py",  # the toolkit's bulk writes of many rows
    "services/core/union_rows.py",  # the toolkit's one-statement read of the rows below a page, for reads modules
    "services/core/listing.py",  # the admin lists' page and count, the statement built from each list's queryset
    "services/core/search_pages.py",  # a search's page and count over several places, built from each place's queryset
    "services/core/db.py",  # a unit of work's put-off writes, sent together at its end
}
HAND_WRITTEN_WRITES = {
    "services/batch_jobs/product_import/write.py",  # an import's bulk writes (and DELETE of replaced rows)
    "services/catalog/category_edits.py",  # the category tree's advisory lock, taken before a move
    "services/catalog/product_writes.py",  # bulk writes of a product's rows
    "services/catalog/search_index.py",  # pausing and draining the trigger-kept search index around a batch
    "services/carts/shipping.py",  # the lines' has_shipping, one UPDATE per value, sent at the unit's end
    "services/checkout/stages.py",  # a session's authorization, sent with the placing's writes
    "services/core/idempotency.py",  # a key finished, sent with its work's writes
    "services/core/outbox.py",  # the outbox's claim: a conditional UPDATE … RETURNING
    "services/core/rate_limits.py",  # a window's counter: one upsert … RETURNING
    "services/events/dispatch.py",  # a receipt's INSERT, built once (a dispatch writes one per subscriber)
    "services/inventory/levels.py",  # conditional UPDATEs and DELETEs of stock levels, counted
    "services/inventory/locations.py",  # a location's levels deleted with it, counted
    "services/migration/medusa_v1/collisions.py",  # merging and renumbering our rows that collide with the shop's
    "services/migration/medusa_v1/writer.py",  # the move's writer: bulk writes, its checks and SQLite's pragmas
    "services/notifications/delivery.py",  # a message marked sent (one per order placed)
    "services/orders/display_ids.py",  # the display ids: a sequence's nextval (PostgreSQL), the counter row's UPDATE … RETURNING (SQLite)
    "services/orders/placement.py",  # stock taken at placement: a conditional UPDATE … RETURNING; the hand-over
}
# Reads that still run outside a reads module: each goes when its module moves (the test fails
# while a listed one is gone, so the list only shrinks).
READS_TO_MOVE = {
    "services/catalog/search_engine.py",  # the search index's page of product ids
}
TOOLKIT_RUNNERS = {"execute", "write", "RowBuilder", "Source", "source"}


def _runs_statements_by_hand(path: Path) -> bool:
    tree = ast.parse(path.read_text(), str(path))
    runners, toolkit_modules = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "services.core.sql":
            runners |= {alias.asname or alias.name for alias in node.names if alias.name in TOOLKIT_RUNNERS}
        elif isinstance(node, ast.ImportFrom) and node.module == "services.core":
            toolkit_modules |= {alias.asname or alias.name for alias in node.names if alias.name == "sql"}
        elif isinstance(node, ast.Import):
            toolkit_modules |= {alias.asname or alias.name for alias in node.names if alias.name == "services.core.sql"}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in runners:
            return True
        if isinstance(func, ast.Attribute) and func.attr.startswith("execute_query"):
            return True
        if (isinstance(func, ast.Attribute) and func.attr in TOOLKIT_RUNNERS
                and ast.unparse(func.value) in toolkit_modules):
            return True
    return False


def _is_reads_module(path: Path) -> bool:
    return path.name == "reads.py" or path.name.endswith("_reads.py")


def test_hand_written_statements_run_only_in_reads_modules_or_listed_writers():
    by_hand = {str(p.relative_to(ROOT)) for p in sorted((ROOT / "services").rglob("*.py"))
               if _runs_statements_by_hand(p)}
    outside = {p for p in by_hand if not _is_reads_module(ROOT / p)}
    listed = TOOLKIT | HAND_WRITTEN_WRITES | READS_TO_MOVE
    assert not outside - listed, f"hand-written SQL outside a reads module, unlisted: {sorted(outside - listed)}"
    assert not listed - outside, f"listed but running no hand-written SQL (drop them): {sorted(listed - outside)}"


def test_every_reads_module_has_its_equality_test():
    # Given every reads module under services/
    reads = sorted(p for p in (ROOT / "services").rglob("*.py") if _is_reads_module(p))
    tests = [p.read_text() for p in (ROOT / "tests").rglob("test_*.py")]
    # I expect each imported by a test (its reads held to the ORM's on both backends)
    for path in reads:
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        assert any(f"from {module} import" in text for text in tests), f"{module} has no test importing it"
