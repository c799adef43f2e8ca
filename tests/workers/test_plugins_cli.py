"""The plugin interface's promises about whole processes, with plugins installed as packages are
(a `<name>-0.1.dist-info` folder with a `commerce.plugins` entry point, on the child's PYTHONPATH):
a plugin that cannot be loaded stops `commerce migrate` and `commerce serve` with one line naming
it (exit 78); `commerce migrate` runs each plugin's migrations after the core's, leaves a plugin's
tables alone when it is turned off, and names a plugin whose migration fails; `commerce plugins`
lists what is installed and what each adds."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.conftest import PATIENCE, _free_port
from workers.preflight import EX_CONFIG

ROOT = Path(__file__).resolve().parents[2]
PUNCHCARD = "tests.fixtures.plugins.punchcard:plugin"  # importable in the child: it runs from the tree's root


def install(where: Path, name: str, ref: str, modules: dict[str, str] | None = None, *,
            package: str | None = None) -> None:
    """A package in `where` (named `package`, else as the plugin) declaring the plugin `name` at
    `ref`, with these modules' sources."""
    package = package or name
    for path, source in (modules or {}).items():
        file = where / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(textwrap.dedent(source))
    info = where / f"{package}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[commerce.plugins]\n{name} = {ref}\n")


def env(tmp_path: Path, **changes: str) -> dict:
    found = {**os.environ, "DATABASE_URL": f"sqlite://{tmp_path / 'store.sqlite3'}", "LOG_LEVEL": "WARNING",
             "PYTHONPATH": os.pathsep.join(p for p in (str(tmp_path / "site"), os.environ.get("PYTHONPATH")) if p)}
    for name in ("REDIS_URL", "COMMERCE_ENV", "INVENTORY_LOCATIONS", "PLUGINS"):
        found.pop(name, None)
    found.update(changes)
    return found


def cli(environment: dict, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "workers.cli", *args], env=environment, cwd=ROOT,
                          capture_output=True, text=True, timeout=PATIENCE)


def refused(result: subprocess.CompletedProcess) -> tuple[int, list[str]]:
    return result.returncode, result.stderr.splitlines()


def site(tmp_path: Path) -> Path:
    (tmp_path / "site").mkdir(exist_ok=True)
    return tmp_path / "site"


BROKEN = {"broken_plugin.py": """
    import stamp_engine_that_is_not_installed  # noqa: F401
"""}

# A plugin with a table of its own, made by its migration.
LEDGER = {
    "ledger_plugin/__init__.py": """
        from services.core.plugins import Plugin

        plugin = Plugin("ledger", "0.1", models="ledger_plugin.models", migrations="ledger_plugin.migrations")
    """,
    "ledger_plugin/models.py": """
        from tortoise import fields
        from tortoise.models import Model


        class Entry(Model):
            id = fields.CharField(primary_key=True, max_length=64)
            points = fields.IntField()

            class Meta:
                table = "ledger_entry"
                app = "ledger"
    """,
    "ledger_plugin/migrations/__init__.py": "",
    "ledger_plugin/migrations/0001_initial.py": """
        from tortoise import fields, migrations
        from tortoise.migrations import operations as ops


        class Migration(migrations.Migration):
            initial = True
            operations = [
                ops.CreateModel(
                    name="Entry",
                    fields=[("id", fields.CharField(primary_key=True, max_length=64)),
                            ("points", fields.IntField())],
                    options={"table": "ledger_entry", "app": "ledger", "pk_attr": "id"},
                ),
            ]
    """,
}

# Its second migration's SQL fails.
FAILING_MIGRATION = {"ledger_plugin/migrations/0002_broken.py": """
    from tortoise import migrations
    from tortoise.migrations import operations as ops


    class Migration(migrations.Migration):
        dependencies = [("ledger", "0001_initial")]
        operations = [ops.RunSQL("UPDATE ledger_nowhere SET points = 0")]
"""}


# ---------------------------------------------------------------- a broken plugin stops start-up


def test_a_plugin_that_cannot_be_imported_stops_migrate_and_serve_with_one_line(tmp_path):
    install(site(tmp_path), "broken", "broken_plugin:plugin", BROKEN)
    line = ("plugin broken: cannot be imported: ModuleNotFoundError: No module named "
            "'stamp_engine_that_is_not_installed'")
    assert refused(cli(env(tmp_path, PLUGINS="broken"), "migrate")) == (EX_CONFIG, [line])
    result = cli(env(tmp_path, PLUGINS="broken"), "serve", "--port", str(_free_port()))
    assert refused(result) == (EX_CONFIG, [line])


def test_a_plugins_setting_that_does_not_validate_stops_start_up_with_one_line(tmp_path):
    install(site(tmp_path), "punchcard", PUNCHCARD)
    result = cli(env(tmp_path, PLUGINS="punchcard", PUNCHCARD_POINTS_PER_EURO="many"), "migrate")
    code, lines = refused(result)
    assert code == EX_CONFIG and len(lines) == 1, result.stderr
    assert lines[0].startswith("plugin punchcard: setting PUNCHCARD_POINTS_PER_EURO: Input should be a valid integer")
    result = cli(env(tmp_path, PLUGINS="punchcard", PUNCHCARD_POINTS="3"), "serve", "--port", str(_free_port()))
    assert refused(result) == (EX_CONFIG, [
        "plugin punchcard: unknown setting PUNCHCARD_POINTS (it knows PUNCHCARD_POINTS_PER_EURO)"])


def test_two_packages_declaring_one_plugin_name_are_refused_naming_both(tmp_path):
    install(site(tmp_path), "punchcard", PUNCHCARD)
    install(site(tmp_path), "punchcard", PUNCHCARD, package="punchcard_fork")
    line = "plugin punchcard: declared by 2 installed packages (punchcard, punchcard_fork): uninstall all but one"
    assert refused(cli(env(tmp_path, PLUGINS="punchcard"), "migrate")) == (EX_CONFIG, [line])
    listed = cli(env(tmp_path, PLUGINS="punchcard"), "plugins", "--json")
    assert listed.returncode == EX_CONFIG
    assert [r["error"] for r in map(json.loads, listed.stdout.splitlines()) if r["name"] == "punchcard"] == [line]


def test_a_subscriber_id_without_the_plugins_prefix_stops_start_up_and_is_listed(tmp_path):
    install(site(tmp_path), "unprefixed", "tests.fixtures.plugins.strays:unprefixed")
    line = "plugin unprefixed: subscriber id 'count_points' must start with 'unprefixed.'"
    assert refused(cli(env(tmp_path, PLUGINS="unprefixed"), "migrate")) == (EX_CONFIG, [line])
    listed = cli(env(tmp_path, PLUGINS="unprefixed"), "plugins", "--json")
    assert listed.returncode == EX_CONFIG
    assert [r["error"] for r in map(json.loads, listed.stdout.splitlines()) if r["name"] == "unprefixed"] == [line]


def test_a_failing_plugin_migration_is_named_and_the_cores_stay_applied(tmp_path):
    install(site(tmp_path), "ledger", "ledger_plugin:plugin", {**LEDGER, **FAILING_MIGRATION})
    result = cli(env(tmp_path, PLUGINS="ledger"), "migrate")
    code, lines = refused(result)
    assert code == EX_CONFIG and len(lines) == 1, result.stderr
    assert lines[0].startswith("plugin ledger: its migrations failed: ") and "ledger_nowhere" in lines[0]
    with sqlite3.connect(tmp_path / "store.sqlite3") as db:
        applied = {(app, name) for app, name in db.execute("SELECT app, name FROM tortoise_migrations")}
    assert ("models", "0001_initial") in applied and ("ledger", "0002_broken") not in applied
    core = sorted(p.stem for p in (ROOT / "models" / "migrations").glob("0*.py"))
    assert {("models", name) for name in core} <= applied


# ---------------------------------------------------------------- a plugin's tables


def test_a_plugins_tables_are_migrated_after_the_core_and_kept_while_it_is_off(tmp_path):
    install(site(tmp_path), "ledger", "ledger_plugin:plugin", LEDGER)
    # Given the plugin turned on
    result = cli(env(tmp_path, PLUGINS="ledger"), "migrate")
    assert result.returncode == 0, result.stderr
    steps = [line for line in result.stdout.splitlines() if line.startswith("migrating: ")]
    assert steps[-1].endswith(" ledger 0001_initial") and not any(" ledger " in s for s in steps[:-1])
    with sqlite3.connect(tmp_path / "store.sqlite3") as db:
        db.execute("INSERT INTO ledger_entry (id, points) VALUES ('e1', 7)")
    # When it is turned off and the store migrated again, then turned on again
    off = cli(env(tmp_path), "migrate")
    assert off.returncode == 0, off.stderr
    again = cli(env(tmp_path, PLUGINS="ledger"), "migrate")
    assert again.returncode == 0, again.stderr
    # I expect its table and rows left alone, and nothing applied twice
    assert not [line for line in off.stdout.splitlines() + again.stdout.splitlines() if line.startswith("migrating: ")]
    with sqlite3.connect(tmp_path / "store.sqlite3") as db:
        assert db.execute("SELECT id, points FROM ledger_entry").fetchall() == [("e1", 7)]


# ---------------------------------------------------------------- commerce plugins


def test_plugins_lists_the_built_in_ones_and_an_installed_one_with_its_parts(tmp_path):
    install(site(tmp_path), "punchcard", PUNCHCARD)
    result = cli(env(tmp_path, PLUGINS="punchcard"), "plugins", "--json")
    assert result.returncode == 0, result.stderr
    rows = {row["name"]: row for row in map(json.loads, result.stdout.splitlines())}
    assert list(rows)[:3] == ["stripe", "smtp", "s3"] and "punchcard" in rows  # and whatever else is installed
    assert all(rows[name]["built_in"] and rows[name]["on"] for name in ("stripe", "smtp", "s3"))
    assert rows["stripe"]["routes"] == ["POST /stripe/hooks"]
    punchcard = rows["punchcard"]
    assert (punchcard["on"], punchcard["built_in"], punchcard["version"]) == (True, False, "0.1")
    assert set(punchcard["routes"]) == {"GET /admin/punchcard/points", "POST /admin/punchcard/boom",
                                      "POST /store/punchcard/redeem", "GET /store/punchcard/me",
                                      "POST /store/punchcard/join", "GET /punchcard/ping"}
    assert punchcard["subscribers"] == ["punchcard.count_points (product.created)"]
    assert punchcard["jobs"] == ["expire_punchcard_points"]
    assert punchcard["schedules"] == ["expire_punchcard_points every 3600s"]
    assert punchcard["settings"] == ["PUNCHCARD_POINTS_PER_EURO"]
    # The text list says the same, and that a plugin not named in PLUGINS is off
    text = cli(env(tmp_path), "plugins")
    assert text.returncode == 0, text.stderr
    assert "punchcard 0.1: off (not in PLUGINS) — points for every euro" in text.stdout.splitlines()
    assert "  schedules:   expire_punchcard_points every 3600s" in text.stdout.splitlines()


def test_plugins_lists_a_broken_one_with_its_error_and_fails_only_when_it_is_on(tmp_path):
    install(site(tmp_path), "broken", "broken_plugin:plugin", BROKEN)
    off = cli(env(tmp_path), "plugins", "--json")
    assert off.returncode == 0, off.stderr
    [row] = [r for r in map(json.loads, off.stdout.splitlines()) if r["name"] == "broken"]
    assert row["on"] is False and row["error"] == (
        "plugin broken: cannot be imported: ModuleNotFoundError: No module named 'stamp_engine_that_is_not_installed'")
    on = cli(env(tmp_path, PLUGINS="broken"), "plugins")
    assert on.returncode == EX_CONFIG
    assert "  error: plugin broken: cannot be imported: ModuleNotFoundError: No module named " \
           "'stamp_engine_that_is_not_installed'" in on.stdout.splitlines()
