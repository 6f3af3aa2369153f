// A metric's colour (src/dashboard/js/colors.js): a function of its name
// only, so it is the same in every view, list and order.
import { describe, expect, it } from 'vitest'
import { PALETTE, colorOf, colorsOf } from '../../src/dashboard/js/colors.js'

const NAMES = ['web.hits', 'web.errors', 'short.hits', 'api.requests', 'api.latency', 'host1.cpu', 'host2.cpu', 'bulk.00000']

describe('colorOf', () => {
  it('gives a name the same colour whatever the list it is in and its place there', () => {
    const colours = new Map(NAMES.map(name => [name, colorOf(name)]))
    const lists = [NAMES, [...NAMES].reverse(), ['web.errors', 'web.hits'], ['web.hits'], ['host2.cpu', 'web.hits', 'host1.cpu']]
    for (const list of lists) {
      expect(list.map(colorOf)).toEqual(list.map(name => colours.get(name)))
    }
    // not the colour of a place: the first of two lists gets different colours
    expect(new Set(lists.map(list => colorOf(list[0]))).size).toBeGreaterThan(1)
  })

  it('is a colour of the palette, pinned: a metric keeps its colour from one release to the next', () => {
    for (const name of NAMES) expect(PALETTE).toContain(colorOf(name))
    expect(colorOf('web.hits')).toBe('#4b5563')
    expect(colorOf('web.errors')).toBe('#db2777')
    expect(colorOf('api.requests')).toBe('#2563eb')
  })

  it('spreads names over the whole palette, near-identical names too', () => {
    const counts = new Map(PALETTE.map(c => [c, 0]))
    for (let i = 0; i < 10_000; i++) counts.set(colorOf(`host${i}.cpu`), counts.get(colorOf(`host${i}.cpu`)) + 1)
    for (const [colour, n] of counts) expect(n, colour).toBeGreaterThan(10_000 / PALETTE.length * 0.8)
  })
})

describe('colorsOf', () => {
  it('gives two metrics shown together two colours: the later of two names hashed alike takes the next free one', () => {
    expect(colorOf('db.latency')).toBe(colorOf('web.hits')) // one colour by the hash
    const [hits, latency] = colorsOf(['web.hits', 'db.latency'])
    expect(hits).toBe(colorOf('web.hits')) // the first keeps its own
    expect(latency).not.toBe(hits)
    expect(PALETTE).toContain(latency)
    expect(colorsOf(['db.latency', 'web.hits'])[0]).toBe(colorOf('db.latency'))
  })

  it('keeps each name\'s own colour where no earlier name has it, and gives up to 10 names 10 colours', () => {
    expect(colorsOf(NAMES.slice(0, 3))).toEqual(NAMES.slice(0, 3).map(colorOf))
    const many = Array.from({ length: PALETTE.length }, (_, i) => `host${i}.cpu`)
    expect(new Set(colorsOf(many)).size).toBe(PALETTE.length)
    expect(colorsOf([...many, 'web.hits'])).toHaveLength(PALETTE.length + 1) // past the palette, colours repeat
    expect(colorsOf([])).toEqual([])
  })
})
