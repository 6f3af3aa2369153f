[
  {
    "name": "/render against graphite-web 1.1.10 > every supported function and glob, relative -6h",
    "file": "/work/main/test/graphite/render-oracle.test.js"
  },
  {
    "name": "/render against graphite-web 1.1.10 > every supported function and glob, relative -2d..-1h across the empty day",
    "file": "/work/main/test/graphite/render-oracle.test.js"
  },
  {
    "name": "/render against graphite-web 1.1.10 > every supported function and glob, absolute HH:MM_YYYYMMDD",
    "file": "/work/main/test/graphite/render-oracle.test.js"
  },
  {
    "name": "/render against graphite-web 1.1.10 > every supported function and glob, absolute epoch seconds",
    "file": "/work/main/test/graphite/render-oracle.test.js"
  },
  {
    "name": "/render against graphite-web 1.1.10 > every supported function and glob, whole day YYYYMMDD",
    "file": "/work/main/test/graphite/render-oracle.test.js"
  },
  {
    "name": "/render against graphite-web 1.1.10 > several targets in one request, and maxDataPoints with an explicit consolidateBy",
    "file": "/work/main/test/graphite/render-oracle.test.js"
  },
  {
    "name": "/render against graphite-web 1.1.10 > nonNegativeDerivative with maxValue and minValue where no point is null (graphite-web fails on nulls there)",
    "file": "/work/main/test/graphite/render-oracle.test.js"
  },
  {
    "name": "/render against graphite-web 1.1.10 > differs on purpose: without consolidateBy statbucket sums where graphite-web averages",
    "file": "/work/main/test/graphite/render-oracle.test.js"
  },
  {
    "name": "/render past the minute retention against graphite-web 1.1.10 with archives as the tiers > every supported function and glob, over quarter-hours (before the horizon) and minutes (after it)",
    "file": "/work/main/test/graphite/render-oracle.test.js"
  },
  {
    "name": "/metrics/find and /metrics/expand against graphite-web 1.1.10 > answers the same nodes for globs at every level",
    "file": "/work/main/test/graphite/render-oracle.test.js"
  },
  {
    "name": "repair under load > repairs documents that are being incremented without losing or doubling an acknowledged event",
    "file": "/work/main/test/faults/repair-under-load.test.js"
  },
  {
    "name": "dashboard in headless Chromium > picks metrics, switches ranges and steps, shows gaps and the ytd total",
    "file": "/work/main/test/dashboard/dashboard.test.js"
  },
  {
    "name": "dashboard in headless Chromium > draws 20,000 points of a custom range",
    "file": "/work/main/test/dashboard/dashboard.test.js"
  },
  {
    "name": "dashboard in headless Chromium > refreshes by itself when auto-refresh is on",
    "file": "/work/main/test/dashboard/dashboard.test.js"
  },
  {
    "name": "dashboard in headless Chromium > asks for a read token on 401, stores it and sends it as a bearer token",
    "file": "/work/main/test/dashboard/dashboard.test.js"
  },
  {
    "name": "database outage > SIGSTOP of the database for 10 s: bounded 503/504, /readyz 503, bounded memory, recovery without a restart",
    "file": "/work/main/test/faults/outage.test.js"
  },
  {
    "name": "database outage > an H2-backed database stopped and restarted on the same port: 503 while down, recovery, no acknowledged event lost",
    "file": "/work/main/test/faults/outage.test.js"
  },
  {
    "name": "local boundaries match the wall clock read from Intl > in UTC: hour, day and month points over DST changes, month ends and the year end",
    "file": "/work/main/test/bucket/local-time.test.js"
  },
  {
    "name": "local boundaries match the wall clock read from Intl > in America/New_York: hour, day and month points over DST changes, month ends and the year end",
    "file": "/work/main/test/bucket/local-time.test.js"
  },
  {
    "name": "local boundaries match the wall clock read from Intl > in Europe/London: hour, day and month points over DST changes, month ends and the year end",
    "file": "/work/main/test/bucket/local-time.test.js"
  },
  {
    "name": "local boundaries match the wall clock read from Intl > in Australia/Lord_Howe: hour, day and month points over DST changes, month ends and the year end",
    "file": "/work/main/test/bucket/local-time.test.js"
  },
  {
    "name": "local boundaries match the wall clock read from Intl > in Asia/Kolkata: hour, day and month points over DST changes, month ends and the year end",
    "file": "/work/main/test/bucket/local-time.test.js"
  },
  {
    "name": "local boundaries match the wall clock read from Intl > in Asia/Kathmandu: hour, day and month points over DST changes, month ends and the year end",
    "file": "/work/main/test/bucket/local-time.test.js"
  },
  {
    "name": "local boundaries match the wall clock read from Intl > in Pacific/Chatham: hour, day and month points over DST changes, month ends and the year end",
    "file": "/work/main/test/bucket/local-time.test.js"
  },
  {
    "name": "the days and hours the tz database is known for > a spring-forward day is one point of 23 hours, a fall-back day one of 25 (30-minute changes on Lord Howe)",
    "file": "/work/main/test/bucket/local-time.test.js"
  },
  {
    "name": "the days and hours the tz database is known for > hour points fall at :30 UTC in Kolkata, at :15 in Kathmandu and in Chatham (+12:45); New York repeats 01:00 as two points",
    "file": "/work/main/test/bucket/local-time.test.js"
  },
  {
    "name": "the days and hours the tz database is known for > a local year begins at local midnight of 1 January",
    "file": "/work/main/test/bucket/local-time.test.js"
  },
  {
    "name": "the days and hours the tz database is known for > knows no zone the tz database does not name",
    "file": "/work/main/test/bucket/local-time.test.js"
  },
  {
    "name": "any window in any zone > the points partition the window, start on quarter-hours and last as long as a local hour, day or month can",
    "file": "/work/main/test/bucket/local-time.test.js"
  },
  {
    "name": "crash: kill -9 under load > keeps every acknowledged event, adds nothing that was not sent, and a restart carries on",
    "file": "/work/main/test/faults/process-faults.test.js"
  },
  {
    "name": "graceful stop: SIGTERM under load > stops accepting, flushes what is queued, answers every request it received, exits 0; stored = acknowledged exactly",
    "file": "/work/main/test/faults/process-faults.test.js"
  },
  {
    "name": "overload: a client far faster than the database > refuses the excess with 503 + Retry-After, keeps pending work under MAX_PENDING_EVENTS and RSS bounded; totals exact",
    "file": "/work/main/test/faults/process-faults.test.js"
  },
  {
    "name": "loadgen --url > runs across a simulated midnight, writes one CSV row per simulated minute, and every acknowledged event is stored",
    "file": "/work/main/test/scripts/loadgen-run.test.js"
  },
  {
    "name": "loadgen --mongodb > naive: every acknowledged event is in the database",
    "file": "/work/main/test/scripts/loadgen-run.test.js"
  },
  {
    "name": "loadgen --mongodb > coalesce: every acknowledged event is in the database",
    "file": "/work/main/test/scripts/loadgen-run.test.js"
  },
  {
    "name": "loadgen --mongodb > flat: every acknowledged event is in the database",
    "file": "/work/main/test/scripts/loadgen-run.test.js"
  },
  {
    "name": "request limits > a body over BODY_LIMIT_BYTES: 413",
    "file": "/work/main/test/security/limits.test.js"
  },
  {
    "name": "request limits > more than MAX_EVENTS_PER_REQUEST events: 413",
    "file": "/work/main/test/security/limits.test.js"
  },
  {
    "name": "request limits > metric names: 200 characters are written and queried, 201 are refused with 400",
    "file": "/work/main/test/security/limits.test.js"
  },
  {
    "name": "request limits > a series over MAX_POINTS: 400 naming the limit",
    "file": "/work/main/test/security/limits.test.js"
  },
  {
    "name": "request limits > a query string over 1024 bytes: 414",
    "file": "/work/main/test/security/limits.test.js"
  },
  {
    "name": "request limits > requestTimeout (time to receive a request) stays longer than a flush can take",
    "file": "/work/main/test/security/limits.test.js"
  },
  {
    "name": "on a listening server > headers over 16384 bytes: 431",
    "file": "/work/main/test/security/limits.test.js"
  },
  {
    "name": "on a listening server > a client trickling its headers (slow loris) is cut after headersTimeout",
    "file": "/work/main/test/security/limits.test.js"
  },
  {
    "name": "on a listening server > a client trickling its body is cut after requestTimeout, and nothing is written",
    "file": "/work/main/test/security/limits.test.js"
  },
  {
    "name": "local series > in UTC: hour points over its change day, day points over two months, month points over the year, each the sum of its events",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local series > in America/New_York: hour points over its change day, day points over two months, month points over the year, each the sum of its events",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local series > in Europe/London: hour points over its change day, day points over two months, month points over the year, each the sum of its events",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local series > in Australia/Lord_Howe: hour points over its change day, day points over two months, month points over the year, each the sum of its events",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local series > in Asia/Kolkata: hour points over its change day, day points over two months, month points over the year, each the sum of its events",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local series > in Asia/Kathmandu: hour points over its change day, day points over two months, month points over the year, each the sum of its events",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local series > in Pacific/Chatham: hour points over its change day, day points over two months, month points over the year, each the sum of its events",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local series > in UTC answers exactly as without tz",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local series > minute and quarter-hour points are the UTC ones in every zone",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local series > picks the finest step with at most MAX_POINTS points in the zone, and rounds the default window out in it",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local series > answers 400 naming an unknown zone, and changes nothing",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local year to date > in UTC: month by month the sums of the local months",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local year to date > in America/New_York: month by month the sums of the local months",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local year to date > in Europe/London: month by month the sums of the local months",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local year to date > in Australia/Lord_Howe: month by month the sums of the local months",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local year to date > in Asia/Kolkata: month by month the sums of the local months",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local year to date > in Asia/Kathmandu: month by month the sums of the local months",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local year to date > in Pacific/Chatham: month by month the sums of the local months",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local year to date > takes the year of asOf in the zone: 31 December 20:00 UTC is already 2027 in Kathmandu",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "local points where only UTC days are kept > answers UTC days, and refuses local days and local months with the horizon named",
    "file": "/work/main/test/routes/local-time.test.js"
  },
  {
    "name": "probabilistic preallocation > with p = 1 creates the next day zero-filled, and the next month on a month end",
    "file": "/work/main/test/routes/preallocation.test.js"
  },
  {
    "name": "probabilistic preallocation > never overwrites a count written before the preallocation",
    "file": "/work/main/test/routes/preallocation.test.js"
  },
  {
    "name": "probabilistic preallocation > does not preallocate beyond tomorrow of the service clock, and not at all with p = 0",
    "file": "/work/main/test/routes/preallocation.test.js"
  },
  {
    "name": "sweep > preallocates tomorrow for metrics written today, once",
    "file": "/work/main/test/routes/preallocation.test.js"
  },
  {
    "name": "sweep > never runs two sweeps at once",
    "file": "/work/main/test/routes/preallocation.test.js"
  },
  {
    "name": "sweep rate > writes at most PREALLOC_SWEEP_RATE documents per second",
    "file": "/work/main/test/routes/preallocation.test.js"
  },
  {
    "name": "sweep and close > stops a running sweep when the app closes",
    "file": "/work/main/test/routes/preallocation.test.js"
  },
  {
    "name": "failures to start, from the real process > a port already taken names PORT",
    "file": "/work/main/test/startup-failure.test.js"
  },
  {
    "name": "failures to start, from the real process > a database that cannot be reached names MONGODB_URI and the embedded default",
    "file": "/work/main/test/startup-failure.test.js"
  },
  {
    "name": "failures to start, from the real process > a data directory another statbucket holds names it and the way out",
    "file": "/work/main/test/startup-failure.test.js"
  },
  {
    "name": "failures to start, from the real process > Java missing for the embedded database says what to install",
    "file": "/work/main/test/startup-failure.test.js"
  },
  {
    "name": "failures to start, from the real process > shows the stack at LOG_LEVEL=debug only",
    "file": "/work/main/test/startup-failure.test.js"
  },
  {
    "name": "describeStartupFailure > names the credentials for an authentication failure (the server's error 18), with the password hidden",
    "file": "/work/main/test/startup-failure.test.js"
  },
  {
    "name": "describeStartupFailure > hides passwords in every URI it names",
    "file": "/work/main/test/startup-failure.test.js"
  },
  {
    "name": "describeStartupFailure > falls back to the first line of anything else, pointing at LOG_LEVEL=debug",
    "file": "/work/main/test/startup-failure.test.js"
  },
  {
    "name": "npm run retention > usage: --help exits 0; no --once, an unknown option or a bad setting exits 2",
    "file": "/work/main/test/scripts/retention.test.js"
  },
  {
    "name": "npm run retention > --once applies each metric its rule (RETENTION_RULES) and the variables to the rest; again changes nothing",
    "file": "/work/main/test/scripts/retention.test.js"
  },
  {
    "name": "npm run retention > a pass killed with SIGKILL half-way is finished by the next run once the lease expired",
    "file": "/work/main/test/scripts/retention.test.js"
  },
  {
    "name": "local points are the sums of the events between their local boundaries > at step hour, in every zone, for any events (null only where no document holds the point)",
    "file": "/work/main/test/bucket/local-plans.test.js"
  },
  {
    "name": "local points are the sums of the events between their local boundaries > at step day, in every zone, for any events (null only where no document holds the point)",
    "file": "/work/main/test/bucket/local-plans.test.js"
  },
  {
    "name": "local points are the sums of the events between their local boundaries > at step month, in every zone, for any events (null only where no document holds the point)",
    "file": "/work/main/test/bucket/local-plans.test.js"
  },
  {
    "name": "local points are the sums of the events between their local boundaries > the hours of a local day add up to its day value, also where the day has 23 or 25 hours",
    "file": "/work/main/test/bucket/local-plans.test.js"
  },
  {
    "name": "local points are the sums of the events between their local boundaries > refuses a zone whose offset is not whole minutes (Monrovia kept -00:44:30 until 1972): its edges fall inside minutes",
    "file": "/work/main/test/bucket/local-plans.test.js"
  },
  {
    "name": "a local year to date > reads at most 12 monthly and 14 daily documents, and its months are the sums of their local months",
    "file": "/work/main/test/bucket/local-plans.test.js"
  },
  {
    "name": "mongo-java-server > runs in memory, is detected by behaviour, has no transactions, and stops",
    "file": "/work/main/test/db/embedded.test.js"
  },
  {
    "name": "mongo-java-server > keeps data in an H2 file across restarts",
    "file": "/work/main/test/db/embedded.test.js"
  },
  {
    "name": "startEmbeddedMongo > auto falls back to the Java server when no mongod can be had",
    "file": "/work/main/test/db/embedded.test.js"
  },
  {
    "name": "startEmbeddedMongo > mongod only, with no mongod to be had: explains how to set MONGODB_URI",
    "file": "/work/main/test/db/embedded.test.js"
  },
  {
    "name": "startEmbeddedMongo > rejects an unknown STATBUCKET_EMBEDDED",
    "file": "/work/main/test/db/embedded.test.js"
  },
  {
    "name": "StatsD listeners > TCP with hot-shots: exact totals, gauges, sets and tags counted on /metrics by reason",
    "file": "/work/main/test/statsd/listeners.test.js"
  },
  {
    "name": "StatsD listeners > UDP with hot-shots: every value read is stored (UDP may lose datagrams before the server reads them)",
    "file": "/work/main/test/statsd/listeners.test.js"
  },
  {
    "name": "StatsD listeners > UDP: past the batch limit while a submit is in flight, values are dropped as overload and counted",
    "file": "/work/main/test/statsd/listeners.test.js"
  },
  {
    "name": "StatsD listeners > TCP: a client far faster than the database loses nothing; reading pauses and what the server holds stays bounded",
    "file": "/work/main/test/statsd/listeners.test.js"
  },
  {
    "name": "StatsD listeners > a TCP line longer than 64 KiB is dropped as line_too_long; the lines around it are kept",
    "file": "/work/main/test/statsd/listeners.test.js"
  },
  {
    "name": "StatsD listeners > off unless STATSD_PORT is set; stopped on close",
    "file": "/work/main/test/statsd/listeners.test.js"
  },
  {
    "name": "StatsD listeners > configuration errors name the variable",
    "file": "/work/main/test/statsd/listeners.test.js"
  },
  {
    "name": "check and repair > usage: --help exits 0, a bad option or date exits 2",
    "file": "/work/main/test/scripts/check.test.js"
  },
  {
    "name": "check and repair > reports every kind of violation by id and field, repairs them, and the values end exact",
    "file": "/work/main/test/scripts/check.test.js"
  },
  {
    "name": "npm start and SIGTERM > SIGTERM to npm ends the process group within 15 s and answers every request that reached the server",
    "file": "/work/main/test/faults/npm-start.test.js"
  },
  {
    "name": "writer overload > keeps pending events ≤ MAX_PENDING_EVENTS and refuses the excess with 503",
    "file": "/work/main/test/faults/writer-overload.test.js"
  },
  {
    "name": "time → slots > any valid timestamp falls in exactly one day, hour and minute, inside that slot",
    "file": "/work/main/test/property/bucket.property.test.js"
  },
  {
    "name": "time → slots > an event increments exactly one minute, one quarter-hour, one hour and the day; one day of month and the month",
    "file": "/work/main/test/property/bucket.property.test.js"
  },
  {
    "name": "time → slots > the minutes of a day map one-to-one onto minute fields",
    "file": "/work/main/test/property/bucket.property.test.js"
  },
  {
    "name": "time → slots > times round-trip through the accepted formats",
    "file": "/work/main/test/property/bucket.property.test.js"
  },
  {
    "name": "ids > round-trip: parseBucketId(dayId) and parseBucketId(monthId) give back the metric and the slot start",
    "file": "/work/main/test/property/bucket.property.test.js"
  },
  {
    "name": "ids > sort like time within a metric (a series is one _id range scan)",
    "file": "/work/main/test/property/bucket.property.test.js"
  },
  {
    "name": "ids > one metric's id range never holds another metric's ids",
    "file": "/work/main/test/property/bucket.property.test.js"
  },
  {
    "name": "zero documents and readers > a day's zero document has exactly the slots events increment: daily, 24 hours, 96 quarter-hours, 1440 minutes",
    "file": "/work/main/test/property/bucket.property.test.js"
  },
  {
    "name": "zero documents and readers > a month's zero document has exactly its days of month, for every month",
    "file": "/work/main/test/property/bucket.property.test.js"
  },
  {
    "name": "zero documents and readers > readers find 0, never null, in every slot of a zero document, at every step",
    "file": "/work/main/test/property/bucket.property.test.js"
  },
  {
    "name": "zero documents and readers > what a day's events write is what the readers read: per minute, per quarter-hour, per hour, per day, and the sums agree",
    "file": "/work/main/test/property/bucket.property.test.js"
  },
  {
    "name": "zero documents and readers > a window has countPoints points on step boundaries, starting at from rounded down",
    "file": "/work/main/test/property/bucket.property.test.js"
  },
  {
    "name": "GET /docs/json > is a valid OpenAPI 3.0 document",
    "file": "/work/main/test/docs/openapi.test.js"
  },
  {
    "name": "GET /docs/json > lists every route of the app, and only routes that exist",
    "file": "/work/main/test/docs/openapi.test.js"
  },
  {
    "name": "GET /docs/json > gives every operation a summary, tags, examples and its error answers",
    "file": "/work/main/test/docs/openapi.test.js"
  },
  {
    "name": "GET /docs/json > asks for a token only where a token list may guard the route, and names statbucket on /docs",
    "file": "/work/main/test/docs/openapi.test.js"
  },
  {
    "name": "GET /docs/json > shows the events body as one event or a bounded array of events",
    "file": "/work/main/test/docs/openapi.test.js"
  },
  {
    "name": "GET /docs/json > has examples that match their own schemas",
    "file": "/work/main/test/docs/openapi.test.js"
  },
  {
    "name": "the running app answers as documented > for the request examples of every operation",
    "file": "/work/main/test/docs/openapi.test.js"
  },
  {
    "name": "the running app answers as documented > for the error answers of the events route",
    "file": "/work/main/test/docs/openapi.test.js"
  },
  {
    "name": "the running app answers as documented > for the error answers of the read routes",
    "file": "/work/main/test/docs/openapi.test.js"
  },
  {
    "name": "GET /docs > serves Swagger UI",
    "file": "/work/main/test/docs/openapi.test.js"
  },
  {
    "name": "parseLoadgenArgs > has defaults for the talk's experiment",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses []",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--mongodb\",\"mongodb://b\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--bogus\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"ftp://a\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--mongodb\",\"http://a\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--speedup\",\"0\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--speedup\",\"fast\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--metrics\",\"1.5\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--concurrency\",\"0\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--sim-minutes\",\"10\",\"--seconds\",\"3\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--layout\",\"wide\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--prealloc\",\"0\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--coalesce\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--mongodb\",\"mongodb://h\",\"--batch\",\"10\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--out-of-order\",\"1.5\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--ooo-window\",\"3 weeks\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--compare-ooo\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--start\",\"noon\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--start\",\"2026-11-21T14:00:00Z\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--start\",\"2024-01-01\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--speedup\",\"1\",\"--sim-minutes\",\"2000\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--metric-prefix\",\"a b\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--report\",\"x.png\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--mongodb\",\"mongodb://h\",\"--db\",\"a.b\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > refuses [\"--url\",\"http://a\",\"--warmup\",\"-1\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > takes the window from --start and the server's --max-age-days",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > writes a report named by a bare file name under reports/ (ignored by git), a path as given",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLoadgenArgs > names metrics with a prefix and zero-padded numbers",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseBenchArgs > defaults to every section at the scale the backend allows",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseBenchArgs > refuses [\"--fast\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseBenchArgs > refuses [\"--scale\",\"huge\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseBenchArgs > refuses [\"--seconds\",\"0\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseBenchArgs > refuses [\"--only\",\"writes\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseBenchArgs > refuses [\"--talk-speedup\",\"5\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseBenchArgs > refuses [\"extra\"]",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "the scripts > loadgen exits 2 with a message on a bad flag, 0 on --help",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "the scripts > bench exits 2 with a message on a bad flag, 0 on --help",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "the scripts > loadgen exits 1 with a message when the target does not answer",
    "file": "/work/main/test/scripts/args.test.js"
  },
  {
    "name": "parseLine > a counter adds value / rate",
    "file": "/work/main/test/statsd/line-parser.test.js"
  },
  {
    "name": "parseLine > timers, histograms and distributions become name.count and name.sum",
    "file": "/work/main/test/statsd/line-parser.test.js"
  },
  {
    "name": "parseLine > packed values are parsed one by one; a bad one does not lose the others",
    "file": "/work/main/test/statsd/line-parser.test.js"
  },
  {
    "name": "parseLine > gauges, sets and unknown types are dropped with their reason",
    "file": "/work/main/test/statsd/line-parser.test.js"
  },
  {
    "name": "parseLine > tags are dropped and the value kept",
    "file": "/work/main/test/statsd/line-parser.test.js"
  },
  {
    "name": "parseLine > malformed lines, bad values and bad sample rates",
    "file": "/work/main/test/statsd/line-parser.test.js"
  },
  {
    "name": "parseLine > names are sanitised as the statsd daemon does; still invalid names are dropped",
    "file": "/work/main/test/statsd/line-parser.test.js"
  },
  {
    "name": "parseLine > an empty line carries nothing; a trailing CR is ignored",
    "file": "/work/main/test/statsd/line-parser.test.js"
  },
  {
    "name": "parseLine > every reason is one of DROP_REASONS",
    "file": "/work/main/test/statsd/line-parser.test.js"
  },
  {
    "name": "sanitizeName > keeps only [A-Za-z0-9_.-], and is idempotent",
    "file": "/work/main/test/statsd/line-parser.test.js"
  },
  {
    "name": "sanitizeName > agrees with the daemon's rule on names without ; and = (model: whitespace → _, / → -, drop the rest)",
    "file": "/work/main/test/statsd/line-parser.test.js"
  },
  {
    "name": "parseLine against a model of the format > a packed line of valid values gives the counter and timer totals of the model",
    "file": "/work/main/test/statsd/line-parser.test.js"
  },
  {
    "name": "range planner > sums any range exactly from the fewest documents, for any detail horizons",
    "file": "/work/main/test/bucket/range-plan.test.js"
  },
  {
    "name": "range planner > plans many ranges with one read per collection, and each range's value is its own",
    "file": "/work/main/test/bucket/range-plan.test.js"
  },
  {
    "name": "range planner > uses whole months, whole days, hours, quarter-hours and minutes, coarsest first",
    "file": "/work/main/test/bucket/range-plan.test.js"
  },
  {
    "name": "range planner > refuses an edge finer than the detail kept there, naming the nearest usable edges",
    "file": "/work/main/test/bucket/range-plan.test.js"
  },
  {
    "name": "range planner > reads minutes where the documents keep them, in either minute layout",
    "file": "/work/main/test/bucket/range-plan.test.js"
  },
  {
    "name": "bad input > POST with non-JSON: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with an empty body: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with a wrong content type: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with JSON sent as text/plain: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with JSON under another JSON-like type: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with an empty batch: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with an unknown field: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with an unknown field in a batch names the index: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with a missing metric: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with a misspelt metric names the unknown field: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with a misspelt field in a batch names the event: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with malformed JSON, said once: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with a metric with a slash: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with a metric with a dollar: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with a metric with a space: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with a metric name of 201 characters: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with a string value: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with a value out of range: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with an infinite value (1e400): 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with a null value: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with a ts without a zone: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with an unparsable ts: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with an impossible date: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with a fractional epoch: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with a ts too far ahead: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with a ts too old: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with a batch with one bad event among good ones: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with new metrics past MAX_METRICS: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with too many events: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > POST with too many bytes: 4xx and nothing written",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > GET with from ≥ to: 4xx",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > GET with too many points: 4xx",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > GET with a bad step: 4xx",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > GET with a bad from: 4xx",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > GET with a from without a zone: 4xx",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > GET with an unknown query parameter: 4xx",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > GET with a repeated parameter: 4xx",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > GET with a bad metric in the path: 4xx",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > GET with an unknown metric: 4xx",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > GET with a bad year: 4xx",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > GET with a year after this one: 4xx",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > GET with an asOf in a later year: 4xx",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > GET with asOf outside the year: 4xx",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > GET with a limit of 0: 4xx",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > GET with a limit over 10000: 4xx",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > GET with a bad prefix: 4xx",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > takes application/json with a charset parameter, in any case",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > answers 415 to a POST without a Content-Type",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "bad input > accepts the one new metric the registry still has room for",
    "file": "/work/main/test/routes/bad-input.test.js"
  },
  {
    "name": "scripts/fuzz.js > prints its help with exit 0, and exits 2 with a message on a bad flag",
    "file": "/work/main/test/security/fuzz-cli.test.js"
  },
  {
    "name": "scripts/shard.js > --dry-run prints the sharding commands for daily and monthly on { _id: 1 } and sends nothing",
    "file": "/work/main/test/deploy/shard.test.js"
  },
  {
    "name": "scripts/shard.js > --dry-run follows --db / MONGODB_DB and the flat layout",
    "file": "/work/main/test/deploy/shard.test.js"
  },
  {
    "name": "scripts/shard.js > has --help and usage errors with exit code 2",
    "file": "/work/main/test/deploy/shard.test.js"
  },
  {
    "name": "scripts/shard.js > refuses a server that is not a mongos, with exit code 1",
    "file": "/work/main/test/deploy/shard.test.js"
  },
  {
    "name": "retention plugin > /readyz reports the retention in force",
    "file": "/work/main/test/plugins/services/retention.test.js"
  },
  {
    "name": "retention plugin > runs a pass with the configured horizons; two instances at once: one pass",
    "file": "/work/main/test/plugins/services/retention.test.js"
  },
  {
    "name": "retention plugin > an old event after downsampling brings no minute field back; one inside the minute retention writes its minute",
    "file": "/work/main/test/plugins/services/retention.test.js"
  },
  {
    "name": "retention plugin > closing the app stops a pass in progress and releases the lease",
    "file": "/work/main/test/plugins/services/retention.test.js"
  },
  {
    "name": "POST /v1/events > writes exact daily and monthly documents for an out-of-order batch across a month boundary",
    "file": "/work/main/test/routes/ingest.test.js"
  },
  {
    "name": "POST /v1/events > writes no minute detail for a day past MINUTE_RETENTION_DAYS (90), every other tier as before",
    "file": "/work/main/test/routes/ingest.test.js"
  },
  {
    "name": "POST /v1/events > accepts a single event and defaults ts to the time of receipt and value to 1",
    "file": "/work/main/test/routes/ingest.test.js"
  },
  {
    "name": "POST /v1/events > gives exact totals for 50 parallel requests over the same documents",
    "file": "/work/main/test/routes/ingest.test.js"
  },
  {
    "name": "queries > minute step over a day equals the sum of the events, null-free where the day exists",
    "file": "/work/main/test/routes/ingest.test.js"
  },
  {
    "name": "queries > hour step over six days has null for days without a document",
    "file": "/work/main/test/routes/ingest.test.js"
  },
  {
    "name": "queries > day step and month step equal the sums",
    "file": "/work/main/test/routes/ingest.test.js"
  },
  {
    "name": "queries > rounds from down and to up to the step, and picks a default step",
    "file": "/work/main/test/routes/ingest.test.js"
  },
  {
    "name": "queries > defaults to the last 24 hours",
    "file": "/work/main/test/routes/ingest.test.js"
  },
  {
    "name": "queries > answers ytd from the monthly documents",
    "file": "/work/main/test/routes/ingest.test.js"
  },
  {
    "name": "queries > lists metrics sorted, by prefix, and paged",
    "file": "/work/main/test/routes/ingest.test.js"
  },
  {
    "name": "queries > answers 404 for an unknown metric",
    "file": "/work/main/test/routes/ingest.test.js"
  },
  {
    "name": "tokens never reach the log > in the request logs at trace level, for accepted, refused and failed requests",
    "file": "/work/main/test/security/redaction-and-rate-limit.test.js"
  },
  {
    "name": "tokens never reach the log > with the logger the server builds (defaultLogger)",
    "file": "/work/main/test/security/redaction-and-rate-limit.test.js"
  },
  {
    "name": "per-token rate limit > answers 429 + Retry-After past the limit, per token; other tokens and open routes are unaffected",
    "file": "/work/main/test/security/redaction-and-rate-limit.test.js"
  },
  {
    "name": "rate limit off by default > takes many requests from one client",
    "file": "/work/main/test/security/redaction-and-rate-limit.test.js"
  },
  {
    "name": "with WRITE_TOKENS and READ_TOKENS > POST /v1/events: 401 without a token, 403 with a wrong or a read token, 200 with a write token",
    "file": "/work/main/test/security/access.test.js"
  },
  {
    "name": "with WRITE_TOKENS and READ_TOKENS > queries: 401 without, 403 with a write token, 200 with any read token",
    "file": "/work/main/test/security/access.test.js"
  },
  {
    "name": "with WRITE_TOKENS and READ_TOKENS > /healthz, /readyz, the dashboard and /docs stay open",
    "file": "/work/main/test/security/access.test.js"
  },
  {
    "name": "with WRITE_TOKENS and READ_TOKENS > /metrics follows READ_TOKENS when METRICS_TOKENS is unset",
    "file": "/work/main/test/security/access.test.js"
  },
  {
    "name": "with METRICS_TOKENS > /metrics takes its own tokens, and writes stay open when WRITE_TOKENS is unset",
    "file": "/work/main/test/security/access.test.js"
  },
  {
    "name": "token comparison and routing > matches exactly one of the configured tokens and names it by a digest prefix",
    "file": "/work/main/test/security/access.test.js"
  },
  {
    "name": "token comparison and routing > classifies requests by the matched route and method",
    "file": "/work/main/test/security/access.test.js"
  },
  {
    "name": "percent-encoded paths reach the same routes and the same guards > POST /%761/events without a token → 401",
    "file": "/work/main/test/security/access.test.js"
  },
  {
    "name": "percent-encoded paths reach the same routes and the same guards > POST /v1/%65vents without a token → 401",
    "file": "/work/main/test/security/access.test.js"
  },
  {
    "name": "percent-encoded paths reach the same routes and the same guards > GET /%76%31/metrics without a token → 401",
    "file": "/work/main/test/security/access.test.js"
  },
  {
    "name": "percent-encoded paths reach the same routes and the same guards > GET /v1/metrics/enc.a/%73eries without a token → 401",
    "file": "/work/main/test/security/access.test.js"
  },
  {
    "name": "percent-encoded paths reach the same routes and the same guards > GET /metric%73 without a token → 401",
    "file": "/work/main/test/security/access.test.js"
  },
  {
    "name": "percent-encoded paths reach the same routes and the same guards > GET /%76%31/nothing-here without a token → 401",
    "file": "/work/main/test/security/access.test.js"
  },
  {
    "name": "percent-encoded paths reach the same routes and the same guards > writes nothing through an encoded path without a token",
    "file": "/work/main/test/security/access.test.js"
  },
  {
    "name": "StatsD with the PyPI statsd client > over TCP: exact totals; gauges and sets counted",
    "file": "/work/main/test/statsd/python-client.test.js"
  },
  {
    "name": "StatsD with the PyPI statsd client > over UDP: every value read is stored or counted as dropped",
    "file": "/work/main/test/statsd/python-client.test.js"
  },
  {
    "name": "series and the detail kept (defaults: minutes 90 days, daily documents forever) > answers quarter-hour points from the quarter-hour tier",
    "file": "/work/main/test/routes/series-detail.test.js"
  },
  {
    "name": "series and the detail kept (defaults: minutes 90 days, daily documents forever) > refuses minute points before the minute horizon, naming it and the finest usable step",
    "file": "/work/main/test/routes/series-detail.test.js"
  },
  {
    "name": "series and the detail kept (defaults: minutes 90 days, daily documents forever) > picks a step kept for the whole window by default: quarter-hours for a day past the minute horizon",
    "file": "/work/main/test/routes/series-detail.test.js"
  },
  {
    "name": "day points past DAILY_RETENTION_DAYS come from the monthly documents > answers the days from monthly.daily.D (null where the month holds no such day), refuses finer steps",
    "file": "/work/main/test/routes/series-detail.test.js"
  },
  {
    "name": "POST /v1/statsd > stores the exact totals of what a real client sent, in the minute of receipt",
    "file": "/work/main/test/routes/statsd.test.js"
  },
  {
    "name": "POST /v1/statsd > a line that cannot be kept rejects the whole request, naming its number and text",
    "file": "/work/main/test/routes/statsd.test.js"
  },
  {
    "name": "POST /v1/statsd > refuses other content types (415), an empty body (400), too many values (413) and keys without transactions (400)",
    "file": "/work/main/test/routes/statsd.test.js"
  },
  {
    "name": "POST /v1/statsd > is in the OpenAPI document as text/plain",
    "file": "/work/main/test/routes/statsd.test.js"
  },
  {
    "name": "POST /v1/statsd with WRITE_TOKENS > needs a write token, as /v1/events does",
    "file": "/work/main/test/routes/statsd.test.js"
  },
  {
    "name": "GET /metrics > counts accepted events, flushes and their documents, and the HTTP request",
    "file": "/work/main/test/monitoring/metrics.test.js"
  },
  {
    "name": "GET /metrics > counts rejected events by status, and reads by route pattern",
    "file": "/work/main/test/monitoring/metrics.test.js"
  },
  {
    "name": "GET /metrics > counts preallocations by kind and collection",
    "file": "/work/main/test/monitoring/metrics.test.js"
  },
  {
    "name": "GET /metrics > has process metrics, and calls the extra observer hooks too",
    "file": "/work/main/test/monitoring/metrics.test.js"
  },
  {
    "name": "GET /metrics > keeps one registry per app",
    "file": "/work/main/test/monitoring/metrics.test.js"
  },
  {
    "name": "Idempotency-Key (fake replica set) > applies a keyed request once and records its key with the body hash",
    "file": "/work/main/test/store/idempotency.test.js"
  },
  {
    "name": "Idempotency-Key (fake replica set) > answers a retry of an applied request with the first answer and applies nothing",
    "file": "/work/main/test/store/idempotency.test.js"
  },
  {
    "name": "Idempotency-Key (fake replica set) > answers 422 to a key reused with a different body, and applies nothing",
    "file": "/work/main/test/store/idempotency.test.js"
  },
  {
    "name": "Idempotency-Key (fake replica set) > answers 409 + Retry-After while a request with the same key is in flight",
    "file": "/work/main/test/store/idempotency.test.js"
  },
  {
    "name": "Idempotency-Key (fake replica set) > after a 504 whose commit did go through, the retry is answered from the key and applies nothing",
    "file": "/work/main/test/store/idempotency.test.js"
  },
  {
    "name": "Idempotency-Key (fake replica set) > retries a lost commit acknowledgment itself (commit is idempotent) and answers 200",
    "file": "/work/main/test/store/idempotency.test.js"
  },
  {
    "name": "Idempotency-Key (fake replica set) > after a 503 (the transaction failed before commit) leaves no key, and the retry is applied once",
    "file": "/work/main/test/store/idempotency.test.js"
  },
  {
    "name": "Idempotency-Key (fake replica set) > retries a transient write conflict and applies once",
    "file": "/work/main/test/store/idempotency.test.js"
  },
  {
    "name": "Idempotency-Key (fake replica set) > a key recorded by another instance meanwhile: its answer stands, nothing applied twice",
    "file": "/work/main/test/store/idempotency.test.js"
  },
  {
    "name": "Idempotency-Key (fake replica set) > flushes keyed and unkeyed requests together: the unkeyed ones outside the transaction",
    "file": "/work/main/test/store/idempotency.test.js"
  },
  {
    "name": "Idempotency-Key (fake replica set) > scopes keys by write token: two clients may use the same key",
    "file": "/work/main/test/store/idempotency.test.js"
  },
  {
    "name": "Idempotency-Key (fake replica set) > rejects a malformed key with 400 and changes nothing",
    "file": "/work/main/test/store/idempotency.test.js"
  },
  {
    "name": "Idempotency-Key (fake replica set) > answers 400 to a key where transactions are unavailable (never pretends)",
    "file": "/work/main/test/store/idempotency.test.js"
  },
  {
    "name": "Idempotency-Key (fake replica set) > releases in-flight keys once their flush ended",
    "file": "/work/main/test/store/idempotency.test.js"
  },
  {
    "name": "idempotency helpers > hashes bodies independently of key order, and tells different bodies apart",
    "file": "/work/main/test/store/idempotency.test.js"
  },
  {
    "name": "idempotency helpers > scopes key ids by who sent them",
    "file": "/work/main/test/store/idempotency.test.js"
  },
  {
    "name": "GET /v1/metrics/:metric/total > sums a one-year range exactly from at most 14 documents",
    "file": "/work/main/test/routes/total.test.js"
  },
  {
    "name": "GET /v1/metrics/:metric/total > sums ranges with minute, quarter-hour, hour, day and month edges",
    "file": "/work/main/test/routes/total.test.js"
  },
  {
    "name": "GET /v1/metrics/:metric/total > refuses an edge inside a quarter-hour past the minute retention, naming the nearest usable edges",
    "file": "/work/main/test/routes/total.test.js"
  },
  {
    "name": "GET /v1/metrics/:metric/total > asks for both edges in order, and a known metric",
    "file": "/work/main/test/routes/total.test.js"
  },
  {
    "name": "downsampling > drops minute detail from exactly the documents more than a day past the horizon, and a second pass changes nothing",
    "file": "/work/main/test/store/retention-job.test.js"
  },
  {
    "name": "downsampling > applies each metric its own rule",
    "file": "/work/main/test/store/retention-job.test.js"
  },
  {
    "name": "documents without the quarter-hour tier > keep their minutes (or the quarter-hours would be lost) and the pass records no progress past them",
    "file": "/work/main/test/store/retention-job.test.js"
  },
  {
    "name": "deletion > deletes daily documents past the daily horizon; their day totals stay in monthly",
    "file": "/work/main/test/store/retention-job.test.js"
  },
  {
    "name": "deletion > keeps a daily document whose day total the monthly document does not hold",
    "file": "/work/main/test/store/retention-job.test.js"
  },
  {
    "name": "rate > changes at most RETENTION_RATE documents per second of the injected clock",
    "file": "/work/main/test/store/retention-job.test.js"
  },
  {
    "name": "one pass at a time > a second job finds the lease held and changes nothing; two started together: one runs",
    "file": "/work/main/test/store/retention-job.test.js"
  },
  {
    "name": "one pass at a time > renews the lease on a long pass and stops when it was lost",
    "file": "/work/main/test/store/retention-job.test.js"
  },
  {
    "name": "resuming > a pass stopped half-way is finished by the next, with the same result as one whole pass",
    "file": "/work/main/test/store/retention-job.test.js"
  },
  {
    "name": "Graphite routes > answer only with a read token",
    "file": "/work/main/test/graphite/graphite-routes.test.js"
  },
  {
    "name": "Graphite routes > name an unsupported function (400) and change nothing",
    "file": "/work/main/test/graphite/graphite-routes.test.js"
  },
  {
    "name": "Graphite routes > name syntax errors, bad times and wrong argument types (400)",
    "file": "/work/main/test/graphite/graphite-routes.test.js"
  },
  {
    "name": "Graphite routes > bound the work: a glob over GRAPHITE_MAX_GLOB_METRICS, a series over MAX_POINTS",
    "file": "/work/main/test/graphite/graphite-routes.test.js"
  },
  {
    "name": "Graphite routes > read quarter-hours for a range before the minute detail kept, never zeros for minutes deleted",
    "file": "/work/main/test/graphite/graphite-routes.test.js"
  },
  {
    "name": "Graphite routes > take targets from a form-encoded POST body, as Grafana sends them",
    "file": "/work/main/test/graphite/graphite-routes.test.js"
  },
  {
    "name": "Graphite routes > answer /metrics/find from a form-encoded POST body, as Grafana's variable queries send it",
    "file": "/work/main/test/graphite/graphite-routes.test.js"
  },
  {
    "name": "Graphite routes > leave /v1/events to JSON (the form parser is the Graphite routes' own)",
    "file": "/work/main/test/graphite/graphite-routes.test.js"
  },
  {
    "name": "Graphite routes > list the supported functions for Grafana and answer empty tag lists",
    "file": "/work/main/test/graphite/graphite-routes.test.js"
  },
  {
    "name": "Idempotency-Key without transactions > /readyz says transactions: false, and a keyed request gets 400 and changes nothing",
    "file": "/work/main/test/routes/idempotency-key.test.js"
  },
  {
    "name": "configuration > has the defaults the README documents",
    "file": "/work/main/test/config.test.js"
  },
  {
    "name": "configuration > refuses PORT=eighty naming the variable",
    "file": "/work/main/test/config.test.js"
  },
  {
    "name": "configuration > refuses PORT=70000 naming the variable",
    "file": "/work/main/test/config.test.js"
  },
  {
    "name": "configuration > refuses FLUSH_MAX_DOCS=0 naming the variable",
    "file": "/work/main/test/config.test.js"
  },
  {
    "name": "configuration > refuses WRITE_TIMEOUT_MS=-5 naming the variable",
    "file": "/work/main/test/config.test.js"
  },
  {
    "name": "configuration > refuses PREALLOC_PROBABILITY=2 naming the variable",
    "file": "/work/main/test/config.test.js"
  },
  {
    "name": "configuration > refuses PREALLOC_PROBABILITY=often naming the variable",
    "file": "/work/main/test/config.test.js"
  },
  {
    "name": "configuration > refuses PREALLOC_CRON=every minute naming the variable",
    "file": "/work/main/test/config.test.js"
  },
  {
    "name": "configuration > refuses BUCKET_LAYOUT=nested naming the variable",
    "file": "/work/main/test/config.test.js"
  },
  {
    "name": "configuration > refuses LOG_LEVEL=loud naming the variable",
    "file": "/work/main/test/config.test.js"
  },
  {
    "name": "configuration > refuses MONGODB_URI=http://example naming the variable",
    "file": "/work/main/test/config.test.js"
  },
  {
    "name": "configuration > refuses MONGODB_DB=a/b naming the variable",
    "file": "/work/main/test/config.test.js"
  },
  {
    "name": "configuration > refuses WRITE_TOKENS=short naming the variable",
    "file": "/work/main/test/config.test.js"
  },
  {
    "name": "configuration > refuses MAX_PENDING_EVENTS below MAX_EVENTS_PER_REQUEST",
    "file": "/work/main/test/config.test.js"
  },
  {
    "name": "configuration > stops `npm start` with a message naming the bad variable and exit code 2",
    "file": "/work/main/test/config.test.js"
  },
  {
    "name": "a new metric of a request answered 503 holds no place in MAX_METRICS",
    "file": "/work/main/test/routes/registry-limit.test.js"
  },
  {
    "name": "request ids > honours a client x-request-id, echoes it and logs it",
    "file": "/work/main/test/monitoring/request-id.test.js"
  },
  {
    "name": "request ids > makes a UUID when the header is missing or not an id",
    "file": "/work/main/test/monitoring/request-id.test.js"
  },
  {
    "name": "eventIncrements > increments day, hour, quarter-hour and minute, and month and day of month",
    "file": "/work/main/test/bucket/increments.test.js"
  },
  {
    "name": "eventIncrements > uses minute of day in the flat layout",
    "file": "/work/main/test/bucket/increments.test.js"
  },
  {
    "name": "zero documents > has 24 hourly, 96 quarter-hourly and 1440 minute counters per day",
    "file": "/work/main/test/bucket/increments.test.js"
  },
  {
    "name": "zero documents > has 28 to 31 daily keys per month",
    "file": "/work/main/test/bucket/increments.test.js"
  },
  {
    "name": "zero documents > minutesOfDay reads back every minute a zero document holds",
    "file": "/work/main/test/bucket/increments.test.js"
  },
  {
    "name": "write units > merges a request per document and tracks first/last seen",
    "file": "/work/main/test/bucket/increments.test.js"
  },
  {
    "name": "write units > merges units without changing them",
    "file": "/work/main/test/bucket/increments.test.js"
  },
  {
    "name": "minute retention > writes no minute for a day past the metric's minute retention; every other tier as before",
    "file": "/work/main/test/bucket/increments.test.js"
  },
  {
    "name": "buildWriteUnit and eventIncrements agree > a unit holds the sum of its events' increments, over any days and metrics",
    "file": "/work/main/test/bucket/increments.test.js"
  },
  {
    "name": "writer > merges requests queued within FLUSH_INTERVAL_MS into one bulkWrite per collection and answers each",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > adaptive group commit (FLUSH_INTERVAL_MS=0): an idle writer flushes at once, units arriving during a flush ride the next one together",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > cuts at FLUSH_MAX_DOCS without splitting a request",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > keeps one flush in flight; later requests wait for the next",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > retries exactly the operations that hit a duplicate key, and answers applied",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > stops retrying after maxRetries and answers unknown for the requests touched",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > answers unknown for a definite non-retryable failure of part of a request",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > answers not_applied when no server could be selected",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > answers unknown when the write was sent and not acknowledged",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > refuses at once when the queue is full, and says when there is room again",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > removes a request that waited past WRITE_TIMEOUT_MS (not_applied) and bounds the stuck flush (unknown)",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > close flushes what is queued, answers everything, then refuses",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > answers every request even when a telemetry subscriber throws",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > publishes each flush and each answer",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > rewrites a registry entry only when it moves: last seen a minute on, first seen earlier, or a new day",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > answers not_applied when nothing was written, a left-out registry update notwithstanding",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > answers plain requests from their own result when the keyed half of a flush throws",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > refuses a keyed request where there is no keyed flush (no transactions)",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > expires a long queue behind a stuck flush, answering each request once",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "writer > stops retrying at the flush deadline",
    "file": "/work/main/test/store/writer.test.js"
  },
  {
    "name": "verifyDaily > finds nothing in a consistent document, with or without minute detail",
    "file": "/work/main/test/scripts/consistency.test.js"
  },
  {
    "name": "verifyDaily > reports a corrupted coarser counter by field, and its repair restores the document exactly",
    "file": "/work/main/test/scripts/consistency.test.js"
  },
  {
    "name": "verifyDaily > fills a missing quarterHourly from the minutes (the upgrade path); a concurrent write of the tier makes it miss",
    "file": "/work/main/test/scripts/consistency.test.js"
  },
  {
    "name": "verifyDaily > in a downsampled document the quarter-hours are the truth: minutes written back later are reported and dropped",
    "file": "/work/main/test/scripts/consistency.test.js"
  },
  {
    "name": "monthly documents > monthly = Σ daily.D: a wrong total is reported and repaired; a right one is not",
    "file": "/work/main/test/scripts/consistency.test.js"
  },
  {
    "name": "monthly documents > a day against its daily document: the daily total is the truth; an absent day with no daily document is fine",
    "file": "/work/main/test/scripts/consistency.test.js"
  },
  {
    "name": "monthly documents > decimal sums equal up to the order of additions",
    "file": "/work/main/test/scripts/consistency.test.js"
  },
  {
    "name": "retention ranges > a metric's _id range holds its own day ids in range and no other metric's",
    "file": "/work/main/test/scripts/consistency.test.js"
  },
  {
    "name": "retention ranges > bounds: downsampling a day past the minute horizon, deletion at the daily horizon; forever is null",
    "file": "/work/main/test/scripts/consistency.test.js"
  },
  {
    "name": "cross-document mismatches > one that a flush completes while the check waits is no violation",
    "file": "/work/main/test/scripts/check-run.test.js"
  },
  {
    "name": "cross-document mismatches > one unchanged past WRITE_TIMEOUT_MS is a violation; the repair applies the difference once",
    "file": "/work/main/test/scripts/check-run.test.js"
  },
  {
    "name": "cross-document mismatches > one still changing after every round is reported unsettled and left as it is",
    "file": "/work/main/test/scripts/check-run.test.js"
  },
  {
    "name": "cross-document mismatches > check without --repair reports the confirmed mismatch and changes nothing",
    "file": "/work/main/test/scripts/check-run.test.js"
  },
  {
    "name": "past the daily horizon > a day whose daily document was recreated by a backfill is not repaired from it: the month is the truth there",
    "file": "/work/main/test/scripts/check-run.test.js"
  },
  {
    "name": "rate > reads at most --rate documents per second of the injected clock",
    "file": "/work/main/test/scripts/check-run.test.js"
  },
  {
    "name": "ingest outcome → HTTP > { outcome: 'applied', accepted: 3 } → 200",
    "file": "/work/main/test/routes/ingest-reply.test.js"
  },
  {
    "name": "ingest outcome → HTTP > { outcome: 'replayed', body: { accepted: 2 } } → 200",
    "file": "/work/main/test/routes/ingest-reply.test.js"
  },
  {
    "name": "ingest outcome → HTTP > { outcome: 'rejected', reason: 'invalid_event', message: 'event.ts: too old', details: [ { path: 'event.ts', message: 'too old' } ] } → 400",
    "file": "/work/main/test/routes/ingest-reply.test.js"
  },
  {
    "name": "ingest outcome → HTTP > { outcome: 'key_unsupported', message: 'no transactions here' } → 400",
    "file": "/work/main/test/routes/ingest-reply.test.js"
  },
  {
    "name": "ingest outcome → HTTP > { outcome: 'key_in_flight' } → 409",
    "file": "/work/main/test/routes/ingest-reply.test.js"
  },
  {
    "name": "ingest outcome → HTTP > { outcome: 'key_reused' } → 422",
    "file": "/work/main/test/routes/ingest-reply.test.js"
  },
  {
    "name": "ingest outcome → HTTP > { outcome: 'not_applied', reason: 'the server is shutting down' } → 503",
    "file": "/work/main/test/routes/ingest-reply.test.js"
  },
  {
    "name": "ingest outcome → HTTP > { outcome: 'unknown', reason: 'the database did not acknowledge every write' } → 504",
    "file": "/work/main/test/routes/ingest-reply.test.js"
  },
  {
    "name": "ingest outcome → HTTP > refuses to invent an answer for an outcome it does not know",
    "file": "/work/main/test/routes/ingest-reply.test.js"
  },
  {
    "name": "lease > two holders: the first takes it, the second is refused while it is held",
    "file": "/work/main/test/store/lease.test.js"
  },
  {
    "name": "lease > two holders racing for a free lease: exactly one wins",
    "file": "/work/main/test/store/lease.test.js"
  },
  {
    "name": "lease > an expired lease can be taken by another holder; the old holder can no longer renew it",
    "file": "/work/main/test/store/lease.test.js"
  },
  {
    "name": "lease > renewal pushes the expiry forward, so a renewed lease is not taken",
    "file": "/work/main/test/store/lease.test.js"
  },
  {
    "name": "lease > release frees it at once, and only the owner can release it",
    "file": "/work/main/test/store/lease.test.js"
  },
  {
    "name": "reader > seriesDocs reads the days of the window for that metric only (not a metric sharing its prefix)",
    "file": "/work/main/test/store/reader.test.js"
  },
  {
    "name": "reader > at quarter-hour step a document without the tier gets its quarter-hours from its minutes",
    "file": "/work/main/test/store/reader.test.js"
  },
  {
    "name": "reader > ytdDocs reads the monthly documents of January up to asOf of that year only",
    "file": "/work/main/test/store/reader.test.js"
  },
  {
    "name": "reader > planDocs fetches the ids a plan names, one request per collection, and none for an empty list",
    "file": "/work/main/test/store/reader.test.js"
  },
  {
    "name": "createAggregator > merges samples into one event per metric per minute, at the minute start",
    "file": "/work/main/test/statsd/aggregator.test.js"
  },
  {
    "name": "createAggregator > never holds a sum beyond 1e15: a second event carries the rest",
    "file": "/work/main/test/statsd/aggregator.test.js"
  },
  {
    "name": "createAggregator > adds() tells whether a sample would add an event",
    "file": "/work/main/test/statsd/aggregator.test.js"
  },
  {
    "name": "createAggregator > property: per (metric, minute) totals equal the model's sums, with fewer or as many events as samples",
    "file": "/work/main/test/statsd/aggregator.test.js"
  },
  {
    "name": "percentiles > uses the nearest rank",
    "file": "/work/main/test/scripts/minute-stats.test.js"
  },
  {
    "name": "percentiles > takes the middle, or the mean of the two middles",
    "file": "/work/main/test/scripts/minute-stats.test.js"
  },
  {
    "name": "minute rows > count acknowledged events by the simulated minute they were sent in, over the real time each minute lasted",
    "file": "/work/main/test/scripts/minute-stats.test.js"
  },
  {
    "name": "minute rows > have a row for a minute in which nothing was acknowledged",
    "file": "/work/main/test/scripts/minute-stats.test.js"
  },
  {
    "name": "minute rows > make a CSV with one row per phase and minute",
    "file": "/work/main/test/scripts/minute-stats.test.js"
  },
  {
    "name": "summary figures > end-of-day ratio: last hour ÷ first hour of one day",
    "file": "/work/main/test/scripts/minute-stats.test.js"
  },
  {
    "name": "summary figures > midnight dip: lowest of the 3 minutes after a crossed midnight ÷ the median",
    "file": "/work/main/test/scripts/minute-stats.test.js"
  },
  {
    "name": "summary figures > out-of-order cost: events/s with F ÷ without",
    "file": "/work/main/test/scripts/minute-stats.test.js"
  },
  {
    "name": "summary figures > summarizes phases and prints the three figures with their reasons",
    "file": "/work/main/test/scripts/minute-stats.test.js"
  },
  {
    "name": "summary figures > verifies that the database gained every acknowledged event and no more than were sent",
    "file": "/work/main/test/scripts/minute-stats.test.js"
  },
  {
    "name": "createStatsdPipeline > sums lines per metric per minute and submits them once per interval",
    "file": "/work/main/test/statsd/pipeline.test.js"
  },
  {
    "name": "createStatsdPipeline > counts every drop by reason, in values",
    "file": "/work/main/test/statsd/pipeline.test.js"
  },
  {
    "name": "createStatsdPipeline > UDP: when full, new metrics are dropped as overload; known metrics still add up",
    "file": "/work/main/test/statsd/pipeline.test.js"
  },
  {
    "name": "createStatsdPipeline > TCP: full means wait for room (whenRoom), and nothing is dropped",
    "file": "/work/main/test/statsd/pipeline.test.js"
  },
  {
    "name": "createStatsdPipeline > TCP: a batch not applied is retried; UDP counts it as not_applied",
    "file": "/work/main/test/statsd/pipeline.test.js"
  },
  {
    "name": "createStatsdPipeline > a rejected or unknown batch is counted by its reason",
    "file": "/work/main/test/statsd/pipeline.test.js"
  },
  {
    "name": "createStatsdPipeline > close submits what is held",
    "file": "/work/main/test/statsd/pipeline.test.js"
  },
  {
    "name": "createStatsdPipeline > a new minute is a new event",
    "file": "/work/main/test/statsd/pipeline.test.js"
  },
  {
    "name": "write queue > adaptive (0 ms): an idle queue flushes at once; units arriving meanwhile ride the next flush together",
    "file": "/work/main/test/store/write-queue.test.js"
  },
  {
    "name": "write queue > with FLUSH_INTERVAL_MS the cut waits until the oldest unit is that old",
    "file": "/work/main/test/store/write-queue.test.js"
  },
  {
    "name": "write queue > FLUSH_MAX_DOCS cuts a flush early and bounds its distinct documents, never splitting a unit",
    "file": "/work/main/test/store/write-queue.test.js"
  },
  {
    "name": "write queue > refuses past MAX_PENDING_EVENTS with not_applied naming the limit; hasRoom and waitForRoom follow the answers",
    "file": "/work/main/test/store/write-queue.test.js"
  },
  {
    "name": "write queue > a unit queued longer than WRITE_TIMEOUT_MS is answered not_applied and never flushed",
    "file": "/work/main/test/store/write-queue.test.js"
  },
  {
    "name": "write queue > a flush that throws answers each of its units unknown, once",
    "file": "/work/main/test/store/write-queue.test.js"
  },
  {
    "name": "write queue > close flushes what is queued, then refuses new units",
    "file": "/work/main/test/store/write-queue.test.js"
  },
  {
    "name": "assembleSeries > gives null where no document exists and 0 where a slot is absent",
    "file": "/work/main/test/bucket/results.test.js"
  },
  {
    "name": "assembleSeries > reads hours and months",
    "file": "/work/main/test/bucket/results.test.js"
  },
  {
    "name": "windows and plans > chooses the finest step within the point limit whose detail is kept for the whole window",
    "file": "/work/main/test/bucket/results.test.js"
  },
  {
    "name": "windows and plans > rounds the window to the step",
    "file": "/work/main/test/bucket/results.test.js"
  },
  {
    "name": "windows and plans > reads only the field the step needs, over the covered days",
    "file": "/work/main/test/bucket/results.test.js"
  },
  {
    "name": "windows and plans > reads day points past the daily horizon from the monthly documents",
    "file": "/work/main/test/bucket/results.test.js"
  },
  {
    "name": "windows and plans > sums a document's minutes into quarter-hours (documents written before that tier)",
    "file": "/work/main/test/bucket/results.test.js"
  },
  {
    "name": "assembleYtd > sums whole months and the asOf month up to its day",
    "file": "/work/main/test/bucket/results.test.js"
  },
  {
    "name": "parseTarget > reads paths with globs whole",
    "file": "/work/main/test/graphite/target-parser.test.js"
  },
  {
    "name": "parseTarget > reads nested calls with numbers, strings and booleans",
    "file": "/work/main/test/graphite/target-parser.test.js"
  },
  {
    "name": "parseTarget > reads keyword arguments after positional ones",
    "file": "/work/main/test/graphite/target-parser.test.js"
  },
  {
    "name": "parseTarget > keeps a path that starts with digits a path",
    "file": "/work/main/test/graphite/target-parser.test.js"
  },
  {
    "name": "parseTarget > names the position of a syntax error",
    "file": "/work/main/test/graphite/target-parser.test.js"
  },
  {
    "name": "parseTarget > refuses calls nested too deep instead of overflowing the stack",
    "file": "/work/main/test/graphite/target-parser.test.js"
  },
  {
    "name": "docker compose config > accepts docker/compose.yaml and resolves MongoDB 8, statbucket and the loadgen profile",
    "file": "/work/main/test/deploy/docker.test.js"
  },
  {
    "name": "docker/Dockerfile > is multi-stage on a Node LTS image, production dependencies only, non-root, with a readiness healthcheck",
    "file": "/work/main/test/deploy/docker.test.js"
  },
  {
    "name": "docker/Dockerfile > copies only what exists, and the build context sends it",
    "file": "/work/main/test/deploy/docker.test.js"
  },
  {
    "name": "docker/Dockerfile > needs no dev dependency at run time: every package src/ imports statically is a dependency",
    "file": "/work/main/test/deploy/docker.test.js"
  },
  {
    "name": "ingest service > applies valid events: one unit to the writer, new metrics admitted and settled as written, preallocation considered",
    "file": "/work/main/test/services/ingest.test.js"
  },
  {
    "name": "ingest service > rejects an event that breaks a rule, naming it, and writes nothing (0)",
    "file": "/work/main/test/services/ingest.test.js"
  },
  {
    "name": "ingest service > rejects an event that breaks a rule, naming it, and writes nothing (1)",
    "file": "/work/main/test/services/ingest.test.js"
  },
  {
    "name": "ingest service > rejects an event that breaks a rule, naming it, and writes nothing (2)",
    "file": "/work/main/test/services/ingest.test.js"
  },
  {
    "name": "ingest service > rejects an event that breaks a rule, naming it, and writes nothing (3)",
    "file": "/work/main/test/services/ingest.test.js"
  },
  {
    "name": "ingest service > rejects an event that breaks a rule, naming it, and writes nothing (4)",
    "file": "/work/main/test/services/ingest.test.js"
  },
  {
    "name": "ingest service > names a field the way the door asks",
    "file": "/work/main/test/services/ingest.test.js"
  },
  {
    "name": "ingest service > rejects a request that would overfill the registry, and settles nothing written",
    "file": "/work/main/test/services/ingest.test.js"
  },
  {
    "name": "ingest service > passes the writer's not_applied and unknown through; only an unknown keeps the new names",
    "file": "/work/main/test/services/ingest.test.js"
  },
  {
    "name": "ingest service > answers not_applied when the registry lookup fails at the database",
    "file": "/work/main/test/services/ingest.test.js"
  },
  {
    "name": "ingest service > refuses a key where there are no transactions, and hands keyed requests to the key store otherwise",
    "file": "/work/main/test/services/ingest.test.js"
  },
  {
    "name": "ingest service > writes minute detail only inside each metric's minute retention: the variable, or the first matching rule",
    "file": "/work/main/test/services/ingest.test.js"
  },
  {
    "name": "ingest service > tells a door whether the writer has room",
    "file": "/work/main/test/services/ingest.test.js"
  },
  {
    "name": "preallocator > ensures the next day zero-filled with an upsert of $inc by 0, and the next month on the last day of a month",
    "file": "/work/main/test/store/preallocator.test.js"
  },
  {
    "name": "preallocator > does nothing when the draw misses, for a day more than one ahead of the clock, or for a day already ensured",
    "file": "/work/main/test/store/preallocator.test.js"
  },
  {
    "name": "preallocator > a concurrent upsert of the same new _id (E11000) is retried; after close nothing more is considered",
    "file": "/work/main/test/store/preallocator.test.js"
  },
  {
    "name": "parseAtTime > 20250101 → 1735689600 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > 20251301 → 20251301 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > 1700000000 → 1700000000 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > now → 1741600830 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > -6h → 1741579230 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > -7d → 1740996030 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > -1mon → 1739008830 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > -1y → 1710064830 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > now-2h30min → 1741591830 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > 12:00_20250101 → 1735732800 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > noon → 1741608000 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > yesterday → 1741478400 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > tomorrow → 1741651200 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > today → 1741564800 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > 3pm → 1741618800 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > 9am+1h → 1741600800 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > midnight-1d → 1741478400 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > 03/10/2025 → 1741564800 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > 03/10/25 → 1741564800 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > jan5 → 1736035200 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > mar10 → 1741564800 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > monday → 1741564800 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > sunday → 1741478400 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > teatime → 1741622400 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > -5min → 1741600530 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > +2h → 1741608030 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > 12:30pm_20250310 → 1741566600 as graphite-web",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > refuses what graphite-web refuses, naming the text",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "parseAtTime > reads intervals for summarize and timeShift",
    "file": "/work/main/test/graphite/attime.test.js"
  },
  {
    "name": "createSimClock > runs speedup times faster than real time from start, in whole ms",
    "file": "/work/main/test/scripts/sim-clock.test.js"
  },
  {
    "name": "createSimClock > refuses a start that is not a number and a speedup that is not positive",
    "file": "/work/main/test/scripts/sim-clock.test.js"
  },
  {
    "name": "run window > spans --sim-minutes, or --seconds of real time times the speedup",
    "file": "/work/main/test/scripts/sim-clock.test.js"
  },
  {
    "name": "run window > starts by default at 00:00 of the latest day on which the run ends by now",
    "file": "/work/main/test/scripts/sim-clock.test.js"
  },
  {
    "name": "run window > accepts a run inside the service window and says why it refuses one outside",
    "file": "/work/main/test/scripts/sim-clock.test.js"
  },
  {
    "name": "parsing > reads durations with units, bare numbers as minutes",
    "file": "/work/main/test/scripts/sim-clock.test.js"
  },
  {
    "name": "parsing > reads --start as ISO with a zone, a date, or HH:MM of the latest day that fits",
    "file": "/work/main/test/scripts/sim-clock.test.js"
  },
  {
    "name": "parsing > has a seeded random that repeats and stays in [0, 1)",
    "file": "/work/main/test/scripts/sim-clock.test.js"
  },
  {
    "name": "retention rules > * matches within one part, ** across parts; the first match wins",
    "file": "/work/main/test/bucket/retention-horizons.test.js"
  },
  {
    "name": "retention rules > a field left out follows the variable; null is forever",
    "file": "/work/main/test/bucket/retention-horizons.test.js"
  },
  {
    "name": "retention rules > horizons: the first UTC day kept with minutes and with a daily document",
    "file": "/work/main/test/bucket/retention-horizons.test.js"
  },
  {
    "name": "retention rules > the fingerprint changes with any setting",
    "file": "/work/main/test/bucket/retention-horizons.test.js"
  },
  {
    "name": "targets > derives the ratios from the measured figures",
    "file": "/work/main/test/scripts/bench-report.test.js"
  },
  {
    "name": "targets > judges each target, and none that was not measured",
    "file": "/work/main/test/scripts/bench-report.test.js"
  },
  {
    "name": "markdown > is headed by the run, machine, database and versions",
    "file": "/work/main/test/scripts/bench-report.test.js"
  },
  {
    "name": "markdown > has the targets table with what was measured and whether it met the target",
    "file": "/work/main/test/scripts/bench-report.test.js"
  },
  {
    "name": "markdown > prints n/a with the reason where the backend gives no figure",
    "file": "/work/main/test/scripts/bench-report.test.js"
  },
  {
    "name": "markdown > formats sizes",
    "file": "/work/main/test/scripts/bench-report.test.js"
  },
  {
    "name": "the talk's targets > are judged on a real mongod only, and shown elsewhere",
    "file": "/work/main/test/scripts/bench-report.test.js"
  },
  {
    "name": "parseEventTime > reads ISO-8601 with Z or an offset, and epoch ms",
    "file": "/work/main/test/bucket/time.test.js"
  },
  {
    "name": "parseEventTime > refuses a time without a zone, an impossible date, fractions and junk",
    "file": "/work/main/test/bucket/time.test.js"
  },
  {
    "name": "parseEventTime > accepts the leap day of a leap year",
    "file": "/work/main/test/bucket/time.test.js"
  },
  {
    "name": "parseEventTime > reads query times: all digits are epoch ms",
    "file": "/work/main/test/bucket/time.test.js"
  },
  {
    "name": "ids and calendar > puts the metric first and pads the date",
    "file": "/work/main/test/bucket/time.test.js"
  },
  {
    "name": "ids and calendar > round-trips ids",
    "file": "/work/main/test/bucket/time.test.js"
  },
  {
    "name": "ids and calendar > knows month lengths and leap years",
    "file": "/work/main/test/bucket/time.test.js"
  },
  {
    "name": "ids and calendar > crosses Dec 31 → Jan 1 in UTC",
    "file": "/work/main/test/bucket/time.test.js"
  },
  {
    "name": "steps > rounds down and up to each step",
    "file": "/work/main/test/bucket/time.test.js"
  },
  {
    "name": "steps > counts points in the rounded window",
    "file": "/work/main/test/bucket/time.test.js"
  },
  {
    "name": "flush runner > merges a cut into one bulkWrite per collection, one $inc per document, and answers every unit applied",
    "file": "/work/main/test/store/flush-runner.test.js"
  },
  {
    "name": "flush runner > a database that cannot be reached before sending: not_applied",
    "file": "/work/main/test/store/flush-runner.test.js"
  },
  {
    "name": "flush runner > a flush still running at WRITE_TIMEOUT_MS is answered unknown by the watchdog; run ends only when the writes do",
    "file": "/work/main/test/store/flush-runner.test.js"
  },
  {
    "name": "classifyBulkWriteError > a connected client's server-selection failure, wrapped by the bulk, was never sent: not applied (503)",
    "file": "/work/main/test/store/write-outcomes.test.js"
  },
  {
    "name": "classifyBulkWriteError > a refused or timed-out connection attempt was never sent",
    "file": "/work/main/test/store/write-outcomes.test.js"
  },
  {
    "name": "classifyBulkWriteError > a socket timeout or reset after sending is unknown (504)",
    "file": "/work/main/test/store/write-outcomes.test.js"
  },
  {
    "name": "classifyBulkWriteError > an unreachable host counts as never sent only when connect() raised it",
    "file": "/work/main/test/store/write-outcomes.test.js"
  },
  {
    "name": "classifyBulkWriteError > where the driver retries writes, a selection failure may follow a sent attempt: unknown",
    "file": "/work/main/test/store/write-outcomes.test.js"
  },
  {
    "name": "classifyBulkWriteError > a failure after an earlier batch of the same bulk went through is unknown",
    "file": "/work/main/test/store/write-outcomes.test.js"
  },
  {
    "name": "classifyBulkWriteError > a bare selection error (raised before the bulk started) is not applied",
    "file": "/work/main/test/store/write-outcomes.test.js"
  },
  {
    "name": "Python number formatting in series names > formats like '%g'",
    "file": "/work/main/test/graphite/python-format.test.js"
  },
  {
    "name": "Python number formatting in series names > writes floats like str()",
    "file": "/work/main/test/graphite/python-format.test.js"
  },
  {
    "name": "globs > match part by part",
    "file": "/work/main/test/graphite/glob.test.js"
  },
  {
    "name": "globs > scan the registry from the literal prefix",
    "file": "/work/main/test/graphite/glob.test.js"
  },
  {
    "name": "globs > find nodes one level below, leaves and branches",
    "file": "/work/main/test/graphite/glob.test.js"
  },
  {
    "name": "metric registry > counts names held by requests in flight against the limit",
    "file": "/work/main/test/store/metric-registry.test.js"
  },
  {
    "name": "metric registry > gives places back only when no request that may have written them holds them",
    "file": "/work/main/test/store/metric-registry.test.js"
  },
  {
    "name": "metric registry > keeps counting a name whose request was answered 504 (it may be written)",
    "file": "/work/main/test/store/metric-registry.test.js"
  },
  {
    "name": "metric registry > frees the places of a request that was not applied",
    "file": "/work/main/test/store/metric-registry.test.js"
  },
  {
    "name": "registry write cache > covers nothing it has not written",
    "file": "/work/main/test/store/registry-write-cache.test.js"
  },
  {
    "name": "registry write cache > covers an update within a minute of the last seen written, on the same day, not moving first seen back",
    "file": "/work/main/test/store/registry-write-cache.test.js"
  },
  {
    "name": "registry write cache > widens what it remembers, and forgets the oldest written past its limit",
    "file": "/work/main/test/store/registry-write-cache.test.js"
  }
]