"""The toy race's own study (``GAME.studies`` names it): does a longer race change the first seat's edge?

Laid out like a built-in game's studies: the study (``target``) at the study layer, playing its arms through the
shared study machinery and reading them with the shared analytics; its command line (``commands``) at the CLI layer.
"""
