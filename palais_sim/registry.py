"""Load strategies by name: built-ins (``greedy``), the user's own (``package.module:Class``), with parameters
(``name:param=0.5,other=2``). Every error says what is available."""

from __future__ import annotations

import ast
import contextlib
import functools
import importlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from palais_sim.core.game import Game
from palais_sim.core.games import get_game

# Every function below takes the game object its caller holds (the command line resolved --game once); None, for a
# caller that plays the default game only (a test, a benchmark), is the registry's default game.


def builtins(game: Game | None = None) -> Mapping[str, str]:
    """The built-in strategies of ``game`` by name (``GAME.strategies``)."""
    return (get_game() if game is None else game).strategies


class StrategySpecError(ValueError):
    """A strategy name, class or parameter that cannot be used; the message lists what is available."""


@dataclass(frozen=True)
class StrategySpec:
    """A parsed strategy spec: what to load and with which parameters."""

    text: str
    target: str  # "module:Class"
    params: dict[str, object]

    @property
    def label(self) -> str:
        """The name shown in results: the spec as written, so two parameterisations stay apart."""
        return self.text


def split_strategy_list(text: str, game: Game | None = None) -> list[str]:
    """Split ``a,b:x=1,y=2,c`` into ``["a", "b:x=1,y=2", "c"]``: a ``key=value`` item belongs to the spec before."""
    specs: list[str] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        if "=" in item and ":" not in item.split("=", 1)[0] and specs:
            specs[-1] += "," + item
        else:
            specs.append(item)
    if not specs:
        raise StrategySpecError(f"no strategies in {text!r}; available: {', '.join(sorted(builtins(game)))}")
    return specs


def parse_spec(text: str, game: Game | None = None) -> StrategySpec:
    known = builtins(game)
    text = text.strip()
    name, params_text = text, ""
    if ":" in text:
        head, rest = text.split(":", 1)
        if head in known:
            name, params_text = head, rest
        else:
            # module:Class or module:Class:params
            cls_part, _, params_text = rest.partition(":")
            name = f"{head}:{cls_part}"
    if name in known:
        target = known[name]
    elif ":" in name:
        target = name
    else:
        raise StrategySpecError(
            f"unknown strategy {name!r}; built-ins{'' if game in (None, get_game()) else ' of ' + game.name}: "
            f"{', '.join(sorted(known))} (or your own as package.module:Class)"
        )
    params: dict[str, object] = {}
    for item in filter(None, (p.strip() for p in params_text.split(","))):
        if "=" not in item:
            raise StrategySpecError(f"strategy {text!r}: parameter {item!r} must be written key=value")
        key, value = (s.strip() for s in item.split("=", 1))
        params[key] = value
    return StrategySpec(text=text, target=target, params=params)


def strategy_class(target: str) -> type:
    module_name, _, class_name = target.partition(":")
    # Like ``python -m``: the user's own modules load from the working directory (the console script's
    # sys.path starts at its bin directory, not there).
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.append(os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise StrategySpecError(f"cannot import strategy module {module_name!r}: {exc}") from None
    cls = getattr(module, class_name, None)
    if cls is None:
        raise StrategySpecError(f"module {module_name!r} has no class {class_name!r}")
    if not callable(getattr(cls, "choose", None)):
        raise StrategySpecError(f"{target} does not satisfy the Strategy protocol: it needs a choose(view, decision)")
    return cls


def strategy_description(cls: type) -> str:
    """The class's docstring; for a compiled class (which keeps none at run time) read from its source file."""
    if cls.__doc__:
        return cls.__doc__.strip()
    source = _source_file(cls.__module__)
    if source is None:
        return ""
    for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ClassDef) and node.name == cls.__name__:
            return (ast.get_docstring(node) or "").strip()
    return ""


def _source_file(module_name: str) -> Path | None:
    """The ``.py`` file of a module, found through its package's directories: a compiled module's ``__file__`` names
    its shared library, and not always beside its source (how the build's shim was first imported decides)."""
    package, _, leaf = module_name.rpartition(".")
    parent = sys.modules.get(package) if package else None
    places = [Path(p) for p in getattr(parent, "__path__", ())]
    origin = getattr(sys.modules.get(module_name), "__file__", None)
    if origin:
        places.append(Path(origin).parent)
    return next((place / f"{leaf}.py" for place in places if (place / f"{leaf}.py").is_file()), None)


GAME_PARAMETER = "game"  # a strategy of every game takes the game it plays by this keyword: the registry passes it


@functools.cache
def takes_game(cls: type) -> bool:
    """Whether a strategy class plays any game and takes the game's name (``game``) when it is created."""
    try:
        return GAME_PARAMETER in inspect.signature(cls).parameters
    except (TypeError, ValueError):  # a compiled class without an inspectable signature
        return False


def strategy_parameters(cls: type) -> dict[str, object]:
    """The keyword parameters of a strategy class with their defaults: its ``parameters()`` classmethod if it has
    one (the built-in heuristic styles: a compiled class has no inspectable signature), else the keyword
    parameters of its ``__init__``. Looked up once per class and process; each call gets its own dict (a caller
    that fills in a spec's values must not change the next caller's defaults)."""
    return dict(_declared_parameters(cls))


@functools.cache
def _declared_parameters(cls: type) -> tuple[tuple[str, object], ...]:
    declared = getattr(cls, "parameters", None)
    if callable(declared):
        return tuple(dict(declared()).items())
    sig = inspect.signature(cls)
    return tuple(
        (name, p.default)
        for name, p in sig.parameters.items()
        if name not in ("self", GAME_PARAMETER)
        and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)
        and p.default is not p.empty
    )


def _convert(value: object, default: object, where: str) -> object:
    if not isinstance(value, str):
        return value
    try:
        if isinstance(default, bool):
            if value.lower() in ("1", "true", "yes", "on"):
                return True
            if value.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if isinstance(default, int):
            return int(value)
        if isinstance(default, float):
            return float(value)
    except ValueError:
        raise StrategySpecError(f"{where}: {value!r} is not a valid {type(default).__name__}") from None
    return value


@functools.cache
def resolve(text: str, game: Game | None = None) -> tuple[StrategySpec, type, tuple[tuple[str, object], ...]]:
    """The spec, the class and the converted keyword arguments of a strategy spec: worked out once per process
    (a tournament worker creates a fresh instance for every game from this)."""
    spec = parse_spec(text, game)
    cls = strategy_class(spec.target)
    known = strategy_parameters(cls)
    kwargs = {}
    for key, value in spec.params.items():
        if key not in known:
            available = ", ".join(f"{k}={v}" for k, v in known.items()) or "none"
            raise StrategySpecError(f"strategy {spec.text!r}: unknown parameter {key!r}; parameters: {available}")
        kwargs[key] = _convert(value, known[key], f"strategy {spec.text!r} parameter {key!r}")
    return spec, cls, tuple(kwargs.items())


def load_strategy(text: str, game: Game | None = None):
    """A new instance of the strategy ``text`` names (a built-in of ``game``, or ``module:Class``), its ``name`` set to
    the spec as written."""
    spec, cls, items = resolve(text, game)
    kwargs = dict(items)
    if takes_game(cls):
        kwargs[GAME_PARAMETER] = (get_game() if game is None else game).name  # a strategy takes its game by name
    try:
        instance = cls(**kwargs)
    except Exception as exc:  # noqa: BLE001 - a user's class may raise anything on bad parameters
        raise StrategySpecError(f"strategy {spec.text!r} could not be created: {exc}") from None
    with contextlib.suppress(AttributeError):
        instance.name = spec.label
    return instance


def run_parameters(specs: tuple[str, ...], game: Game | None = None) -> dict[str, dict[str, object]]:
    """Each strategy spec of a run with every parameter it runs with (the class's defaults, then the spec's values),
    as the run manifest records them. Each spec is created once here: one its class refuses fails before any game."""
    out: dict[str, dict[str, object]] = {}
    for text in dict.fromkeys(specs):
        load_strategy(text, game)
        _spec, cls, given = resolve(text, game)
        params = {**strategy_parameters(cls), **dict(given)}
        out[text] = {k: v if isinstance(v, str | int | float | bool | None) else repr(v) for k, v in params.items()}
    return out


def load_strategies(text: str, players: int | None = None, game: Game | None = None) -> list:
    specs = split_strategy_list(text, game)
    if players is not None and len(specs) == 1:
        specs = specs * players
    if players is not None and len(specs) != players:
        raise StrategySpecError(f"{players} players need {players} strategies (or one for all), got {len(specs)}")
    return [load_strategy(s, game) for s in specs]
