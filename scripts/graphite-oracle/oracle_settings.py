# graphite-web local settings for the oracle (named by GRAPHITE_SETTINGS_MODULE).
import os

SECRET_KEY = 'statbucket-graphite-oracle'
TIME_ZONE = 'UTC'
STORAGE_DIR = os.environ['ORACLE_STORAGE_DIR']
LOG_DIR = os.path.join(STORAGE_DIR, 'log')
DEFAULT_CACHE_DURATION = 0
DEFAULT_CACHE_POLICY = []
CACHES = {'default': {'BACKEND': 'django.core.cache.backends.dummy.DummyCache'}}
# its own tag database (tags/localdatabase.py), fed the tagged series of the spec
TAGDB = 'graphite.tags.localdatabase.LocalDatabaseTagDB'
USE_WORKER_POOL = False
ALLOWED_HOSTS = ['*']
DATABASES = {'default': {'ENGINE': 'django.db.backends.sqlite3', 'NAME': os.path.join(STORAGE_DIR, 'graphite.db')}}
