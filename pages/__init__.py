"""The server-rendered pages: the match list, upload, a match's report, its hands' replay,
a batch's progress and the docs. The top floor of the service's apps: it reads records,
analysis, reviews and accounts, and nothing below imports it."""
