"""The game key and the stored read form of every match stored before they existed, read
from its stored record (a record today's engine cannot read keeps neither)."""

from typing import Any

from django.db import migrations


def read_stored_records(apps: Any, schema_editor: Any) -> None:
    from buraco.errors import BuracoError
    from buraco.notation import dumps_stored, game_key, loads

    Match = apps.get_model("records", "Match")
    rows = Match.objects.filter(parsed__isnull=True).values_list("pk", "source")
    for pk, source in rows.iterator(chunk_size=200):
        try:
            record = loads(bytes(source))
        except BuracoError:
            continue
        Match.objects.filter(pk=pk).update(game_key=game_key(record), parsed=dumps_stored(record))


class Migration(migrations.Migration):
    dependencies = [("records", "0009_match_game_key")]

    operations = [migrations.RunPython(read_stored_records, migrations.RunPython.noop)]
