"""Buraco rules engine and BRN (Buraco Record Notation).

Pure Python, no Django: usable alone. The modules import in one direction:
errors -> cards -> rules -> melds -> actions -> state -> scoring -> notation
-> replay -> selfplay -> cli.
"""

__version__ = "1.0.0"
