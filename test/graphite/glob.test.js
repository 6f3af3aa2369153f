import { describe, expect, it } from 'vitest'
import { MAX_ALTERNATIVES, MAX_GLOB_INSTRUCTIONS, braceAlternatives, findNodes, globMatcher, globParts, isGlob, literalPrefix } from '../../src/graphite/glob.js'
import { RegexBudgetError, regexBudget } from '../../src/graphite/regex.js'

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

describe("a glob's cost", () => {
  it('a run of * is one *: 8,000 of them match as one does', () => {
    const names = ['a.b', 'a.bc', 'a.b.c', 'x.y']
    expect(findNodes(`a.${'*'.repeat(8000)}`, names)).toEqual(findNodes('a.*', names))
    expect(globMatcher(`a.b${'*'.repeat(8000)}c`)('a.bxyc')).toBe(true)
    expect(globMatcher(`a.b${'*'.repeat(8000)}c`)('a.bxy')).toBe(false)
  })

  it('a part past MAX_GLOB_INSTRUCTIONS is refused naming the limit and the part, quoted short', () => {
    const err = (() => { try { globParts(`a.${'?'.repeat(3000)}`) } catch (e) { return e } })()
    expect(err.message).toMatch(new RegExp(`^glob "a\\.\\?{198}"… \\(3002 characters\\) is not valid: the part "\\?{200}"… \\(3000 characters\\) compiles to \\d+ instructions, over ${MAX_GLOB_INSTRUCTIONS}: use fewer alternatives, classes or \\?$`))
  })

  it('a part of literals and braces is a look-up, whatever the number of alternatives (a dashboard\'s "All")', () => {
    const hosts = Array.from({ length: 1000 }, (_, i) => `${(i * 7919).toString(36)}-host-${i}`)
    const [, part, cpu] = globParts(`hosts.{${hosts.join(',')}}.cpu`)
    expect(hosts.every(h => part(h))).toBe(true)
    expect([part('nope'), part(''), part(`${hosts[0]},${hosts[1]}`)]).toEqual([false, false, false])
    expect(cpu.literal).toBe('cpu')
    expect(globMatcher(`hosts.pre{${hosts.slice(0, 300).join(',')}}post.cpu`)(`hosts.pre${hosts[299]}post.cpu`)).toBe(true)
    // with a wildcard in it, the same brace is a regex within the bound
    expect(() => globParts(`hosts.{${hosts.join(',')},x*}.cpu`)).toThrow(/compiles to \d+ instructions, over 2048/)
    // two braces whose texts would be 4 million are not listed (counted before they are made): the part is a regex, its answer the same
    const two = `{${Array.from({ length: 2000 }, (_, i) => i.toString(36)).join(',')}}`
    expect(braceAlternatives(two + two, 10_000)).toBe(null)
    expect(globMatcher(`x.${two}${two}`)('x.1z1z')).toBe(true)
    expect(globMatcher(`x.${two}${two}`)('x.1z-')).toBe(false)
    // a bare * tests nothing and matches every part
    const [, any] = globParts('a.*')
    expect(['x', 'web-1', 'a'.repeat(200)].every(any)).toBe(true)
  })

  it("a glob's tests stop once they took its time together (a fake clock: 100 ms a test, 250 allowed)", () => {
    let t = 0
    const budget = regexBudget(250, () => (t += 100))
    const [, part] = globParts('a.b*', budget)
    expect([part('bx'), part('by'), part('c')]).toEqual([true, true, false])
    expect(() => part('bz')).toThrow(RegexBudgetError)
    expect(() => part('bz')).toThrow(/^the regexes of glob "a\.b\*" tested values for over 250 ms: narrow it \(a literal first part, fewer wildcards\)$/)
  })
})
