// The profile's arithmetic (scripts/bench/profile-single.js): self time summed
// by file, node_modules by package, busiest first.
import { describe, expect, it } from 'vitest'
import { selfTimeByFile } from '../../../scripts/bench/profile-single.js'

const frame = (url, functionName = 'f') => ({ url, functionName, scriptId: '1', lineNumber: 0, columnNumber: 0 })

describe('selfTimeByFile', () => {
  it('sums the samples of each file and package, and names the engine\'s own entries', () => {
    const profile = {
      nodes: [
        { id: 1, callFrame: frame('', '(idle)') },
        { id: 2, callFrame: frame('file:///app/src/writer/write-queue.js', 'submit') },
        { id: 3, callFrame: frame('file:///app/src/writer/write-queue.js', 'answer') },
        { id: 4, callFrame: frame('file:///app/node_modules/mongodb/lib/bulk/common.js') },
        { id: 5, callFrame: frame('file:///app/node_modules/@fastify/error/index.js') },
        { id: 6, callFrame: frame('node:events', 'emit') }
      ],
      samples: [1, 1, 1, 2, 3, 3, 4, 4, 5, 6]
    }
    expect(selfTimeByFile(profile)).toEqual({
      total: 10,
      rows: [['((idle))', 3], ['src/writer/write-queue.js', 3], ['npm:mongodb', 2], ['npm:@fastify/error', 1], ['node:events', 1]]
    })
  })
})

describe('selfTimeByFile in a window', () => {
  it('counts only the samples taken between the window\'s ends (the profile\'s clock: startTime plus the deltas)', () => {
    const profile = {
      startTime: 1000,
      nodes: [{ id: 1, callFrame: frame('', '(idle)') }, { id: 2, callFrame: frame('file:///app/src/app.js', 'boot') }, { id: 3, callFrame: frame('file:///app/src/ingest/ingest.js', 'submit') }],
      samples: [2, 2, 3, 1, 3, 2],
      timeDeltas: [10, 10, 100, 10, 10, 500] // at 1010, 1020, 1120, 1130, 1140, 1640
    }
    expect(selfTimeByFile(profile, [1100, 1200])).toEqual({ total: 3, rows: [['src/ingest/ingest.js', 2], ['((idle))', 1]] })
  })
})

describe('selfTimeByFile by function', () => {
  it('sums the samples of each function at its line, node_modules by file', () => {
    const at = (url, functionName, lineNumber) => ({ url, functionName, scriptId: '1', lineNumber, columnNumber: 0 })
    const profile = {
      nodes: [
        { id: 1, callFrame: at('file:///app/src/writer/write-queue.js', 'trackDocs', 185) },
        { id: 2, callFrame: at('file:///app/src/writer/write-queue.js', 'cut', 305) },
        { id: 3, callFrame: at('file:///app/node_modules/bson/lib/bson.cjs', 'serializeInto', 3750) },
        { id: 4, callFrame: at('', '(garbage collector)', -1) }
      ],
      samples: [1, 2, 1, 3, 4, 1]
    }
    expect(selfTimeByFile(profile, null, { byFunction: true })).toEqual({
      total: 6,
      rows: [['trackDocs src/writer/write-queue.js:186', 3], ['cut src/writer/write-queue.js:306', 1], ['serializeInto npm:bson/lib/bson.cjs:3751', 1], ['((garbage collector))', 1]]
    })
  })
})
