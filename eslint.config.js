import neostandard from 'neostandard'

export default [
  ...neostandard({ ignores: ['node_modules/**', 'data/**', 'java/**/target/**', '.node24/**', '.scratch/**', 'coverage/**', 'bench-results/**'] })
]
