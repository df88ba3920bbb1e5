"""The records REST API, one module per resource: matches (list, upload, one match, its
report, BRN and source), hands (timeline, states, tries), sharing, progress (batches, status,
health). Every error answers in apikit's one format; ``access`` says who reaches a match."""
