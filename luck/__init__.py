"""Luck apart from skill: the luck of every stock draw of an analysed match
(buraco.analysis.luck), run as its own job kind on the lowest-priority queue once the
analysis is stored, and served per hand and per player. Above records and analysis: they
know nothing of it (it registers its job kind, its signal receiver and its answers' keys).
"""
