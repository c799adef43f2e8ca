"""What `commerce migrate`, `seed` and `start` say while they work: each migration as it starts
(`migrating: 3/19 0003_apps_gift_cards`) and how far a seed file's load is (`loading demo store:
products 4/10`), one line each, flushed, so a first run on a slow machine is never silent."""

from __future__ import annotations

from typing import TextIO

__all__ = ["MigrationProgress", "SeedProgress"]


class MigrationProgress:
    """Tortoise's `reporter` (the plan, before anything runs) and `progress` (each step) hooks."""

    def __init__(self, out: TextIO):
        self.out, self.total, self.done = out, 0, 0

    def reporter(self, connection: str, plan: list, fake: bool, dry_run: bool) -> None:
        self.total += len(plan)

    def progress(self, event: str, app_label: str, name: str) -> None:
        if event == "apply_start":  # a plugin's migrations are named with the plugin
            self.done += 1
            whose = "" if app_label == "models" else f"{app_label} "
            print(f"migrating: {self.done}/{self.total} {whose}{name}", file=self.out, flush=True)
        elif event == "rollback_start":
            print(f"migrating: rolling back {name}", file=self.out, flush=True)


class SeedProgress:
    """`load_seed`'s progress hook: a line a section, or about ten for a section of ten or more."""

    def __init__(self, what: str, out: TextIO):
        self.what, self.out = what, out

    def __call__(self, section: str, done: int, total: int) -> None:
        if done == total or done % (total // 10 if total >= 10 else total) == 0:
            print(f"{self.what}: {section.replace('_', ' ')} {done}/{total}", file=self.out, flush=True)
