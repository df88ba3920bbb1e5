"""Buraco rules engine and BRN (Buraco Record Notation).

Pure Python, no Django: usable alone. The modules import in one direction:
errors -> cards -> rules -> melds -> actions -> moves -> state -> scoring
-> notation -> replay -> selfplay -> analysis -> cli. (``moves`` proposes plays
from the cards alone; it reads a state's ``verify_*`` methods only when asked to
judge one, without importing the state module.)
"""

# 1.1: the use-top, stand-in, end-directive and claimed-result rules of the sharpened
# contract; stored matches verified by 1.0 are verified again (manage.py reverify).
__version__ = "1.1.0"
