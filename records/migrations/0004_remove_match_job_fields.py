"""A match no longer carries its job (now a Job row) nor a second copy of its verdict (report)."""

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ("records", "0003_jobs_from_matches"),
    ]

    operations = [
        migrations.RemoveIndex(model_name="match", name="records_mat_owner_i_b0d4e0_idx"),
        migrations.RemoveIndex(model_name="match", name="records_mat_status_328d0e_idx"),
        migrations.RemoveField(model_name="match", name="status"),
        migrations.RemoveField(model_name="match", name="queue"),
        migrations.RemoveField(model_name="match", name="claimed_at"),
        migrations.RemoveField(model_name="match", name="attempts"),
        migrations.RemoveField(model_name="match", name="enqueued_at"),
        migrations.RemoveField(model_name="match", name="report"),
    ]
