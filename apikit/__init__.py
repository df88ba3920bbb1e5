"""What every app's API shares: the one error shape and its handler (:mod:`apikit.errors`),
rate limits read from settings (:mod:`apikit.throttling`) and the schema's own page
(:mod:`apikit.schema`). The lowest floor of the service: it imports no app."""
