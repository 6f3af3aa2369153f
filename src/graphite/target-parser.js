// Graphite target expressions: a small recursive-descent parser. Pure.
//
//   target    := expression
//   expression:= call | number | string | boolean | path
//   call      := NAME '(' [ argument (',' argument)* ] ')'
//   argument  := NAME '=' expression | expression
//   path      := path characters, glob braces `{a,b}` and classes `[0-9]` kept whole
//
// Nodes: { type: 'call', name, args: [node], kwargs: { name: node }, raw }
//        { type: 'path', path } | { type: 'number', value, isInteger } | { type: 'string', value }
//        { type: 'boolean', value }
// A syntax error throws TargetSyntaxError naming the position and what was expected.

export const MAX_DEPTH = 64

export class TargetSyntaxError extends Error {
  constructor (target, position, message) {
    super(`target ${JSON.stringify(target)} at character ${position + 1}: ${message}`)
    this.name = 'TargetSyntaxError'
  }
}

const isNameStart = c => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c === '_'
const isNameChar = c => isNameStart(c) || (c >= '0' && c <= '9')
const isDigit = c => c >= '0' && c <= '9'
// what a metric path may hold besides glob syntax (graphite-web's grammar allows these)
const isPathChar = c => isNameChar(c) || '.-:*?!#$%^&<>|~@'.includes(c)

export function parseTarget (text) {
  if (typeof text !== 'string' || text.trim() === '') throw new TargetSyntaxError(String(text), 0, 'an empty target')
  const parser = new Parser(text)
  parser.skipSpace()
  const node = parser.expression()
  parser.skipSpace()
  if (parser.pos < text.length) parser.fail(`unexpected ${JSON.stringify(text[parser.pos])} after the expression`)
  return node
}

class Parser {
  constructor (text) {
    this.text = text
    this.pos = 0
    this.depth = 0
  }

  fail (message) { throw new TargetSyntaxError(this.text, this.pos, message) }
  peek () { return this.text[this.pos] }
  skipSpace () { while (this.peek() === ' ' || this.peek() === '\t') this.pos++ }

  expression () {
    const c = this.peek()
    if (c === undefined) this.fail('expected an expression, found the end')
    if (c === '"' || c === "'") return this.string()
    if (isDigit(c) || ((c === '-' || c === '+' || c === '.') && this.looksNumeric())) {
      const number = this.number()
      if (number) return number
    }
    return this.pathOrCall()
  }

  looksNumeric () {
    let i = this.pos + 1
    if (this.text[this.pos] !== '.' && this.text[i] === '.') i++
    return isDigit(this.text[i] ?? '')
  }

  /** a number when the whole token is one (`1e3`, `-2.5`); a path like `1abc.x` otherwise (null) */
  number () {
    const start = this.pos
    let i = start
    if (this.text[i] === '-' || this.text[i] === '+') i++
    while (isDigit(this.text[i] ?? '')) i++
    if (this.text[i] === '.') { i++; while (isDigit(this.text[i] ?? '')) i++ }
    if ((this.text[i] === 'e' || this.text[i] === 'E') && /[0-9+-]/.test(this.text[i + 1] ?? '')) {
      i++
      if (this.text[i] === '-' || this.text[i] === '+') i++
      while (isDigit(this.text[i] ?? '')) i++
    }
    const next = this.text[i]
    if (next !== undefined && next !== ',' && next !== ')' && next !== ' ') return null
    const raw = this.text.slice(start, i)
    const value = Number(raw)
    if (!Number.isFinite(value)) return null
    this.pos = i
    return { type: 'number', value, isInteger: ![...raw].some(c => c === '.' || c === 'e' || c === 'E') }
  }

  string () {
    const quote = this.peek()
    const start = this.pos
    this.pos++
    let value = ''
    // as graphite-web's grammar: a backslash keeps the next character from
    // closing the string, and both stay in the value (aliasSub's "\\1", "\\.")
    while (this.pos < this.text.length && this.peek() !== quote) {
      if (this.peek() === '\\' && this.pos + 1 < this.text.length) value += this.text[this.pos++]
      value += this.text[this.pos++]
    }
    if (this.peek() !== quote) { this.pos = start; this.fail('a string that is never closed') }
    this.pos++
    return { type: 'string', value }
  }

  pathOrCall () {
    const start = this.pos
    let path = ''
    while (this.pos < this.text.length) {
      const c = this.peek()
      if (c === '{') path += this.braces()
      else if (c === '[') path += this.charClass()
      else if (isPathChar(c)) { path += c; this.pos++ } else break
    }
    if (path === '') this.fail(`expected a path, a function call, a number or a string, found ${JSON.stringify(this.peek())}`)
    if (this.peek() === '(') {
      if (![...path].every(isNameChar) || !isNameStart(path[0])) { this.pos = start; this.fail(`${JSON.stringify(path)} is not a function name`) }
      return this.call(path, start)
    }
    if (path === 'true' || path === 'false') return { type: 'boolean', value: path === 'true' }
    return { type: 'path', path }
  }

  braces () {
    const start = this.pos
    const end = this.text.indexOf('}', start)
    if (end === -1) this.fail('a { that is never closed')
    const body = this.text.slice(start + 1, end)
    if ([...body].some(c => !isPathChar(c) && c !== ',' && c !== '[' && c !== ']')) this.fail('only path characters and commas may stand inside { }')
    this.pos = end + 1
    return this.text.slice(start, end + 1)
  }

  charClass () {
    const start = this.pos
    const end = this.text.indexOf(']', start)
    if (end === -1) this.fail('a [ that is never closed')
    this.pos = end + 1
    return this.text.slice(start, end + 1)
  }

  /** raw: the call's text as written, from its name to its `)` (graphite-web's call.raw: seriesByTag's path expression) */
  call (name, start) {
    // bounded: a deeply nested target is refused, not a stack overflow
    if (++this.depth > MAX_DEPTH) this.fail(`calls nested deeper than ${MAX_DEPTH}`)
    this.pos++ // (
    const args = []
    const kwargs = Object.create(null) // a keyword such as __proto__ is an ordinary key
    this.skipSpace()
    if (this.peek() === ')') { this.pos++; this.depth--; return { type: 'call', name, args, kwargs, raw: this.text.slice(start, this.pos) } }
    for (;;) {
      this.skipSpace()
      const keyword = this.keyword()
      const value = this.expression()
      if (keyword) kwargs[keyword] = value
      else if (Object.keys(kwargs).length) this.fail('a positional argument after a keyword argument')
      else args.push(value)
      this.skipSpace()
      const c = this.peek()
      if (c === ',') { this.pos++; continue }
      if (c === ')') { this.pos++; this.depth--; return { type: 'call', name, args, kwargs, raw: this.text.slice(start, this.pos) } }
      this.fail(c === undefined ? `${name}( is never closed` : `expected , or ) in ${name}(), found ${JSON.stringify(c)}`)
    }
  }

  /** `name=` before an argument: the name, consumed; null otherwise */
  keyword () {
    let i = this.pos
    if (!isNameStart(this.text[i] ?? '')) return null
    while (isNameChar(this.text[i] ?? '')) i++
    if (this.text[i] !== '=') return null
    const name = this.text.slice(this.pos, i)
    this.pos = i + 1
    return name
  }
}
