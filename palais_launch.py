"""The `palais` command's entry point: Ctrl-C at any moment, from the first import on, ends with one line.

The console script starts here, in a top-level module of the standard library only, and not in ``palais_sim``: the
package's own ``__init__`` takes 40-120 ms to import (the compiled-engine check, the old module names) and a Ctrl-C
in it gave a traceback; ``palais_sim.cli`` then loads Typer, the games and the engine (a few tenths of a second;
polars, numpy and the rest load in the commands that use them). While they load, Ctrl-C (or SIGTERM, SIGHUP) ends
the process at once with one line and status 128+N: nothing has started that could need cleaning up. Once the
command runs, Ctrl-C is Python's KeyboardInterrupt again, so that a run can stop its workers and save its manifest
(the command then says how to resume); one that reaches the top unhandled is one line and status 130, never a
traceback. `python -m palais_sim.cli` runs this too.
"""

from __future__ import annotations

import os
import signal

_STOP = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))


def _line(signum: int) -> bytes:
    what = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
    return f"error: {what} while starting: nothing was played\n".encode()


def _exit_now(signum: int, frame: object) -> None:
    """While the imports load: one line and 128+N, at once (os.write and os._exit are safe in a handler)."""
    os.write(2, _line(signum))
    os._exit(128 + signum)


def _exit_after_start(signum: int, frame: object) -> None:
    """SIGTERM or SIGHUP outside a run (a run stops its workers and says how to resume): one line and 128+N."""
    os.write(2, f"error: stopped by {signal.Signals(signum).name}\n".encode())
    os._exit(128 + signum)


def main() -> None:
    """Run the `palais` command with the interrupt handling described above."""
    # a signal the caller ignores (a background job's SIGINT, nohup's SIGHUP) stays ignored
    previous = {sig: signal.getsignal(sig) for sig in _STOP}
    for sig, handler in previous.items():
        if handler is not signal.SIG_IGN:
            signal.signal(sig, _exit_now)
    from palais_sim.cli import main as run_palais  # the heavy imports

    for sig, handler in previous.items():
        # Ctrl-C is KeyboardInterrupt again. SIGTERM and SIGHUP keep a one-line exit with 128+N until a run installs
        # its own stop (and after it): the start takes a few tenths of a second now, so a SIGTERM soon after it
        # landed between the imports and the run, and killed the process without a word.
        keep = sig != signal.SIGINT and handler is signal.SIG_DFL
        signal.signal(sig, _exit_after_start if keep else handler)
    run_palais()


if __name__ == "__main__":
    main()
