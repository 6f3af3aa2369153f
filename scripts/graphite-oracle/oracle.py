"""graphite-web 1.1.10 as a test oracle, in-process (Django's test client).

Reads a JSON spec from the file named by argv[1]:
  { "events": [{"metric", "value", "time" (epoch ms)}],
    "requests": [{"path": "/render", "params": [[key, value], ...]}] }
builds whisper files from the events the way statbucket stores them (one-minute
archive, sum aggregation, xFilesFactor 0, every minute of every UTC day that has
an event stored, zeros included), and prints one JSON answer per request:
  [{"status": 200, "body": <parsed JSON or text>}, ...]
"""
import json
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict

DAY = 86400
MINUTE = 60


def build_whisper(whisper_dir, events):
    import whisper
    minutes = defaultdict(lambda: defaultdict(float))
    days = defaultdict(set)
    for e in events:
        t = e['time'] // 1000
        minutes[e['metric']][t - t % MINUTE] += e['value']
        days[e['metric']].add(t - t % DAY)
    now = int(time.time())
    for metric, metric_days in days.items():
        first = min(metric_days)
        retention_points = (now - first) // MINUTE + 2 * DAY // MINUTE
        path = os.path.join(whisper_dir, *metric.split('.')) + '.wsp'
        os.makedirs(os.path.dirname(path), exist_ok=True)
        whisper.create(path, [(MINUTE, retention_points)], xFilesFactor=0, aggregationMethod='sum', sparse=True)
        points = []
        for day in sorted(metric_days):
            for m in range(day, day + DAY, MINUTE):
                value = minutes[metric].get(m, 0)
                points.append((m, int(value) if float(value).is_integer() else value))
        whisper.update_many(path, points)


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    storage = tempfile.mkdtemp(prefix='statbucket-oracle-')
    os.environ['ORACLE_STORAGE_DIR'] = storage
    os.makedirs(os.path.join(storage, 'log'), exist_ok=True)
    whisper_dir = os.path.join(storage, 'whisper')
    os.makedirs(whisper_dir, exist_ok=True)
    build_whisper(whisper_dir, spec['events'])

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    os.environ['GRAPHITE_SETTINGS_MODULE'] = 'oracle_settings'
    os.environ['DJANGO_SETTINGS_MODULE'] = 'graphite.settings'
    import django
    django.setup()
    from django.core.management import call_command
    call_command('migrate', verbosity=0, interactive=False)  # the find view reads the user profile
    from django.test import Client
    client = Client()
    answers = []
    for request in spec['requests']:
        params = {}
        for key, value in request['params']:
            params.setdefault(key, []).append(value)
        try:
            response = client.get(request['path'], params)
        except Exception as e:  # graphite-web raised instead of answering
            answers.append({'status': 500, 'body': '%s: %s' % (type(e).__name__, e)})
            continue
        text = response.content.decode('utf-8')
        try:
            body = json.loads(text)
        except ValueError:
            body = text
        answers.append({'status': response.status_code, 'body': body})
    json.dump(answers, sys.stdout)


if __name__ == '__main__':
    try:
        main()
    finally:
        if os.environ.get('ORACLE_STORAGE_DIR', '').startswith(tempfile.gettempdir()):
            shutil.rmtree(os.environ['ORACLE_STORAGE_DIR'], ignore_errors=True)
