from django.urls import path

from . import views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path("accounts/login/", views.login_page, name="login"),  # Django's, with its attempts limited
]
