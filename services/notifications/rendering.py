"""The messages' words: Jinja2 templates, three per kind (the event name): `<kind>.subject.txt`,
`<kind>.txt` (the plain text) and `<kind>.html`, rendered with one context (docs/events-webhooks.md
lists it per kind). The built-in set is in services/notifications/templates/; a shop's folder
(NOTIFICATION_TEMPLATES) is searched first, then the folders a caller hands in (a plugin's), then
the built-in one, so a file of the same name replaces a built-in one. The built-ins are also
reachable as `builtin/<name>`, for an override of `base.html` that extends the built-in layout.

HTML is autoescaped, the text and the subject are not; a subject is one line (its whitespace is
collapsed). Every template of the shop's and the plugins' folders is compiled when the process
configures notifications: one that does not compile, or that extends or includes a template that
does not exist, stops start-up with its file named."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from jinja2 import (
    ChoiceLoader, Environment, FileSystemLoader, PrefixLoader, TemplateError, TemplateSyntaxError, meta,
    select_autoescape,
)

__all__ = ["BUILT_IN", "Rendered", "use_templates", "render", "money", "context"]

BUILT_IN = Path(__file__).resolve().parent / "templates"
SUFFIXES = (".html", ".txt")  # the files of a folder that are templates (the rest is ignored)


@dataclass(frozen=True)
class Rendered:
    subject: str
    text: str
    html: str


def money(amount: int, currency: str | None) -> str:
    """Minor units as a message shows them: `12.50 USD`."""
    return f"{amount / 100:.2f} {(currency or '').upper()}".strip()


def _environment(folders: Sequence[Path]) -> Environment:
    loader = ChoiceLoader([
        FileSystemLoader([*(str(f) for f in folders), str(BUILT_IN)]),
        PrefixLoader({"builtin": FileSystemLoader(str(BUILT_IN))}),
    ])
    env = Environment(
        loader=loader, autoescape=select_autoescape(enabled_extensions=("html",), default_for_string=False,
                                                    default=False),
        # Text templates are written as they read: a line holding only a tag leaves no blank line,
        # and the file's last newline is the message's.
        trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
    )
    env.filters["money"] = money
    return env


_env = _environment(())


def use_templates(shop_folder: str | None, extra_folders: Sequence[str | Path] = ()) -> None:
    """Search `shop_folder` (NOTIFICATION_TEMPLATES), then `extra_folders`, then the built-ins;
    raises ValueError naming the file when one of those folders' templates is broken."""
    global _env
    folders = [Path(f) for f in ([shop_folder] if shop_folder else []) + list(extra_folders)]
    for folder in folders:
        if not folder.is_dir():
            raise ValueError(f"notification templates: {folder} is not a folder")
    env = _environment(folders)
    for folder in folders:
        # Hidden files are an editor's or a sync tool's, not templates.
        for path in sorted(p for p in folder.rglob("*")
                           if p.is_file() and p.suffix in SUFFIXES and not p.name.startswith(".")):
            _check(env, folder, path)
    _env = env


def _check(env: Environment, folder: Path, path: Path) -> None:
    try:
        source = path.read_text(encoding="utf-8")
        env.compile(source, path.relative_to(folder).as_posix(), str(path))
        for name in meta.find_referenced_templates(env.parse(source)):
            if name is not None:
                env.get_template(name)  # an `extends` or `include` of a name that no folder has
    except TemplateSyntaxError as e:
        raise ValueError(f"notification template {path}, line {e.lineno}: {e.message}") from None
    except (TemplateError, UnicodeDecodeError) as e:
        raise ValueError(f"notification template {path}: {type(e).__name__}: {e}") from None


def context(
    data: dict, *, store_name: str, storefront_url: str, admin_url: str, link: str | None = None,
    token: str | None = None, customer: dict | None = None, order: object | None = None,
) -> dict:
    """What every template is given: `data` (the message's data, with its `token` and `link` when
    it has them), `store`, `customer` (or None), `order` (order kinds, else None) and `links`."""
    extra = {k: v for k, v in (("token", token), ("link", link)) if v is not None}
    return {
        "data": {**data, **extra}, "store": {"name": store_name}, "customer": customer, "order": order,
        "links": {"storefront_url": storefront_url.rstrip("/"), "admin_url": admin_url.rstrip("/"), "message": link},
    }


def render(kind: str, values: dict) -> Rendered:
    """The message of `kind` (an event name); raises jinja2's errors (the sending job is retried)."""
    values = {**values, "kind": kind}
    subject = " ".join(_env.get_template(f"{kind}.subject.txt").render(values).split())
    values["subject"] = subject
    return Rendered(subject, _env.get_template(f"{kind}.txt").render(values),
                    _env.get_template(f"{kind}.html").render(values))
