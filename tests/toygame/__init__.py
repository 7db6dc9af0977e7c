"""A toy third game that lives in the tests only: a card race with hidden hands (``rules``), its seat view
(``view``), two strategies (``strategies``), its ``GAME`` object (``game``), its report sections (``analysis``) and its
study (``studies``).

It is registered through the ``PALAIS_GAMES`` environment variable (``toy=tests.toygame.game:GAME``) and nothing
outside this folder names it: the proof that a third game needs no edit of palais_sim (tests/test_toy_game.py).
"""
