"""Component-set variants as TOML files (a repriced noble is a variant: the same set with one gold cost changed)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from palais_sim.games.palais_royal.components import CARD_KEYS, ComponentSet, load_components


def to_toml(comps: ComponentSet, note: str = "") -> str:
    """The component set as a TOML file ``load_components`` reads back to the same content (and hash)."""
    lines = []
    if note:
        lines += [f"# {line}" for line in note.splitlines()] + [""]
    lines += ["[meta]", f"name = {_q(comps.name)}", f"reconstructed = {str(comps.reconstructed).lower()}",
              f"description = {_q(comps.description)}", "", "[park]",
              f"x2_fields = [{', '.join(str(f) for f in sorted(comps.x2_fields))}]", "", "[layouts]",
              f"first_game = {_q(comps.first_game_layout)}", "", "[cards]", f"copies = {comps.card_copies}", "",
              "[cards.prices]"]  # fmt: skip
    lines += [f"{k} = {comps.card_prices[k]}" for k in CARD_KEYS]
    for n in comps.nobles:
        lines += ["", "[[nobles]]", f"id = {_q(n.id)}", f"gold = {n.gold}", f"violet = {n.violet}",
                  f"turquoise = {n.turquoise}", f"points = {n.points}"]  # fmt: skip
        if n.privilege:
            lines.append(f"privilege = {_q(n.privilege)}")
    return "\n".join(lines) + "\n"


def _q(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def repriced(comps: ComponentSet, noble: str, gold: int) -> ComponentSet:
    """The set with ``noble`` at ``gold`` (everything else as it was)."""
    if noble not in comps.noble_index:
        raise ValueError(f"no noble {noble!r} in component set {comps.name}")
    if gold < 0:
        raise ValueError(f"a gold cost cannot be negative ({noble} at {gold})")
    nobles = tuple(replace(n, gold=gold) if n.id == noble else n for n in comps.nobles)
    return replace(comps, nobles=nobles, name=f"{comps.name}-{noble}-gold{gold}")


def write_variant(comps: ComponentSet, path: Path, note: str = "") -> Path:
    """Write the variant (unless the file already holds the same content) and check it loads to the same set."""
    text = to_toml(comps, note)
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    loaded = load_components(path.resolve())
    if loaded.hash != comps.hash:
        raise ValueError(f"{path}: the variant did not load back to the same component set")
    return path.resolve()
