"""Balance studies: experiments designed to answer one question each, played through the tournament runner.

Every study pairs its arms on the same setup seeds and seat rotations (common random numbers: the same root seed and
the same group indices, so ``schedule.group_seed`` gives every arm the same games to start from), reads the arms'
runs with the analytics' paired tables (``analytics.paired``), and gives each verdict with an interval and an
equivalence margin. Arms are ordinary run directories under the study's directory, so a study is resumable and any
arm can be reported on with ``palais report``.

This package is the machinery every study uses (arms, the ledger, sequential looks, ladders, the match, rendering,
publishing) and the seats study every game has; a game's own studies live in its package
(``palais_sim/games/<game>/studies/``) and are named by its ``GAME.studies``.
"""
