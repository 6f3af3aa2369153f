// A metric's tag selection on the dashboard (src/dashboard/js/tag-selection.js):
// its round trip through the URL hash, the read parameters it makes (and
// api.js's toQuery repeating `tag=`), the lines and labels of an answer.
import { describe, expect, it } from 'vitest'
import { toQuery } from '../../src/dashboard/js/api.js'
import {
  LABEL_VALUE_LENGTH, lineLabel, linesOf, readTagParams, splitFilter, tagQuery, tagsLabel, writeTagParams, ytdOfGroups
} from '../../src/dashboard/js/tag-selection.js'

describe('splitFilter', () => {
  it.each([
    ['status=500', { key: 'status', operator: '=', value: '500' }],
    ['status!=500', { key: 'status', operator: '!=', value: '500' }],
    ['route=~/api/.*', { key: 'route', operator: '=~', value: '/api/.*' }],
    ['route!=~/a=b', { key: 'route', operator: '!=~', value: '/a=b' }],
    ['status=', { key: 'status', operator: '=', value: '' }]
  ])('%s', (expression, parts) => expect(splitFilter(expression)).toEqual(parts))

  it('no operator: null', () => expect(splitFilter('status')).toBeNull())
})

describe('the URL hash', () => {
  const selected = ['web.requests', 'queue.size']

  it('round-trips filters (any characters but the metric\'s ;) and group-by keys, per metric, in the selection\'s order', () => {
    const selections = new Map([
      ['queue.size', { filters: ['host=<b>x</b>&y', 'host!=~a;b'], by: [] }],
      ['web.requests', { filters: ['status=~5'], by: ['route', 'status'] }]
    ])
    const q = new URLSearchParams({ m: selected.join(',') })
    writeTagParams(q, selections, selected)
    expect(q.getAll('tag')).toEqual(['web.requests;status=~5', 'queue.size;host=<b>x</b>&y', 'queue.size;host!=~a;b'])
    expect(q.getAll('by')).toEqual(['web.requests;route,status'])
    const back = readTagParams(new URLSearchParams(q.toString()), selected)
    expect(back).toEqual(new Map([
      ['web.requests', selections.get('web.requests')],
      ['queue.size', selections.get('queue.size')]
    ]))
  })

  it('drops entries of metrics not selected, without a metric, empty, and repeats', () => {
    const q = new URLSearchParams()
    for (const t of ['gone.metric;a=b', 'status=5', ';a=b', 'web.requests;', 'web.requests;a=b', 'web.requests;a=b']) q.append('tag', t)
    q.append('by', 'gone.metric;x')
    q.append('by', 'queue.size;host,,host')
    expect(readTagParams(q, selected)).toEqual(new Map([
      ['web.requests', { filters: ['a=b'], by: [] }],
      ['queue.size', { filters: [], by: ['host'] }]
    ]))
  })

  it('nothing selected by tag: no parameter', () => {
    const q = new URLSearchParams()
    writeTagParams(q, new Map(), selected)
    expect(q.toString()).toBe('')
    expect(readTagParams(q, selected).size).toBe(0)
  })
})

describe('the read parameters', () => {
  it('repeated tag= and one by=', () => {
    const params = tagQuery({ filters: ['status=~5', 'route!=/home'], by: ['route', 'az'] })
    expect(params).toEqual({ tag: ['status=~5', 'route!=/home'], by: 'route,az' })
    expect(toQuery({ from: 1, ...params }).toString()).toBe('from=1&tag=status%3D%7E5&tag=route%21%3D%2Fhome&by=route%2Caz')
  })

  it('none, or an empty selection: no parameter', () => {
    expect(tagQuery(undefined)).toEqual({})
    expect(tagQuery({ filters: [], by: [] })).toEqual({})
    expect(toQuery({ from: 1, tag: [] }).toString()).toBe('from=1')
  })
})

describe('lines and labels', () => {
  it('one line for an answer without groups; one per group, in the answer\'s order', () => {
    expect(linesOf('m', { values: [1, null] })).toEqual([{ key: 'm', tags: null, values: [1, null] }])
    const groups = [{ tags: { status: '200' }, series: 2, values: [3] }, { tags: { status: null }, series: 1, values: [null] }]
    expect(linesOf('m', { groups })).toEqual([
      { key: 'm {"status":"200"}', tags: { status: '200' }, values: [3] },
      { key: 'm {"status":null}', tags: { status: null }, values: [null] }
    ])
    expect(linesOf('m', { groups: [] })).toEqual([])
  })

  it('labels: the filters in brackets, the group\'s tags in braces, a missing key as (none), long values shortened', () => {
    const sel = { filters: ['status=~5', 'route!=/home'], by: ['route', 'az'] }
    expect(lineLabel('web.requests', sel, { route: '/login', az: null })).toBe('web.requests [status=~5, route!=/home] {route=/login, az=(none)}')
    expect(lineLabel('api.latency (count)', undefined)).toBe('api.latency (count)')
    const long = 'x'.repeat(LABEL_VALUE_LENGTH + 1)
    expect(tagsLabel({ k: long })).toBe(`k=${'x'.repeat(LABEL_VALUE_LENGTH)}…`)
    expect(tagsLabel({ k: long.slice(1) })).toBe(`k=${long.slice(1)}`)
  })

  it('a grouped ytd summed: each month the sum of the groups that hold it, null where none does', () => {
    const answer = {
      metric: 'm',
      groups: [
        { tags: { a: '1' }, total: 5, months: [{ month: '2026-01', total: 2 }, { month: '2026-02', total: 3 }, { month: '2026-03', total: null }] },
        { tags: { a: '2' }, total: 4, months: [{ month: '2026-01', total: null }, { month: '2026-02', total: 4 }, { month: '2026-03', total: null }] }
      ]
    }
    const summed = ytdOfGroups(answer)
    expect(summed.total).toBe(9)
    expect(summed.months).toEqual([{ month: '2026-01', total: 2 }, { month: '2026-02', total: 7 }, { month: '2026-03', total: null }])
    expect(ytdOfGroups({ groups: [] })).toMatchObject({ total: 0, months: [] })
  })
})
