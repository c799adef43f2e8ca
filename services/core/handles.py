"""Handles: the slug a product or collection gets from its title, as lodash's `kebabCase` makes
it (Medusa v1 uses lodash), so handles match what a Medusa store would have made."""

from __future__ import annotations

import re

__all__ = ["kebab_case"]

_DEBURRED = str.maketrans({ch: plain for plain, chars in (
    ("A", "ÀÁÂÃÄÅĀĂĄ"), ("Ae", "Æ"), ("C", "ÇĆĈĊČ"), ("D", "ÐĎĐ"), ("E", "ÈÉÊËĒĔĖĘĚ"),
    ("G", "ĜĞĠĢ"), ("H", "ĤĦ"), ("I", "ÌÍÎÏĨĪĬĮİ"), ("IJ", "Ĳ"), ("J", "Ĵ"), ("K", "Ķ"),
    ("L", "ĹĻĽĿŁ"), ("N", "ÑŃŅŇŊ"), ("O", "ÒÓÔÕÖØŌŎŐ"), ("Oe", "Œ"), ("R", "ŔŖŘ"), ("S", "ŚŜŞŠ"),
    ("T", "ŢŤŦ"), ("Th", "Þ"), ("U", "ÙÚÛÜŨŪŬŮŰŲ"), ("W", "Ŵ"), ("Y", "ÝŶŸ"), ("Z", "ŹŻŽ"),
    ("a", "àáâãäåāăą"), ("ae", "æ"), ("c", "çćĉċč"), ("d", "ðďđ"), ("e", "èéêëēĕėęě"),
    ("g", "ĝğġģ"), ("h", "ĥħ"), ("i", "ìíîïĩīĭįı"), ("ij", "ĳ"), ("j", "ĵ"), ("k", "ķĸ"),
    ("l", "ĺļľŀł"), ("'n", "ŉ"), ("n", "ñńņňŋ"), ("o", "òóôõöøōŏő"), ("oe", "œ"), ("r", "ŕŗř"),
    ("s", "śŝşšſ"), ("ss", "ß"), ("t", "ţťŧ"), ("th", "þ"), ("u", "ùúûüũūŭůűų"), ("w", "ŵ"),
    ("y", "ýÿŷ"),
) for ch in chars})
_COMBO_RANGE = r"\u0300-\u036f\ufe20-\ufe2f\u20d0-\u20ff"
_COMBO_MARK = re.compile(f"[{_COMBO_RANGE}]")
_APOS = re.compile("['\u2019]")
_HAS_UNICODE_WORD = re.compile(r"[a-z][A-Z]|[A-Z]{2}[a-z]|[0-9][a-zA-Z]|[a-zA-Z][0-9]|[^a-zA-Z0-9 ]")
_ASCII_WORD = re.compile(r"[^\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+")


def _unicode_word() -> re.Pattern:
    # lodash 4.17's reUnicodeWord, piece for piece. It reads UTF-16 code units (no `u` flag), so
    # kebab_case hands it a string whose astral characters are split into surrogate pairs.
    astral, dingbat = r"\ud800-\udfff", r"\u2700-\u27bf"
    lower, upper = r"a-z\xdf-\xf6\xf8-\xff", r"A-Z\xc0-\xd6\xd8-\xde"
    space = (r" \t\x0b\f\xa0\ufeff\n\r\u2028\u2029\u1680\u180e\u2000\u2001\u2002\u2003\u2004\u2005"
             r"\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000")
    brk_range = r"\xac\xb1\xd7\xf7" + r"\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\xbf" + r"\u2000-\u206f" + space
    apos, brk, digits = "['\u2019]", f"[{brk_range}]", r"\d+"
    r_lower, r_upper = f"[{lower}]", f"[{upper}]"
    misc = f"[^{astral}{brk_range}{digits}{dingbat}{lower}{upper}]"
    fitz, regional = r"\ud83c[\udffb-\udfff]", r"(?:\ud83c[\udde6-\uddff]){2}"
    surr_pair = r"[\ud800-\udbff][\udc00-\udfff]"
    modifier = f"(?:[{_COMBO_RANGE}]|{fitz})"
    misc_lower, misc_upper = f"(?:{r_lower}|{misc})", f"(?:{r_upper}|{misc})"
    contr_lower, contr_upper = f"(?:{apos}(?:d|ll|m|re|s|t|ve))?", f"(?:{apos}(?:D|LL|M|RE|S|T|VE))?"
    opt_var = r"[\ufe0e\ufe0f]?"
    opt_join = f"(?:\\u200d(?:[^{astral}]|{regional}|{surr_pair}){opt_var}{modifier}?)*"
    ord_lower = r"\d*(?:1st|2nd|3rd|(?![123])\dth)(?=\b|[A-Z_])"
    ord_upper = r"\d*(?:1ST|2ND|3RD|(?![123])\dTH)(?=\b|[a-z_])"
    emoji = f"(?:[{dingbat}]|{regional}|{surr_pair}){opt_var}{modifier}?{opt_join}"
    end = r"\Z"  # JavaScript's `$` without the m flag; Python's would also match before a final newline
    return re.compile("|".join([
        f"{r_upper}?{r_lower}+{contr_lower}(?={brk}|{r_upper}|{end})",
        f"{misc_upper}+{contr_upper}(?={brk}|{r_upper}{misc_lower}|{end})",
        f"{r_upper}?{misc_lower}+{contr_lower}",
        f"{r_upper}+{contr_upper}",
        ord_upper, ord_lower, digits, emoji,
    ]), re.ASCII)  # ASCII: `\d` and `\b` as JavaScript reads them


_UNICODE_WORD = _unicode_word()


def _utf16_units(text: str) -> str:
    return "".join(
        c if ord(c) < 0x10000 else chr(0xD800 + ((ord(c) - 0x10000) >> 10)) + chr(0xDC00 + ((ord(c) - 0x10000) & 0x3FF))
        for c in text
    )


def _from_units(units: str) -> str:
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def kebab_case(text: str) -> str:
    """lodash's `kebabCase`, as Medusa v1 derives a handle from a title: accents dropped, words
    split on spaces, punctuation, camelCase and letter/digit boundaries (`fooBar baz` -> `foo-bar-baz`,
    `abc123def` -> `abc-123-def`, `Café` -> `cafe`), lower-cased and joined by `-`."""
    plain = _APOS.sub("", _COMBO_MARK.sub("", text.translate(_DEBURRED)))
    if _HAS_UNICODE_WORD.search(plain):
        words = [_from_units(m.group()) for m in _UNICODE_WORD.finditer(_utf16_units(plain))]
    else:
        words = _ASCII_WORD.findall(plain)
    return "-".join(w.lower() for w in words)


# ---------------------------------------------------------------- collections
