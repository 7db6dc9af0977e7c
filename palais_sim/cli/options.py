"""The options every command that plays games shares, defined once: ``--game`` and the block of rule options.

The rule options are not written out here: :func:`with_rule_options` adds one ``--flag`` for every rule option any
registered game declares (``GAME.rule_options``), grouped under "Rule options" in ``--help``, and hands the command
the ones given as ``rules`` (name -> the text typed). :func:`rules_for` checks them against the game the command
plays: an option of another game is refused here, generically, never by a game naming its peer's option.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
import os
import shlex
import sys
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

import typer

from palais_sim.cli.errors import fail
from palais_sim.core.game import Game
from palais_sim.core.games import DEFAULT_GAME, GAMES, UnknownGame, get_game, registered
from palais_sim.core.rule_options import RuleOption
from palais_sim.core.seeds import ReservedSeed, check_root_seed
from palais_sim.study.environment import RECORDED_COMMAND_ENV

RULES_PANEL = "Rule options"
NO_RULES: Mapping[str, str] = MappingProxyType({})  # a command's ``rules`` default (with_rule_options fills it)
RULE_PREFIX = "rule__"  # the commands' keyword of a rule option's flag (never clashes with a command's own)


def parse_game(value: str | Game) -> Game:
    """``--game NAME`` as the game object: the command line's one look-up of the game's name (every ``--game``
    option parses with it, so a command receives the game itself and passes it on)."""
    if not isinstance(value, str):
        return value
    try:
        return get_game(value)
    except UnknownGame as exc:
        raise typer.BadParameter(str(exc)) from None


GameOpt = typer.Option(
    DEFAULT_GAME,
    "--game",
    parser=parse_game,
    metavar="GAME",
    help="The game, by name (`palais games` lists them: the built-in and registered ones)",
)


def game_option(default: str) -> Any:
    """A ``--game`` option without a default value (None): the command works out its game when none is given (a
    position file's game, a resumed run's); ``default`` says which in the help."""
    return typer.Option(None, "--game", parser=parse_game, metavar="GAME", help=f"The game \\[default: {default}]")


PositionGameOpt = game_option("the one whose position files have the file's format")


def refuse_reserved_seed(ctx: typer.Context, seed: int | None) -> int | None:
    """A root ``--seed`` in the range reserved for fitting value functions (core.seeds) is refused before any game:
    a published verdict's games must never be a fit's. A command with an eager ``--iteration-gate`` flag set (the
    replay of a model iteration's gate, part of that fit) takes one."""
    if seed is not None and not ctx.params.get("iteration_gate"):
        try:
            check_root_seed(seed)
        except ReservedSeed as exc:
            fail(str(exc))
    return seed


def root_seed_option(default: int | None, help: str) -> Any:
    """The ``--seed`` of a command whose games' results are published (a run, a match, a ladder, a study, a search):
    the root every game seed derives from, never one reserved for fitting."""
    return typer.Option(default, "--seed", "-s", help=help, callback=refuse_reserved_seed)


# The options the playing commands share beside the rule options (those come from the games: ``with_rule_options``).
ComponentsOpt = typer.Option(None, "--components", help="A component-set TOML file (default: the standard set)")
MaxRoundsOpt = typer.Option(100, "--max-rounds", help="Stop a game after this many rounds (recorded unfinished)")
MaxRoundsGameOpt = typer.Option(
    None,
    "--max-rounds",
    help="Stop a game after this many rounds (recorded unfinished) \\[default: the game's: 100; 200]",
)


AllowFailuresOpt = typer.Option(
    False, "--allow-failures", help="Exit 0 even when some games failed (they are kept with seed and error)"
)
# Where the games run, for every command that plays runs (simulate, each study and balance search, match).
BackendOpt = typer.Option(
    "local", "--backend", help="local (a process pool) | ray (needs pip install 'palais-sim\\[ray]')"
)
AddressOpt = typer.Option(
    None,
    "--address",
    help="Ray cluster to join ('auto': the one this node belongs to) \\[default: RAY_ADDRESS, else a local Ray]; "
    "--out must then be shared storage at the same path on every node",
)


def check_backend(backend: str, address: str | None) -> None:
    """``--backend`` and ``--address`` checked before anything is played: a known backend, an address only for
    Ray, and Ray importable (else the one-line install hint, as a ValueError like every other bad option)."""
    from palais_sim.tournament import ray_backend
    from palais_sim.tournament.pools import BACKENDS

    if backend not in BACKENDS:
        raise ValueError(f"--backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if address is not None and backend != "ray":
        raise ValueError("--address is only for --backend ray")
    if backend == "ray":
        try:
            ray_backend.require_ray()
        except ray_backend.RayUnavailable as exc:
            raise ValueError(str(exc)) from None


# The command a study records on its page, when not the one being run: a study rendered again from its evidence
# (``study.compact``) records the command that played it (in ``RECORDED_COMMAND_ENV``), a test's in-process study
# the command it stands for (in this context variable).
RECORDED_COMMAND: contextvars.ContextVar[str | None] = contextvars.ContextVar("recorded_command", default=None)


def _command() -> str:
    recorded = RECORDED_COMMAND.get() or os.environ.get(RECORDED_COMMAND_ENV)
    return recorded or "palais " + " ".join(shlex.quote(a) for a in sys.argv[1:])


def study_spec(
    strategies, groups, seed, margin, workers, game: Game, components=None, max_rounds=None,
    rules: Mapping[str, Any] | None = None, backend: str = "local", address: str | None = None,
):  # fmt: skip
    """The StudySpec of a study command's options (its skill levels default to its game's). ``rules``: the rule
    options given (``with_rule_options``; None: the ones given to the command being run). ``backend`` and
    ``address``: where every arm is played (:data:`BackendOpt`); ``workers`` None is one worker per arm locally and
    all the cluster's CPUs with Ray."""
    from palais_sim.study.common import StudySpec
    from palais_sim.tournament.schedule import Settings

    check_backend(backend, address)
    if workers is None and backend != "ray":
        workers = 1
    given = dict(_GIVEN.get() if rules is None else rules)
    base = Settings(
        components=str(components.resolve()) if components is not None else None,
        max_rounds=max_rounds or game.default_max_rounds, game=game, rules=rules_for(game, given),
    )  # fmt: skip
    skills = tuple(strategies) if strategies else game.skill_levels
    return StudySpec(
        strategies=skills, groups=groups, seed=seed, margin=margin, workers=workers, base=base, command=_command(),
        backend=backend, address=address,
    )  # fmt: skip


# ------------------------------------------------------------------------------------------------ the rule options


def declared_rule_options() -> dict[str, tuple[RuleOption, tuple[str, ...]]]:
    """Every rule option a registered game declares, by name, with the names of the games that declare it (the
    first declaration gives the flag its help). A registered game that cannot be loaded is left out: ``--game`` names
    it with its one-line error, and a broken plugin cannot break the other games' commands."""
    try:
        names = tuple(registered().items())
    except UnknownGame:
        names = tuple(GAMES.items())
    return dict(_declared(names))


@functools.cache
def _declared(games: tuple[tuple[str, str], ...]) -> tuple[tuple[str, tuple[RuleOption, tuple[str, ...]]], ...]:
    """:func:`declared_rule_options` of one registry (each game loaded once per process, however many commands)."""
    found: dict[str, tuple[RuleOption, tuple[str, ...]]] = {}
    for name, _target in games:
        try:
            game = get_game(name)
        except UnknownGame:
            continue
        for option in getattr(game, "rule_options", ()):
            first, owners = found.get(option.name, (option, ()))
            found[option.name] = (first, (*owners, game.name))
    return tuple(found.items())


def rules_for(game: Game, given: Mapping[str, Any]) -> dict[str, Any]:
    """The rule options given for a run of ``game``, with any that ``game`` does not declare refused in one line
    that says whose option it is. The values are the game's to check (``Settings`` reads them through the game's
    declarations; a bad one is a one-line error naming the option and what it takes)."""
    own = {o.name for o in game.rule_options}
    for name in given:
        if name not in own:
            owners = declared_rule_options().get(name, (None, ()))[1]
            flag = "--" + name.replace("_", "-")
            whose = f"a rule option of {' and '.join(owners)}" if owners else "not a rule option of any game"
            raise ValueError(f"{flag} is {whose}; {game.name} has none by that name")
    return dict(given)


_GIVEN: contextvars.ContextVar[Mapping[str, str]] = contextvars.ContextVar("rule_options_given", default=NO_RULES)


def _rule_parameter(option: RuleOption, owners: tuple[str, ...]) -> inspect.Parameter:
    where = ", ".join(owners)
    help_text = f"{where}: {option.help} \\[default: {option.default_text}]"
    info = typer.Option(
        None, option.flag, help=help_text, metavar=option.metavar, rich_help_panel=RULES_PANEL, show_default=False
    )
    return inspect.Parameter(
        RULE_PREFIX + option.name, inspect.Parameter.KEYWORD_ONLY, default=info, annotation=str | None
    )


class _WithRuleOptions:
    """A command with the rule-option block: its signature (which Typer reads when it builds the command line, at
    every run) is the command's own plus one option per declared rule option; a call hands the given ones to the
    command's ``rules`` parameter, or, for a command without one, to :func:`study_spec` through ``_GIVEN``."""

    def __init__(self, command: Callable[..., Any]) -> None:
        self._command = command
        self._own = inspect.signature(command, eval_str=True)
        own = self._own.parameters.values()
        self._flags = {flag for p in own for flag in getattr(p.default, "param_decls", None) or ()}
        self.__name__ = command.__name__
        self.__qualname__ = command.__qualname__
        self.__module__ = command.__module__
        self.__doc__ = command.__doc__

    def _options(self) -> list[tuple[RuleOption, tuple[str, ...]]]:
        """The declared options, but for the flags the command still defines itself."""
        return [(o, owners) for o, owners in declared_rule_options().values() if o.flag not in self._flags]

    @property
    def __signature__(self) -> inspect.Signature:  # noqa: PLW3201 - read by inspect.signature
        own = [p for name, p in self._own.parameters.items() if name != "rules"]
        extra = [_rule_parameter(o, owners) for o, owners in self._options()]
        return self._own.replace(parameters=[*own, *extra])

    @property
    def __annotations__(self) -> dict[str, Any]:  # noqa: PLW3201 - read by typing.get_type_hints
        return {p.name: p.annotation for p in self.__signature__.parameters.values() if p.annotation is not p.empty}

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        given = {k[len(RULE_PREFIX) :]: kwargs.pop(k) for k in list(kwargs) if k.startswith(RULE_PREFIX)}
        given = {k: v for k, v in given.items() if v is not None}
        if "rules" in self._own.parameters:
            return self._command(*args, rules=given, **kwargs)
        token = _GIVEN.set(given)
        try:
            return self._command(*args, **kwargs)
        finally:
            _GIVEN.reset(token)


def with_rule_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """Give a command the block of rule options: every option of every registered game, under "Rule options" in its
    help. The command takes them as ``rules: dict[str, str] = NO_RULES`` (the options given, by name) and passes
    them through :func:`rules_for` into ``Settings(rules=...)``. A command that still defines some rule option flags
    itself keeps those; without a ``rules`` parameter, :func:`study_spec` reads the given ones."""
    return _WithRuleOptions(command)
