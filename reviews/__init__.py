"""Coaching reviews of a stored match: comments on plies, threads of replies, notes in and out of BRN."""
