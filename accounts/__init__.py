"""Accounts: sign-up, API tokens, log-in, and the rule every username follows
(:mod:`accounts.usernames`): one rule for the API and the pages."""
