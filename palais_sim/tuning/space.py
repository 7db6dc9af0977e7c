"""What a tuning searches: the numeric parameters of a strategy with their ranges, and the spec of a candidate."""

from __future__ import annotations

import dataclasses
import math

from palais_sim.core.game import Game
from palais_sim.registry import builtins, parse_spec, resolve, strategy_parameters


class TuneError(ValueError):
    """A tuning that cannot run as asked (a parameter that cannot be tuned, a budget too small, another DIR)."""


@dataclasses.dataclass(frozen=True)
class Dimension:
    name: str
    integer: bool
    low: float
    high: float
    default: float


def search_space(strategy: str, params: str | None, game: Game | None = None) -> list[Dimension]:
    """The parameters to tune: ``params`` names them (``a,b`` or ``a=low:high``), else every numeric parameter of
    the strategy's ``tuning_space()`` (a class without one: its numeric parameters, from 0 to twice the default).
    The default of each is the value in ``strategy`` as given, else the class's."""
    spec, cls, given = resolve(strategy, game)
    defaults = {**strategy_parameters(cls), **dict(given)}
    declared = getattr(cls, "tuning_space", None)
    ranges: dict[str, tuple[float, float]] = dict(declared()) if callable(declared) else {}
    if not ranges:
        for name, value in defaults.items():
            if isinstance(value, int | float) and not isinstance(value, bool):
                ranges[name] = _default_range(value)
    wanted: dict[str, tuple[float, float] | None]
    if params:
        wanted = {}
        for item in (p.strip() for p in params.split(",") if p.strip()):
            name, _, bounds = item.partition("=")
            name = name.strip()
            if bounds:
                low, sep, high = bounds.partition(":")
                try:
                    wanted[name] = (float(low), float(high))
                except ValueError:
                    raise TuneError(f"--params {item!r}: a range is written name=low:high") from None
                if not sep or wanted[name][0] >= wanted[name][1]:  # type: ignore[index]
                    raise TuneError(f"--params {item!r}: a range is written name=low:high with low < high")
            else:
                wanted[name] = None
    else:
        wanted = dict.fromkeys(ranges)
    space = []
    for name, bounds in wanted.items():
        default = defaults.get(name)
        if default is None or isinstance(default, bool) or not isinstance(default, int | float):
            numeric = [n for n, v in defaults.items() if isinstance(v, int | float) and not isinstance(v, bool)]
            raise TuneError(
                f"{spec.text}: {name!r} is not a numeric parameter; numeric parameters: {', '.join(numeric) or 'none'}"
            )
        low, high = bounds if bounds is not None else ranges.get(name, _default_range(default))
        integer = isinstance(default, int)
        if integer:
            low, high = math.ceil(low), math.floor(high)
        space.append(Dimension(name, integer, low, high, float(default)))
    if not space:
        raise TuneError(f"{spec.text} has no numeric parameters to tune")
    return space


def _default_range(value: float) -> tuple[float, float]:
    """A numeric parameter's range when its class declares none: 0 to twice the default, or the mirror image for a
    negative default (a penalty stays a penalty)."""
    return (min(2 * value, -1), 0) if value < 0 else (0, max(2 * value, 1))


def spec_with(strategy: str, values: dict[str, float], game: Game | None = None) -> str:
    """The strategy spec with these parameter values (over the ones it gives): ``name:param=0.41,...``."""
    spec = parse_spec(strategy, game)
    merged = {**spec.params, **{k: _text(v) for k, v in values.items()}}
    name = spec.text.split(":", 1)[0]
    head = name if name in builtins(game) else spec.target
    return head + (":" + ",".join(f"{k}={v}" for k, v in merged.items()) if merged else "")


def _text(value: float) -> str:
    return str(value) if isinstance(value, int) else f"{round(value, 3):g}"
