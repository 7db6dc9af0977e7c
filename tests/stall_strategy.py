"""A greedy player that never finishes a game on a node whose environment sets ``PALAIS_TEST_STALL``: the cluster
test's way to be sure a chunk is in flight on the node it kills (elsewhere it plays exactly as ``greedy``)."""

from __future__ import annotations

import os
import threading

from strategies.palais_royal.greedy import GreedyStrategy

STALL = "PALAIS_TEST_STALL"


class StallOnMarkedNode(GreedyStrategy):
    """``greedy``, except that on a marked node its first decision waits for ever (until the node is killed)."""

    def choose(self, view, decision):
        if os.environ.get(STALL):
            threading.Event().wait()
        return super().choose(view, decision)
