// The test's side of the multi-instance servers (server.mjs beside this file):
// starts one in its own Node process and sends it requests over IPC. Used by
// multi-instance.test.mjs (two servers on a libSQL file) and
// multi-instance.postgres.test.mjs (three on PostgreSQL, one killed mid-run).

import { fork } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))

/** The words of the server's 'words:<n>' catalog, one tool `<word>Lookup` each; no description holds another's word. */
export const WORDS = `amber basalt cobalt dune ember fjord garnet harbor iris jasper kelp lagoon marble
  nectar opal prairie quartz raven saffron tundra umber violet walnut yarrow zephyr`.split(/\s+/)

/** Thrown for each request a server had in flight when its process ended. */
export class ServerGone extends Error {}

/**
 * Starts a server process and waits until its storage is ready. `url` is a
 * libSQL `file:` URL or a PostgreSQL URL (server.mjs). Resolves with the
 * server: `request(message)` resolves with its reply ({ server, calls,
 * toolResults, text }) or rejects, with a `ServerGone` if the process ends
 * first; `stop()` lets it exit and waits; `exited` resolves when it has.
 */
export async function startServer({ name, storage, url, catalog }) {
  const child = fork(join(here, 'server.mjs'), [name, storage, url, ...(catalog ? [catalog] : [])], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  let next = 0
  const pending = new Map()
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)))
  const ready = new Promise((resolve, reject) => {
    child.on('message', (message) => {
      if (message.ready) return resolve(message)
      const settle = pending.get(message.id)
      pending.delete(message.id)
      settle?.(message)
    })
    exited.then((how) => {
      reject(new Error(`server ${name} exited (${how}) before it was ready`))
      for (const settle of pending.values()) settle({ gone: how })
      pending.clear()
    })
  })
  const { implementation } = await ready
  return {
    name,
    pid: child.pid,
    implementation,
    exited,
    /** In flight on this server now. */
    get inFlight() {
      return pending.size
    },
    request(message) {
      const id = next++
      return new Promise((resolve, reject) => {
        pending.set(id, ({ id: _, error, gone, ...reply }) => {
          if (gone !== undefined) reject(new ServerGone(`server ${name} ended (${gone}) with the request in flight`))
          else if (error) reject(new Error(`server ${name}: ${error}`))
          else resolve(reply)
        })
        const lost = () => {
          pending.get(id)?.({ gone: 'disconnected' })
          pending.delete(id)
        }
        if (!child.connected) return lost()
        // A process killed a moment ago may still look connected: its send then fails here.
        child.send({ id, ...message }, (error) => error && lost())
      })
    },
    kill(signal) {
      child.kill(signal)
      return exited
    },
    stop() {
      if (child.connected) child.disconnect()
      return exited
    },
  }
}
