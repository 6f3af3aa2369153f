// The tag rules' answers for the series names the doors see, remembered
// (docs/adr/0071-series-names-judged-once.md): a JSON event's metric and tags →
// its canonical series name, and which names are canonical series (the
// ingest service's check of every door). The same series arrive request
// after request: each is judged in full once (./series-name.js), then found.
// Only answers that pass are kept: text breaking a rule is judged every
// time, with its message. Bounded (./bounded-cache.js) whatever clients
// send. Pure.
import { createBoundedCache } from './bounded-cache.js'
import { isTagged, seriesOfEvent, seriesProblem } from './series-name.js'

export const SERIES_NAME_CACHE_LIMITS = Object.freeze({ maxEntries: 20_000, maxChars: 2_000_000 })

/**
 * A JSON event's metric and tags as one text no other metric and tags give:
 * its parts joined by \0, then the count of tags (a key or value holding a
 * \0 makes more parts than that count says); null when a value is not a string
 */
function eventKey (metric, tagObject) {
  if (tagObject === undefined) return `${metric}\u0000n`
  const keys = Object.keys(tagObject)
  let key = metric
  for (const k of keys) {
    const value = tagObject[k]
    if (typeof value !== 'string') return null
    key += `\u0000${k}\u0000${value}`
  }
  return `${key}\u0000${keys.length}`
}

/** → { seriesOfEvent(metric, tags), findInvalidSeries(events), size, chars }, answering as ./series-name.js's */
export function createSeriesNameCache (limits = SERIES_NAME_CACHE_LIMITS) {
  const cache = createBoundedCache(limits)

  /** Remembers a name known to be a canonical series (its own key: a door's key always holds a \0, a series never) */
  function rememberSeries (series) {
    if (cache.get(series)?.series !== series) cache.set(series, Object.freeze({ series }), 2 * series.length)
  }

  return {
    /** ./series-name.js seriesOfEvent: { series } or { problem } */
    seriesOfEvent (metric, tagObject) {
      if (typeof metric !== 'string' || (tagObject === undefined && !isTagged(metric))) return seriesOfEvent(metric, tagObject)
      const key = eventKey(metric, tagObject)
      if (key === null) return seriesOfEvent(metric, tagObject)
      const known = cache.get(key)
      if (known !== undefined) return known
      const answer = seriesOfEvent(metric, tagObject)
      if (answer.problem !== undefined) return answer
      const kept = Object.freeze({ series: answer.series })
      cache.set(key, kept, key.length + kept.series.length)
      rememberSeries(kept.series)
      return kept
    },

    /** ./series-name.js findInvalidSeries: null, or the first event whose series is not canonical by the rules */
    findInvalidSeries (events) {
      for (let i = 0; i < events.length; i++) {
        const { metric } = events[i]
        if (!isTagged(metric) || cache.get(metric)?.series === metric) continue
        const message = seriesProblem(metric)
        if (message !== null) return { index: i, field: 'metric', message }
        rememberSeries(metric)
      }
      return null
    },

    get size () { return cache.size },
    get chars () { return cache.chars }
  }
}
