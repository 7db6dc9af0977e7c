"""Search a strategy's numeric parameters for the highest win share against a pool, by simulation (`palais tune`).

- **Paired games** (``measure``). Every candidate plays the same games: a gauntlet (the candidate in one seat, its
  opponents drawn per rotation group from the pool by the tournament schedule's own gauntlet sampling), every setup
  seed in every seat rotation, the seeds from ``group_seed`` (the one seed function). Two candidates differ only by
  their play, so the search compares them on equal terms. Games are played with the game's own ``play`` (any game
  of ``palais games``) from the schedule's game specs (the runner's Parquet chunks would cost more than a trial's
  few hundred games take to play), through the tournament's executor (in-process, or a local pool of workers).
- **The optimiser** (``search``) is optuna's TPE sampler (multivariate), asked and told one trial at a time; every
  trial is kept in ``DIR/study.journal`` (optuna's journal storage), so an interrupted search resumes where it
  stopped. The first trial is the untuned spec itself.
- **The winner's curse.** Four fifths of the budget searches; the rest re-measures the best few trials on new seeds
  and the winner is chosen on that re-measurement, not on the luck that put it on top.
- **Validation** (not counted in the budget): the winner against the untuned spec on fresh seeds (root seed + 1):
  head to head (the winner in one seat, the untuned spec in the others, seats rotated), and both against the pool on
  the same games, with 95% intervals clustered on the rotation group (the analytics' ``stats.cluster_mean``).

``space`` says what is searched (the parameters and their ranges, a candidate's spec); ``palais_sim.cli.tune`` is
the command. ``DIR`` holds ``tune.json`` (the settings: a resume must give the same), ``study.journal``,
``confirm.json`` (the re-measurements) and ``result.json`` (the final spec and the validation figures).
"""
