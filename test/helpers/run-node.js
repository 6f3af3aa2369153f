// Runs a command as a real process: `node script …args` from the repository
// root → { code, stdout, stderr }; never rejects.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** script: a path from the repository root, or absolute; options: execFile's (env, timeout, …) */
export function runNode (script, args = [], options = {}) {
  return new Promise(resolve => {
    execFile(process.execPath, [script, ...args], { cwd: ROOT, timeout: 20_000, ...options }, (err, stdout, stderr) => {
      resolve({ code: err ? err.code : 0, stdout, stderr })
    })
  })
}
