"""The check pipeline, serial and pure: checking files against a project index.

    facts (``initlint.facts``) -> index (``initlint.index``) -> simulation
    (``initlint.simulation``) -> rules (``initlint.rules``) -> report (this package)

``setup``: a check's set-up, shared with the driver (report files, the project's modules
and environment, the index and analysis over a loader handed in); ``analysis``: the run's
record (:class:`~initlint.pipeline.analysis.Analysis`) and the seams to the fixer;
``check``: one file's outcome and one module's check; ``report``: findings into
diagnostics (message wording, merging, selection); ``project``: the project's source roots,
walk, environment and dependency files; ``run``: the whole check, serially. Nothing here
starts a process, forks, tunes the garbage collector or keeps a cache of results: that is
``initlint.driver``, which imports this package and is never imported by it
(docs/architecture.md).
"""
