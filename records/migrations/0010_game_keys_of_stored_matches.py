"""The game key of every match stored before it existed, read from its stored record (a
record today's engine cannot read keeps none)."""

from typing import Any

from django.db import migrations


def game_keys(apps: Any, schema_editor: Any) -> None:
    from buraco.errors import BuracoError
    from buraco.notation import game_key, loads

    Match = apps.get_model("records", "Match")
    for pk, source in Match.objects.filter(game_key="").values_list("pk", "source").iterator(chunk_size=200):
        try:
            key = game_key(loads(bytes(source)))
        except BuracoError:
            continue
        Match.objects.filter(pk=pk).update(game_key=key)


class Migration(migrations.Migration):
    dependencies = [("records", "0009_match_game_key")]

    operations = [migrations.RunPython(game_keys, migrations.RunPython.noop)]
