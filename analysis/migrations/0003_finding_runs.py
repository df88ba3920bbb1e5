"""Fields of issue 13: a job's result; a finding's run, outcome and severity."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('analysis', '0002_finding_points_bigint'),
    ]

    operations = [
        migrations.AddField(
            model_name='finding',
            name='first_ply',
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='finding',
            name='last_ply',
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name='finding',
            name='outcome',
            field=models.CharField(blank=True, max_length=10, null=True),
        ),
        migrations.AddField(
            model_name='finding',
            name='severity',
            field=models.CharField(blank=True, max_length=12, null=True),
        ),
        migrations.AddField(
            model_name='finding',
            name='turns',
            field=models.PositiveIntegerField(default=1),
        ),
    ]
