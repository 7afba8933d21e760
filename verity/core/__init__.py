"""The contract: claims, evidence graphs, gates, verification and reports.

Nothing here talks to a model, solves an optimization or prints: verifying a narration
needs only this package and :mod:`verity.text`.
"""
