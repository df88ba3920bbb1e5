from django.urls import path

from . import views

urlpatterns = [
    path("", views.match_list, name="match-list"),
    path("signup/", views.signup, name="signup"),
    path("upload/", views.upload, name="upload"),
    path("matches/<int:match_id>/", views.match_detail, name="match-detail"),
    path("matches/<int:match_id>/hands/<int:number>/replay/", views.hand_replay, name="hand-replay"),
    path("batches/<int:batch_id>/", views.batch_detail, name="batch-detail"),
]
