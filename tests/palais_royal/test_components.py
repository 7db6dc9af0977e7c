"""Component sets (RULES.md section 9): the standard set ships as data, variants load, bad files are named."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from palais_sim.core.toml_guide import standard_set_text
from palais_sim.games.palais_royal.components import (
    CARD_KEYS,
    ComponentError,
    load_components,
    parse_components,
    standard_components,
)
from palais_sim.games.palais_royal.scoring import park_points
from palais_sim.games.palais_royal.setup import new_game
from palais_sim.games.palais_royal.state import RuleOptions, servant_code

STANDARD_TEXT = standard_set_text("palais_sim.games.palais_royal")

# RULES.md section 9, transcribed: id, gold, violet, turquoise, points, privilege.
RULES_NOBLES = """
N01 0 1 1 4 -|N02 0 1 1 4 -|N03 3 1 1 5 -|N04 3 1 1 5 -|N05 6 1 1 6 -|N06 6 1 1 6 -|N07 0 2 0 4 -|N08 0 0 2 4 -
N09 3 2 0 5 -|N10 3 0 2 5 -|N11 6 2 0 6 -|N12 6 0 2 6 -|N13 1 3 0 6 -|N14 1 0 3 6 -|N15 5 2 1 8 -|N16 5 1 2 8 -
N17 2 2 2 9 -|N18 2 2 2 9 -|N19 0 4 0 8 -|N20 0 0 4 8 -|N21 3 3 1 9 -|N22 3 1 3 9 -|N23 4 3 2 11 -|N24 4 2 3 11 -
N25 4 0 2 3 mint_plus2|N26 4 2 0 3 mint_plus2|N27 2 2 2 4 servants_plus3|N28 2 2 2 4 servants_plus3
N29 0 1 1 2 servants_plus1|N30 0 1 1 2 servants_plus1|N31 3 2 1 2 reinforce_plus2|N32 3 1 2 2 reinforce_plus2
N33 2 2 1 4 move_plus2|N34 2 1 2 4 move_plus2|N35 2 1 0 1 diagonal_move|N36 2 0 1 1 diagonal_move
N37 3 2 0 2 king_plus1|N38 3 2 0 2 king_plus1|N39 3 0 2 2 madame_plus1|N40 3 0 2 2 madame_plus1
N41 1 1 0 1 cards_plus3|N42 1 0 1 1 cards_plus3
"""
RULES_PRICES = {
    "all_majorities": 3,
    "free_reinforce": 3,
    "reinforce2_move6": 3,
    "move5": 1,
    "move9": 2,
    "two_seals": 2,
    "gold4": 0,
    "points2": 1,
    "points4": 2,
}
STANDARD_HASH = "01660a440b62"  # a change here is a change of the default set: review it


def write(tmp_path: Path, text: str, name: str = "variant.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def edited(old: str, new: str, count: int = 1) -> str:
    assert old in STANDARD_TEXT, old
    return STANDARD_TEXT.replace(old, new, count)


# ============================================================================ the standard set


def test_standard_set_loads_with_42_nobles_and_is_marked_reconstructed() -> None:
    components = load_components()
    assert components is standard_components()
    assert len(components.nobles) == 42
    assert len({n.id for n in components.nobles}) == 42
    assert components.reconstructed
    assert components.card_copies == 4 and len(components.deck()) == 36


def test_standard_set_matches_rules_section_9() -> None:
    components = standard_components()
    expected = []
    for entry in RULES_NOBLES.replace("\n", "|").split("|"):
        if entry.strip():
            noble_id, gold, violet, turquoise, points, privilege = entry.split()
            expected.append(
                (noble_id, int(gold), int(violet), int(turquoise), int(points), None if privilege == "-" else privilege)
            )
    actual = [(n.id, n.gold, n.violet, n.turquoise, n.points, n.privilege) for n in components.nobles]
    assert actual == expected
    assert components.card_prices == RULES_PRICES
    assert components.x2_fields == frozenset({2, 3, 12, 18, 17, 23, 32, 33})
    assert components.first_game_layout == "PMS/KGD/COB"


def test_standard_hash_is_stable() -> None:
    assert standard_components().hash == STANDARD_HASH


def test_hash_ignores_file_name_comments_and_formatting(tmp_path: Path) -> None:
    stripped = "\n".join(line for line in STANDARD_TEXT.splitlines() if not line.lstrip().startswith("#"))
    path = write(tmp_path, stripped.replace(" = ", "="), "other-name.toml")
    assert load_components(path).hash == STANDARD_HASH


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('id = "N05"\ngold = 6', 'id = "N05"\ngold = 7'),
        ("move5 = 1", "move5 = 2"),
        ("x2_fields = [2, 3, 12, 18, 17, 23, 32, 33]", "x2_fields = [2, 3, 12, 18, 17, 23, 32]"),
        ('first_game = "PMS/KGD/COB"', 'first_game = "KGD/PMS/COB"'),
        ("copies = 4", "copies = 5"),
    ],
)
def test_hash_changes_with_any_value(tmp_path: Path, old: str, new: str) -> None:
    assert load_components(write(tmp_path, edited(old, new))).hash != STANDARD_HASH


def test_a_variant_set_is_used_by_the_game(tmp_path: Path) -> None:
    text = edited("x2_fields = [2, 3, 12, 18, 17, 23, 32, 33]", "x2_fields = [1]")
    text = text.replace('first_game = "PMS/KGD/COB"', 'first_game = "GPS/KMD/COB"')
    components = load_components(write(tmp_path, text))
    state = new_game(components, RuleOptions(layout="first-game"), 5)
    assert state.layout.code == "GPS/KMD/COB"
    park = [-1] * 36
    park[1] = servant_code(0)  # x2 in this variant
    park[2] = servant_code(1)
    park[3] = servant_code(1)
    state.park = tuple(park)
    assert park_points(state) == [2, 2]  # 2 against 2 in the top row: tied first


# ============================================================================ malformed files

MALFORMED = [
    ("bad_toml", edited('id = "N05"\ngold = 6', 'id = "N05"\ngold = = 6'), ["not valid TOML", "line"]),
    ("missing_field", edited('id = "N04"\ngold = 3\n', 'id = "N04"\n'), ["noble N04", "'gold' is missing"]),
    ("unknown_privilege", edited('"mint_plus2"', '"mint_plus3"'), ["noble N25", "unknown privilege", "mint_plus3"]),
    ("duplicate_id", edited('id = "N02"', 'id = "N01"'), ["noble N01", "duplicate id"]),
    ("unknown_field", edited('id = "N03"', 'id = "N03"\ncolour = "red"'), ["noble N03", "unknown field", "colour"]),
    ("negative_gold", edited('id = "N05"\ngold = 6', 'id = "N05"\ngold = -1'), ["noble N05", "'gold'", "at least 0"]),
    ("text_gold", edited('id = "N06"\ngold = 6', 'id = "N06"\ngold = "six"'), ["N06", "whole number"]),
    ("x2_off_the_edge", edited("32, 33]", "32, 14]"), ["park.x2_fields", "field 14", "not on an edge row"]),
    ("x2_outside_park", edited("32, 33]", "32, 36]"), ["park.x2_fields", "field 36", "outside the park"]),
    ("x2_twice", edited("32, 33]", "32, 32]"), ["park.x2_fields", "field 32", "twice"]),
    ("bad_layout_code", edited('"PMS/KGD/COB"', '"PMS/KGD/COX"'), ["layouts.first_game", "unknown room codes"]),
    ("layout_room_twice", edited('"PMS/KGD/COB"', '"PMS/KGD/COP"'), ["layouts.first_game", "each of the nine rooms"]),
    ("layout_shape", edited('"PMS/KGD/COB"', '"PMSK/GD/COB"'), ["layouts.first_game", "three rows"]),
    ("missing_price", edited("move5 = 1\n", ""), ["cards.prices", "'move5' is missing"]),
    ("unknown_card", edited("move5 = 1", "move5 = 1\nmove7 = 1"), ["cards.prices", "unknown card", "move7"]),
    ("too_few_nobles", STANDARD_TEXT.split('[[nobles]]\nid = "N36"')[0], ["nobles", "35 given", "36"]),
    # typos are errors naming the table or key, never a set that plays silently without it
    ("unknown_table", edited("[park]", "[prak]"), ["unknown table or key 'prak'", "[park]"]),
    ("unknown_park_key", edited("x2_fields =", "x2_field ="), ["[park]", "unknown key 'x2_field'", "x2_fields"]),
    ("unknown_meta_key", edited('name = "standard"', 'nmae = "standard"'), ["[meta]", "unknown key 'nmae'"]),
    ("unknown_cards_key", edited("copies = 4", "copys = 4"), ["[cards]", "unknown key 'copys'", "copies"]),
    ("unknown_layouts_key", edited("first_game =", "firstgame ="), ["[layouts]", "unknown key 'firstgame'"]),
    ("unknown_top_key", "colour = 'red'\n" + STANDARD_TEXT, ["unknown table or key 'colour'"]),
    (
        "missing_park",
        edited("[park]\n", "").replace("x2_fields = [2, 3, 12, 18, 17, 23, 32, 33]\n", ""),
        ["[park] is missing"],
    ),  # fmt: skip
]


@pytest.mark.parametrize(("text", "expected"), [(t, e) for _, t, e in MALFORMED], ids=[i for i, _, _ in MALFORMED])
def test_malformed_component_file_names_file_entry_and_problem(tmp_path: Path, text: str, expected: list[str]) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ComponentError) as info:
        load_components(path)
    message = str(info.value)
    assert message.startswith(str(path)), message
    assert "\n" not in message
    for part in expected:
        assert part in message, f"{part!r} not in {message!r}"


def test_an_empty_x2_list_is_allowed(tmp_path: Path) -> None:
    path = write(tmp_path, edited("x2_fields = [2, 3, 12, 18, 17, 23, 32, 33]", "x2_fields = []"))
    assert load_components(path).x2_fields == frozenset()


def test_missing_component_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "nowhere.toml"
    with pytest.raises(ComponentError, match="nowhere.toml: no such component file"):
        load_components(path)


def test_parse_components_validates_parsed_data_too() -> None:
    data = tomllib.loads(STANDARD_TEXT)
    data["cards"]["prices"] = {key: 1 for key in CARD_KEYS[:-1]}
    with pytest.raises(ComponentError, match=f"mine.toml: cards.prices: '{CARD_KEYS[-1]}' is missing"):
        parse_components(data, "mine.toml")
