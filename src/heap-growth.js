// How far V8 lets the heap grow past what a full collection left live
// (docs/adr/0082-heap-growth-factor.md). Its own factor reaches 4 on a large
// machine: a writer whose requests wait ~0.5 s for their flush promotes them
// to the old generation, and the heap then grew from 40 MB live to 260 MB
// before it was collected. Set once, by the process's entry (src/server.js),
// before the app allocates.
import v8 from 'node:v8'

/**
 * node's flags for the service, which `npm start` and the Docker image pass
 * (test/deploy/docker.test.js holds them equal): the young generation as
 * Node 20 sizes it. Node 24 lets it grow to 134 MB, which V8 reads only at
 * start: the bench's service RSS 390 MB, 299 MB with it (docs/adr/0082-heap-growth-factor.md)
 */
export const SERVICE_NODE_FLAGS = Object.freeze(['--max-semi-space-size=16'])

/**
 * Sets V8's heap growing factor to 1 + percent/100 (percent 0: V8's own,
 * nothing set) → the flag set, or null. setFlags: v8.setFlagsFromString (tests give their own)
 */
export function applyHeapGrowth (percent, setFlags = (flags) => v8.setFlagsFromString(flags)) {
  if (!(percent > 0)) return null
  const flag = `--heap-growing-percent=${percent}`
  setFlags(flag)
  return flag
}
