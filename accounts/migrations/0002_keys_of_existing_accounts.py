"""The look-alike key of every account made before the rule: the oldest account of each
look keeps it (a later look-alike keeps its name and can log in, but holds no key)."""

from typing import Any

from django.db import migrations


def keys_of_existing_accounts(apps: Any, schema_editor: Any) -> None:
    from accounts.usernames import lookalike_key

    User = apps.get_model("auth", "User")
    UsernameKey = apps.get_model("accounts", "UsernameKey")
    taken = set(UsernameKey.objects.values_list("key", flat=True))
    new = []
    for user_id, username in User.objects.order_by("date_joined", "id").values_list("id", "username").iterator():
        key = lookalike_key(username)
        if key not in taken:
            taken.add(key)
            new.append(UsernameKey(user_id=user_id, key=key))
    UsernameKey.objects.bulk_create(new, batch_size=1000, ignore_conflicts=True)


class Migration(migrations.Migration):
    dependencies = [("accounts", "0001_initial")]

    operations = [migrations.RunPython(keys_of_existing_accounts, migrations.RunPython.noop)]
