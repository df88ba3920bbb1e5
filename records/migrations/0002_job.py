"""Jobs on their own rows: a verify (and later an analyze) job per match."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("records", "0001_initial"),
    ]

    operations = [
        migrations.CreateModel(
            name="Job",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("kind", models.CharField(choices=[("verify", "Verify"), ("analyze", "Analyze")], max_length=10)),
                (
                    "status",
                    models.CharField(
                        choices=[("pending", "Pending"), ("running", "Running"), ("done", "Done"), ("failed", "Failed")],
                        default="pending",
                        max_length=10,
                    ),
                ),
                ("queue", models.CharField(default="interactive", max_length=20)),
                ("attempts", models.PositiveSmallIntegerField(default=0)),
                ("enqueued_at", models.DateTimeField(blank=True, null=True)),
                ("claimed_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("error", models.JSONField(blank=True, null=True)),
                ("version", models.CharField(blank=True, max_length=20)),
                (
                    "match",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="jobs", to="records.match"
                    ),
                ),
            ],
            options={
                "ordering": ["match", "kind"],
                "indexes": [
                    models.Index(fields=["status", "queue", "enqueued_at"], name="job_waiting_per_queue"),
                    models.Index(fields=["kind", "status"], name="job_kind_status"),
                ],
                "constraints": [
                    models.UniqueConstraint(fields=("match", "kind"), name="one_job_per_kind_per_match"),
                ],
            },
        ),
        migrations.AddField(
            model_name="match",
            name="sides",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="hand",
            name="plies",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
    ]
