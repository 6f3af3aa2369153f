// What the suite's server lacks that a test needs: such a test is skipped on
// that server alone, and says why. The server is the one global-setup.js
// found (src/db/capabilities.js detectBackend). Transactions are not here:
// the app asks the server itself (db/plugin.js), and a test of them brings a
// replica set of its own.
import { inject } from 'vitest'

// need → why a server cannot meet it, per backend
// (docs/adr/0057-ferretdb.md)
const GAPS = new Map([
  ['ferretdb', new Map([
    ['scale', 'FerretDB 1.24 scans and decodes the whole collection for every read or update by _id, so a test of hundreds of metrics or more runs for minutes'],
    ['wide updates', 'FerretDB 1.24 takes seconds for an update of thousands of fields (a day of minutes, thousands of histogram buckets), past the write timeout']
  ])]
])

/**
 * True when the suite's server lacks `need` (a key of GAPS); prints the
 * skipped test's name and why.
 */
export function serverLacks (need, test) {
  const backend = inject('backend')
  const why = GAPS.get(backend)?.get(need)
  if (why) console.log(`skipped on ${backend}: ${test}: ${why}`)
  return why !== undefined
}
