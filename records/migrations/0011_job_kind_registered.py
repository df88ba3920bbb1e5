"""A job's kind is any registered name (records.jobs.register_kind), not a choice of the field."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('records', '0010_game_keys_of_stored_matches'),
    ]

    operations = [
        migrations.AlterField(
            model_name='job',
            name='kind',
            field=models.CharField(max_length=20),
        ),
    ]
