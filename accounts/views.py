"""The sign-up and log-in pages: the same username rule and the same counters as the API."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.contrib.auth.views import LoginView
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import redirect, render

from apikit.throttling import page_refusal, refusal

from . import services, throttling


class SignupForm(UserCreationForm):  # type: ignore[type-arg]
    """Django's form, its username judged by :func:`accounts.services.username_problems`."""

    def clean_username(self) -> str:
        username = str(self.cleaned_data.get("username") or "")
        problems = services.username_problems(username)
        if problems:
            raise ValidationError(problems[0], code="invalid")
        return username

    def save(self, commit: bool = True) -> User:
        # The one way an account is made (accounts.services.user_create): the password was
        # checked by this form's validators already, and the key is kept there.
        return services.user_create(username=self.cleaned_data["username"], password=self.cleaned_data["password1"])


def signup(request: HttpRequest) -> HttpResponse:
    refused = page_refusal(throttling.SignupThrottle(), request, "sign-up")
    if refused:
        return refused
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = form.save()
        except services.SignupError as error:  # taken meanwhile
            for field, sentences in error.fields.items():
                form.add_error(field if field in form.fields else None, sentences)
        else:
            login(request, user)
            messages.success(request, f"Welcome, {user.username}. Upload your first record.")
            return redirect("upload")
    return render(request, "registration/signup.html", {"form": form})


def login_page(request: HttpRequest) -> HttpResponseBase:
    """Django's log-in page, its attempts limited per address and its failures per account,
    counted with the API's (/api/auth/token/)."""
    refused = page_refusal(throttling.LoginThrottle(), request, "log-in")
    if refused:
        return refused
    username = str(request.POST.get("username") or "") if request.method == "POST" else ""
    wait = throttling.account_locked_for(username)
    if wait is not None:
        return refusal(wait, "failed log-in")
    response = LoginView.as_view()(request)
    if request.method == "POST" and username and response.status_code == 200:  # the form again: not logged in
        throttling.account_failure(username)
    return response
