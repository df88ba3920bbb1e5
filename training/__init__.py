"""Training from one's own mistakes: puzzles made of findings, scheduled by spaced repetition.

Above records and analysis (it reads their models); pages may link to it, it never imports pages.
"""
