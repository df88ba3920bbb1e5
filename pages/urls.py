from django.urls import path

from . import views

urlpatterns = [
    path("", views.match_list, name="match-list"),
    path("upload/", views.upload, name="upload"),
    path("findings/", views.findings_explorer, name="findings"),
    path("players/<path:name>/", views.player, name="player"),
    path("matches/<int:match_id>/", views.match_detail, name="match-detail"),
    path("matches/<int:match_id>/share-link/", views.match_share_link, name="match-share-link"),
    path("matches/<int:match_id>/shared-with/", views.match_shared_with, name="match-shared-with"),
    path("matches/<int:match_id>/delete/", views.match_delete, name="match-delete"),
    path("matches/<int:match_id>/hands/<int:number>/replay/", views.hand_replay, name="hand-replay"),
    path("batches/<int:batch_id>/", views.batch_detail, name="batch-detail"),
    path("docs/", views.docs_index, name="docs"),
    path("docs/<slug:name>/", views.doc_page, name="docs-page"),
]
