from django.contrib import admin

from .models import Attempt, Puzzle

admin.site.register(Puzzle)
admin.site.register(Attempt)
