// Every kind of metric, each described once (docs/architecture.md#the-kinds):
// ./counter.js, ./distribution.js, ./gauge.js. Shared code (the writer, the
// reader, the jobs, deletion, Graphite, the API's kind list) loops over KINDS
// or looks a kind up by name; a kind added later is one more descriptor here.
// Pure.
import { counter } from './counter.js'
import { distribution } from './distribution.js'
import { gauge } from './gauge.js'

/** Every kind, the default (counter) first */
export const KINDS = Object.freeze([counter, distribution, gauge])

const BY_NAME = new Map(KINDS.map(k => [k.name, k]))

/** The descriptor of a kind name ('counter', …), or undefined */
export const kindNamed = (name) => BY_NAME.get(name)

/** The descriptor of a registry kind ({ kind }, bucket/metric-kinds.js; undefined: a counter), or undefined for one this version cannot read */
export const descriptorOf = (kind) => (kind === undefined ? counter : BY_NAME.get(kind.kind))

/** The descriptor of an event (no `kind`: a counter's increment) */
export const descriptorOfEvent = (e) => (e.kind === undefined ? counter : BY_NAME.get(e.kind))

/** Every collection of every kind's documents, by name */
export const KIND_COLLECTIONS = Object.freeze(KINDS.flatMap(k => Object.values(k.collections)))

/** Every document collection of a write unit, in flush order: { collection, prefix, add?, toOperation } (no add: a held kind's, built at the flush) */
export const DOCUMENT_PARTS = Object.freeze(KINDS.flatMap(k => k.parts))

/** The kind names, as an event's `kind` and the registry name them */
export const KIND_NAMES = Object.freeze(KINDS.map(k => k.name))
