from django.apps import AppConfig


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
    verbose_name = "Accounts"

    def ready(self) -> None:
        from django.contrib.auth import get_user_model
        from django.db.models.signals import post_save

        from . import services

        # Every account gets its look-alike key, however it is made (sign-up, the admin,
        # createsuperuser, load_examples' demo): sign-up compares new names against all of them.
        post_save.connect(services.username_key_keep, sender=get_user_model(), dispatch_uid="username-key")
