"""The environment a study rendered from its committed evidence runs under (``study.compact``), in one light module:
the study layer sets it for the ``palais`` process it starts, the command line and ``arms.play_arm`` read it."""

from __future__ import annotations

# Set (to "1") in the environment of a study rendered from its committed evidence: every arm must be there, done;
# nothing is played, resumed, verified or written.
RENDER_ONLY_ENV = "PALAIS_RENDER_ONLY"
# The command that played the study, which the rendered page records (not the render's own command line).
RECORDED_COMMAND_ENV = "PALAIS_RECORDED_COMMAND"
