// What the dashboard shows of a metric, decided from its kind as GET
// /v1/kinds describes it (src/dashboard/js/kind-views.js): its panels, its
// badge, its series' label, its y axis. No kind is named here but in the
// answer: the answer is the route's own (src/routes/kinds.js).
import { describe, expect, it } from 'vitest'
import { axisLabel, badgeOf, chartAxes, kindBook, namesWithPanel, panelsOf, seriesLabel } from '../../src/dashboard/js/kind-views.js'
import { kindsAnswer } from '../../src/routes/kinds.js'
import { KINDS } from '../../src/kinds/index.js'

const book = kindBook(kindsAnswer())
const [counter, distribution, gauge] = ['counter', 'distribution', 'gauge'].map(name => book.kindOf(name))

describe('kindBook', () => {
  it('holds every kind of the answer, the first (the default kind) for a metric whose kind is not known', () => {
    expect(book.kinds.map(k => k.name)).toEqual(KINDS.map(k => k.name))
    expect(book.kindOf(null)).toBe(book.kinds[0])
    expect(book.kindOf(undefined)).toBe(book.kinds[0])
    expect(counter.name).toBe('counter')
  })
})

describe('panelsOf', () => {
  it('gives the year-to-date panel only to a kind with a ytd read: a gauge has none', () => {
    expect(panelsOf(counter)).toEqual({ latency: false, ytd: true })
    expect(panelsOf(distribution)).toEqual({ latency: true, ytd: true })
    expect(panelsOf(gauge)).toEqual({ latency: false, ytd: false })
  })
})

describe('namesWithPanel', () => {
  it('keeps the names whose kind gets the panel, in the order given; a name of no known kind is of the default kind', () => {
    const kinds = new Map([['web.hits', 'counter'], ['db.latency', 'distribution'], ['api.latency', 'distribution'], ['queue.depth', 'gauge'], ['x', null]])
    const kindOf = name => book.kindOf(kinds.get(name))
    const names = ['web.hits', 'db.latency', 'queue.depth', 'x', 'api.latency']
    expect(namesWithPanel(names, kindOf, 'latency')).toEqual(['db.latency', 'api.latency'])
    expect(namesWithPanel(names, kindOf, 'ytd')).toEqual(['web.hits', 'db.latency', 'x', 'api.latency'])
    expect(namesWithPanel(['web.hits', 'x'], kindOf, 'latency')).toEqual([])
  })
})

describe('badgeOf', () => {
  it('gives every kind a badge naming it, its title saying what a point is', () => {
    for (const kind of book.kinds) {
      const badge = badgeOf(kind)
      expect(badge.text).toBe(kind.name)
      expect(badge.title).toContain(kind.point)
    }
    expect(badgeOf(gauge).title).toBe('gauge: a point is its level')
  })
})

describe('seriesLabel', () => {
  it('names the default stat of a kind that has stats: a distribution\'s count, a gauge\'s last', () => {
    expect(seriesLabel('web.latency', distribution)).toBe('web.latency (count)')
    expect(seriesLabel('queue.depth', gauge)).toBe('queue.depth (last)')
    expect(seriesLabel('web.hits', counter)).toBe('web.hits')
  })
})

describe('axisLabel', () => {
  it('says per which step a sum is counted, and that a gauge\'s point is a level', () => {
    expect(['minute', 'quarter-hour', 'hour', 'day', 'month'].map(step => axisLabel(counter, step)))
      .toEqual(['count per minute', 'count per quarter-hour', 'count per hour', 'count per day', 'count per month'])
    expect(axisLabel(distribution, 'hour')).toBe('values per hour')
    expect(axisLabel(gauge, 'day')).toBe('level')
  })
})

describe('chartAxes', () => {
  it('gives one y axis per label, in the order first used, from 0 where the points are sums', () => {
    expect(chartAxes([counter], 'minute')).toEqual({ axes: [{ label: 'count per minute', fromZero: true }], axisOf: [0] })
    expect(chartAxes([counter, gauge, counter, distribution, gauge], 'day')).toEqual({
      axes: [{ label: 'count per day', fromZero: true }, { label: 'level', fromZero: false }, { label: 'values per day', fromZero: true }],
      axisOf: [0, 1, 0, 2, 1]
    })
    expect(chartAxes([], 'minute')).toEqual({ axes: [], axisOf: [] })
  })
})
