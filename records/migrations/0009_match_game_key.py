"""A match's game key (buraco.notation.game_key), with the owner's index, and its record as read
(buraco.notation.dumps_stored)."""

from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('records', '0008_job_claimed_by'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='game_key',
            field=models.CharField(blank=True, default='', max_length=64),
        ),
        migrations.AddField(
            model_name='match',
            name='parsed',
            field=models.TextField(blank=True, editable=False, null=True),
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(fields=['owner', 'game_key'], name='match_owner_game'),
        ),
    ]
