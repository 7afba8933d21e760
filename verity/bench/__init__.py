"""The paired benchmark: records, statistics, rater agreement, report and runner.

The submodules that need numpy or matplotlib (``stats``, ``report``, ``runner``) are not
imported here, so the CLI starts without them; the constants below are shared.
"""

from verity.formats import MAX_REPAIRS

__all__ = ["DEFAULT_LEVEL", "DEFAULT_RESAMPLES", "MAX_REPAIRS", "RESULTS_FILE"]

#: Bootstrap resamples per interval.
DEFAULT_RESAMPLES = 10_000
#: Coverage of the bootstrap intervals.
DEFAULT_LEVEL = 0.95
#: The results file inside a run's output directory.
RESULTS_FILE = "results.jsonl"
