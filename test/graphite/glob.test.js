import { describe, expect, it } from 'vitest'
import { MAX_ALTERNATIVES, braceAlternatives, findNodes, globMatcher, globParts, isGlob, literalPrefix } from '../../src/graphite/glob.js'

describe('globs', () => {
  it('match part by part', () => {
    const m = globMatcher('app.*.req')
    expect(m('app.web.req')).toBe(true)
    expect(m('app.web.x.req')).toBe(false) // * stays within a part
    expect(m('app.req')).toBe(false)
    expect(globMatcher('a.{web,api}.x')('a.api.x')).toBe(true)
    expect(globMatcher('a.{web,api}.x')('a.db.x')).toBe(false)
    expect(globMatcher('h[0-9]')('h7')).toBe(true)
    expect(globMatcher('h[0-9]')('hx')).toBe(false)
    expect(globMatcher('h[!0-9]')('hx')).toBe(true)
    expect(globMatcher('h?')('h12')).toBe(false)
    expect(globMatcher('a.b+c')('a.b+c')).toBe(true) // regex characters are literal
    expect(globMatcher('a.b+c')('a.bbc')).toBe(false)
  })

  it('scan the registry from the literal prefix', () => {
    expect(literalPrefix('app.web*.x')).toBe('app.web')
    expect(literalPrefix('{a,b}.x')).toBe('')
    expect(literalPrefix('plain.name')).toBe('plain.name')
    expect(isGlob('plain.name')).toBe(false)
    expect(isGlob('a.[12]')).toBe(true)
  })

  it('find nodes one level below, leaves and branches', () => {
    const names = ['app.a.x', 'app.a.y', 'app.b', 'app.b.z', 'other.q']
    expect(findNodes('app.*', names)).toEqual([
      { path: 'app.a', text: 'a', leaf: false, branch: true },
      { path: 'app.b', text: 'b', leaf: true, branch: true }
    ])
    expect(findNodes('app.a.*', names).map(n => [n.path, n.leaf])).toEqual([['app.a.x', true], ['app.a.y', true]])
  })

  it('expand a part of literals and braces to the texts it stands for, and nothing else', () => {
    expect(braceAlternatives('p{50,75}')).toEqual(['p50', 'p75'])
    expect(braceAlternatives('{a,b}x{1,2}')).toEqual(['ax1', 'ax2', 'bx1', 'bx2'])
    expect(braceAlternatives('p{50')).toEqual(['p{50']) // unclosed: a literal, as the matcher reads it
    expect(globMatcher('p{50')('p{50')).toBe(true)
    expect(braceAlternatives('p{5*,75}')).toBe(null)
    expect(braceAlternatives('p[57]5')).toBe(null)
    expect(braceAlternatives('{a,{b}')).toBe(null)
    expect(braceAlternatives('{a,b}'.repeat(7))).toBe(null) // 128 texts: more than MAX_ALTERNATIVES
    expect(MAX_ALTERNATIVES).toBe(64)
    const [, part] = globParts('x.p{50,75}')
    expect(part.alternatives).toEqual(['p50', 'p75'])
    expect(globParts('x.p*')[1].alternatives).toBeUndefined()
  })
})
