"""A readable turn-by-turn account of a game, for ``palais play``."""

from __future__ import annotations

from typing import IO

from palais_sim.games.palais_royal.board import IS_EDGE, ROOM_KEYS
from palais_sim.games.palais_royal.rules import FROM_SUPPLY, Decision, recruit_cost
from palais_sim.games.palais_royal.state import GameState


def _room(r: int) -> str:
    return ROOM_KEYS[r].replace("_", " ")


class TurnAccount:
    """Prints one line per decision that did something, with a heading per round."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self._round = -1

    def _say(self, text: str) -> None:
        self.out.write(text + "\n")

    def record(self, before: GameState, decision: Decision, choice: object) -> None:
        if decision.kind != "setup" and before.round != self._round:
            self._round = before.round
            final = " (final round)" if before.final_round else ""
            self._say(f"\n== Round {before.round}{final}: {before.nobles_left} nobles in the park ==")
        who = f"seat {decision.seat + 1}"
        line = self.describe(before, decision, choice)
        if line:
            self._say(f"  {who}: {line}")

    def describe(self, before: GameState, decision: Decision, choice: object) -> str:
        kind = decision.kind
        if kind == "setup":
            placed = ", ".join(f"{c} {_room(r)}" for r, c in enumerate(choice) if c)  # type: ignore[arg-type]
            return f"places {placed}"
        if kind == "cards":
            return f"plays {', '.join(choice)}" if choice else ""  # type: ignore[arg-type]
        if kind == "reinforce":
            count = choice if isinstance(choice, int) else choice[0]  # type: ignore[index]
            return f"reinforces: {count} servant(s) to the gate" if count else ""
        if kind == "move":
            if not choice:
                return ""
            moves = ", ".join(f"{c}x {_room(a)} -> {_room(b)}" for a, b, c in choice)  # type: ignore[union-attr]
            return f"moves {moves}"
        if kind == "seals":
            king, madame = choice[0], choice[1]  # type: ignore[index]
            parts = [f"{king} to the king" if king else "", f"{madame} to madame" if madame else ""]
            text = " and ".join(p for p in parts if p)
            return f"adds {text}" if text else ""
        if kind == "recruit":
            if choice is None:
                return ""
            field = choice if isinstance(choice, int) else choice[0]  # type: ignore[index]
            noble = before.components.nobles[before.park[field]]
            cost = recruit_cost(before, field)
            privilege = f", {noble.privilege}" if noble.privilege else ""
            source = choice[3] if isinstance(choice, list | tuple) and len(choice) == 4 else FROM_SUPPLY
            edge = f", edge servant from the {_room(source)}" if IS_EDGE[field] and source != FROM_SUPPLY else ""
            return (
                f"recruits {noble.id} ({noble.points} pts{privilege}) from field {field} "
                f"for {cost} gold, {noble.violet} violet + {noble.turquoise} turquoise seals{edge}"
            )
        if kind == "draw":
            return "draws no card" if choice == 0 and decision.max_count else ""
        if kind == "keep":
            kept = [decision.drawn[i] for i in choice]  # type: ignore[union-attr]
            return f"draws {len(decision.drawn)} card(s), keeps {', '.join(kept) or 'none'}"
        return ""

    def summary(self, result) -> None:
        self._say("")
        finished = "finished" if result.finished else "stopped unfinished at the round limit"
        self._say(f"Game over after {result.rounds} rounds ({finished}); seed {result.seed}, layout {result.layout}")
        self._say(
            f"{'seat':>4}  {'strategy':<16}{'nobles':>7}{'played':>7}{'hand':>6}{'park':>6}{'total':>7}{'card.':>6}"
        )
        for s in result.scores:
            mark = "  *" if s.seat in result.winners else ""
            self._say(
                f"{s.seat + 1:>4}  {result.strategies[s.seat]:<16}{s.nobles:>7}{s.cards_played:>7}"
                f"{s.cards_unplayed:>6}{s.park:>6}{s.total:>7}{s.cardinal:>6}{mark}"
            )
        names = ", ".join(f"seat {w + 1}" for w in result.winners)
        self._say(f"Winner{'s (shared)' if len(result.winners) > 1 else ''}: {names}")
