"""Sends StatsD lines with the PyPI `statsd` client (dev only; driven by
test/statsd/python-client.test.js). Usage: send.py PROTOCOL PORT
(PROTOCOL: tcp or udp). Sends a fixed mix and prints how many values it sent."""
import sys

import statsd

protocol, port = sys.argv[1], int(sys.argv[2])
if protocol == 'tcp':
    client = statsd.TCPStatsClient(host='127.0.0.1', port=port, timeout=30)
    client.connect()
else:
    client = statsd.StatsClient(host='127.0.0.1', port=port)

sent = 0
with client.pipeline() as pipe:
    for i in range(2000):
        pipe.incr('py.orders', (i % 4) + 1)
        sent += 1
    for i in range(500):
        pipe.timing('py.render', 8)
        sent += 1
    for i in range(50):
        pipe.gauge('py.pool', i)
        sent += 1
    # deltas (`+3|g`, `-1|g`) from the level the door holds
    pipe.gauge('py.pool', 3, delta=True)
    pipe.gauge('py.pool', -1, delta=True)
    sent += 2
    # a negative level: pystatsd sends `0|g` then `-4|g` (a delta from 0)
    pipe.gauge('py.level', -4)
    sent += 2
    for i in range(50):
        pipe.set('py.visitors', 'v%d' % i)
        sent += 1
    pipe.decr('py.stock', 3)
    sent += 1
if protocol == 'tcp':
    client.close()
print(sent)
