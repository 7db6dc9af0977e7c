"""Our FEN and PGN: position files (:mod:`.position`) and replay logs (:mod:`.replay`), under the name both had
before they were split (``palais_sim.games.palais_royal.notation`` still imports them all)."""

from __future__ import annotations

from palais_sim.games.palais_royal.position import (
    POSITION_FORMAT,
    NotationError,
    components_from_ref,
    components_ref,
    export_position,
    import_position,
    load_position,
    read_json_file,
    save_position,
)
from palais_sim.games.palais_royal.replay import (
    REPLAY_FORMAT,
    ReplayWriter,
    decode_choice,
    encode_choice,
    read_replay,
    result_summary,
    verify_replay,
)

__all__ = [
    "POSITION_FORMAT",
    "REPLAY_FORMAT",
    "NotationError",
    "ReplayWriter",
    "components_from_ref",
    "components_ref",
    "decode_choice",
    "encode_choice",
    "export_position",
    "import_position",
    "load_position",
    "read_json_file",
    "read_replay",
    "result_summary",
    "save_position",
    "verify_replay",
]
