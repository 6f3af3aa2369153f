import neostandard from 'neostandard'

export default [
  ...neostandard({ ignores: ['node_modules/**', 'data/**', 'java/**/target/**', '.node24/**', '.scratch/**', 'coverage/**', 'bench-results/**', 'test-results/**'] }),
  {
    // the dashboard runs in the browser
    files: ['src/dashboard/**/*.js'],
    languageOptions: {
      globals: Object.fromEntries(['window', 'document', 'location', 'history', 'localStorage', 'getComputedStyle', 'requestAnimationFrame', 'ResizeObserver', 'Option', 'addEventListener'].map(name => [name, 'readonly']))
    }
  }
]
