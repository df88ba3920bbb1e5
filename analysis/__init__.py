"""Analysis of stored matches: the engine's findings (buraco.analysis), stored per match.

After a match's verdict is stored, an ``analyze`` job (a :class:`records.models.Job` row,
claimed like every job) runs :func:`buraco.analysis.analyze` on the record and stores its
findings as :class:`analysis.models.Finding` rows, served by :mod:`analysis.api`.
"""
