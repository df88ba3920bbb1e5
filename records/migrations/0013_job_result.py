"""Fields of issue 13: a job's result; a finding's run, outcome and severity."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('records', '0012_upload_key'),
    ]

    operations = [
        migrations.AddField(
            model_name='job',
            name='result',
            field=models.JSONField(blank=True, null=True),
        ),
    ]
