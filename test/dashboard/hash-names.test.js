// The selected metrics in the dashboard's URL hash (src/dashboard/js/hash-names.js):
// every name a series may have comes back whole, through URLSearchParams as
// the page writes and reads its hash; the links of plain names read as before.
import { describe, expect, it } from 'vitest'
import { readNames, writeNames } from '../../src/dashboard/js/hash-names.js'

/** writeNames → the hash as the page writes it → readNames */
const roundTrip = names => {
  const q = new URLSearchParams()
  q.set('m', writeNames(names))
  return readNames(new URLSearchParams(q.toString()).get('m'))
}

describe('the selected metrics in the URL hash', () => {
  it('brings back series whose tag values hold , % and other printable characters', () => {
    const names = ['web.req;route=/a,b', 'web.req;route=/a', 'b', 'x;k=50%;v=%2C', 'y;k=,,;q=%25,', 'z;k=a+b &c=d#e', 'u;k=é,ü']
    expect(roundTrip(names)).toEqual(names)
    for (const name of names) expect(roundTrip([name])).toEqual([name])
  })

  it('writes a name without , or % as it is: the links of plain names and their series read as before', () => {
    expect(writeNames(['web.hits', 'api.latency;region=eu'])).toBe('web.hits,api.latency;region=eu')
    expect(readNames('web.hits,api.latency;region=eu')).toEqual(['web.hits', 'api.latency;region=eu'])
    expect(readNames('web.hits,,db.latency,')).toEqual(['web.hits', 'db.latency'])
    expect(writeNames(['web.req;route=/a,b'])).toBe('web.req;route=/a%2Cb')
    expect(readNames('web.req;route=/a%2cb')).toEqual(['web.req;route=/a,b'])
  })
})
