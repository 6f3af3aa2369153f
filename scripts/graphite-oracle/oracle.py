"""graphite-web 1.1.10 as a test oracle, in-process (Django's test client).

Reads a JSON spec from the file named by argv[1]:
  { "events": [{"metric", "value", "time" (epoch ms)}],
    "requests": [{"path": "/render", "params": [[key, value], ...], "method": "GET" (default) or "POST" (a form body)}],
    "minuteFrom": epoch ms or absent, "now": epoch seconds (with minuteFrom) }
builds whisper files from the events the way statbucket stores them (one-minute
archive, sum aggregation, xFilesFactor 0, every minute of every UTC day that has
an event stored, zeros included), and prints one JSON answer per request.
With minuteFrom (statbucket's minute retention: the first UTC day keeping
minutes), the files hold three archives as statbucket's tiers: minutes from
minuteFrom on, quarter-hours and days before (written as quarter-hour sums,
whisper propagating them into days).
A tagged series (`name;k=v`) is stored where carbon stores it
(TaggedSeries.encode: _tagged/<hash>/…) and entered in graphite-web's own
tag database (LocalDatabaseTagDB), as carbon tags it.
Prints [{"status": 200, "body": <parsed JSON or text>}, ...].
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


QUARTER = 900


def build_whisper(whisper_dir, events, minute_from=None, at=None):
    import whisper
    from graphite.tags.utils import TaggedSeries
    minutes = defaultdict(lambda: defaultdict(float))
    days = defaultdict(set)
    for e in events:
        t = e['time'] // 1000
        minutes[e['metric']][t - t % MINUTE] += e['value']
        days[e['metric']].add(t - t % DAY)
    # with tiers, archives are chosen by age from the requests' `now` (graphite-web passes it to whisper)
    now = int(time.time()) if at is None else at
    number = lambda v: int(v) if float(v).is_integer() else v
    for metric, metric_days in days.items():
        first = min(metric_days)
        retention_points = (now - first) // MINUTE + 2 * DAY // MINUTE
        path = os.path.join(whisper_dir, TaggedSeries.encode(metric, os.sep)) + '.wsp'
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if minute_from is None:
            whisper.create(path, [(MINUTE, retention_points)], xFilesFactor=0, aggregationMethod='sum', sparse=True)
        else:
            # minutes reach back exactly to minute_from: older points go to the quarter-hour archive
            minute_points = (now - minute_from) // MINUTE
            whisper.create(path, [(MINUTE, minute_points), (QUARTER, retention_points // 15 + 1), (DAY, retention_points // 1440 + 2)],
                           xFilesFactor=0, aggregationMethod='sum', sparse=True)
        points = []
        for day in sorted(metric_days):
            if minute_from is not None and day < minute_from:
                for q in range(day, day + DAY, QUARTER):
                    points.append((q, number(sum(minutes[metric].get(m, 0) for m in range(q, q + QUARTER, MINUTE)))))
                continue
            for m in range(day, day + DAY, MINUTE):
                points.append((m, number(minutes[metric].get(m, 0))))
        whisper.update_many(path, points, now=now)


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    storage = tempfile.mkdtemp(prefix='statbucket-oracle-')
    os.environ['ORACLE_STORAGE_DIR'] = storage
    os.makedirs(os.path.join(storage, 'log'), exist_ok=True)
    whisper_dir = os.path.join(storage, 'whisper')
    os.makedirs(whisper_dir, exist_ok=True)
    minute_from = spec.get('minuteFrom')
    build_whisper(whisper_dir, spec['events'], None if minute_from is None else minute_from // 1000, spec.get('now'))

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    os.environ['GRAPHITE_SETTINGS_MODULE'] = 'oracle_settings'
    os.environ['DJANGO_SETTINGS_MODULE'] = 'graphite.settings'
    import django
    django.setup()
    from django.core.management import call_command
    call_command('migrate', verbosity=0, interactive=False)  # the find view reads the user profile
    from graphite.storage import STORE
    STORE.tagdb.tag_multi_series(sorted(set(e['metric'] for e in spec['events'] if ';' in e['metric'])))
    from django.test import Client
    client = Client()
    answers = []
    for request in spec['requests']:
        params = {}
        for key, value in request['params']:
            params.setdefault(key, []).append(value)
        try:
            if request.get('method') == 'POST':
                response = client.post(request['path'], params)
            else:
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
