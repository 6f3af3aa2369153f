// What GET /functions answers: the supported functions in graphite-web's
// description format, which Grafana's query editor reads.
const seriesList = { name: 'seriesList', type: 'seriesList', required: true }
const seriesLists = { name: 'seriesLists', type: 'seriesLists', required: true, multiple: true }
const interval = name => ({ name, type: 'interval', required: true })
const aggFuncs = ['sum', 'total', 'average', 'avg', 'max', 'min', 'last', 'current', 'count']

const CATALOG = {
  alias: ['Alias', [seriesList, { name: 'newName', type: 'string', required: true }]],
  aliasByNode: ['Alias', [seriesList, { name: 'nodes', type: 'nodeOrTag', required: true, multiple: true }]],
  aliasByTags: ['Alias', [seriesList, { name: 'tags', type: 'nodeOrTag', required: true, multiple: true }]],
  aliasSub: ['Alias', [seriesList, { name: 'search', type: 'string', required: true }, { name: 'replace', type: 'string', required: true }]],
  consolidateBy: ['Special', [seriesList, { name: 'consolidationFunc', type: 'string', required: true, options: ['sum', 'average', 'avg', 'avg_zero', 'min', 'max', 'first', 'last'] }]],
  constantLine: ['Special', [{ name: 'value', type: 'float', required: true }]],
  groupByTags: ['Combine', [seriesList, { name: 'callback', type: 'aggOrSeriesFunc', required: true, options: [...aggFuncs, 'sumSeries', 'averageSeries', 'maxSeries', 'minSeries'] }, { name: 'tags', type: 'tag', required: true, multiple: true }]],
  hitcount: ['Transform', [seriesList, interval('intervalString')]],
  integral: ['Transform', [seriesList]],
  movingAverage: ['Calculate', [seriesList, { name: 'windowSize', type: 'intOrInterval', required: true }, { name: 'xFilesFactor', type: 'float' }]],
  nonNegativeDerivative: ['Transform', [seriesList, { name: 'maxValue', type: 'float' }, { name: 'minValue', type: 'float' }]],
  perSecond: ['Transform', [seriesList, { name: 'maxValue', type: 'float' }, { name: 'minValue', type: 'float' }]],
  scale: ['Transform', [seriesList, { name: 'factor', type: 'float', required: true }]],
  seriesByTag: ['Special', [{ name: 'tagExpressions', type: 'string', required: true, multiple: true }]],
  sum: ['Combine', [seriesLists]],
  sumSeries: ['Combine', [seriesLists]],
  summarize: ['Transform', [seriesList, interval('intervalString'), { name: 'func', type: 'aggFunc', default: 'sum', options: aggFuncs }, { name: 'alignToFrom', type: 'boolean', default: false }]],
  timeShift: ['Transform', [seriesList, interval('timeShift'), { name: 'resetEnd', type: 'boolean', default: true }]]
}

export function functionCatalog () {
  return Object.fromEntries(Object.entries(CATALOG).map(([name, [group, params]]) => [name, {
    name,
    function: `${name}(${params.map(p => p.name).join(', ')})`,
    description: 'As in graphite-web 1.1.10.',
    module: 'statbucket',
    group,
    params
  }]))
}
