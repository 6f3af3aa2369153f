// The latest run in docs/benchmarks.md, written by the bench itself
// (`npm run bench -- --write-docs`). Pure: the page and the run's markdown
// come in, the page with its marked section replaced goes out.
export const LATEST_START = '<!-- bench:latest:start -->'
export const LATEST_END = '<!-- bench:latest:end -->'
/** The markers of a section of the page the bench writes: bench:<name>:start, bench:<name>:end */
export const markersOf = (name) => ({ start: `<!-- bench:${name}:start -->`, end: `<!-- bench:${name}:end -->` })

// The blocks the page keeps besides the targets, where a run printed them:
// the yardsticks (with their table), the timers' CPU, the RSS of each phase
const KEPT = [
  { opens: '**Single events beside the yardsticks**', withTable: true },
  { opens: 'Service side of the HTTP timer batches', withTable: false },
  { opens: '**Service RSS**', withTable: false }
]

/**
 * What the page keeps of a run's markdown (renderMarkdown's output): its
 * heading (run, machine, database, versions, scale, service), the targets
 * table, the KEPT blocks and the closing notes. The other tables are printed by every run.
 */
export function latestRunSection (runMarkdown) {
  const blocks = runMarkdown.replace(/\r\n/g, '\n').trim().split(/\n{2,}/)
  const heading = blocks[0]
  const targets = blocks.find(b => b.startsWith('| figure | target |'))
  if (!heading?.startsWith('**Run** ') || !targets) {
    throw new Error('not a run of npm run bench: its markdown opens with **Run** and holds the targets table')
  }
  const kept = []
  for (const { opens, withTable } of KEPT) {
    const i = blocks.findIndex(b => b.startsWith(opens))
    if (i < 0) continue
    kept.push(blocks[i])
    if (withTable && blocks[i + 1]?.startsWith('|')) kept.push(blocks[i + 1])
  }
  const last = blocks[blocks.length - 1]
  const notes = last.split('\n').every(line => line.startsWith('- ')) ? last : null
  return [heading, targets, ...kept, ...(notes ? [notes] : [])].join('\n\n')
}

/** The page with the text between the markers of section `name` replaced by `text`; throws when the markers are not there once each, in order */
export function writeSection (page, name, text) {
  const { start: START, end: END } = markersOf(name)
  const start = page.indexOf(START)
  const end = page.indexOf(END)
  if (start < 0 || end < 0 || end < start || page.indexOf(START, start + 1) >= 0 || page.indexOf(END, end + 1) >= 0) {
    throw new Error(`the page must hold ${START} and then ${END}, once each`)
  }
  return page.slice(0, start + START.length) + '\n\n' + text.trim() + '\n\n' + page.slice(end)
}

/** The page with the text between its markers replaced by the run's section; throws when the markers are not there once each, in order */
export function writeLatestRun (page, runMarkdown) {
  return writeSection(page, 'latest', latestRunSection(runMarkdown))
}
