// Time under the tests' control: a clock that replaces Date.now for both
// implementations (ours reads time through Date.now too), and a capture of the
// sweep intervals processors start. Both change global state until restored.
//
//   installClock(start)  -> { now, set, advance, restore }
//   captureIntervals()   -> { calls: [{ delay, unrefCalled }], clearAll, restore }

/**
 * Replace Date.now with a controllable clock. Returns { now, set, advance, restore }.
 * Our native processor must read time through Date.now for this to be meaningful.
 */
export function installClock(start = 1_700_000_000_000) {
  const realNow = Date.now
  const clock = {
    t: start,
    now: () => clock.t,
    set: (t) => {
      clock.t = t
    },
    advance: (ms) => {
      clock.t += ms
    },
    restore: () => {
      Date.now = realNow
    },
  }
  Date.now = () => clock.t
  return clock
}

/**
 * Record every setInterval created while installed so a test can clear them
 * (processors with ttl > 0 each start an unref'd sweep interval).
 * Returns { calls: [{delay, unrefCalled}], clearAll, restore }.
 */
export function captureIntervals() {
  const realSetInterval = globalThis.setInterval
  const handles = []
  const calls = []
  globalThis.setInterval = function patchedSetInterval(fn, delay, ...rest) {
    const h = realSetInterval(fn, delay, ...rest)
    const rec = { delay, unrefCalled: false }
    calls.push(rec)
    const realUnref = h.unref?.bind(h)
    if (realUnref) {
      h.unref = () => {
        rec.unrefCalled = true
        return realUnref()
      }
    }
    handles.push(h)
    return h
  }
  return {
    calls,
    clearAll: () => {
      for (const h of handles.splice(0)) clearInterval(h)
      calls.length = 0
    },
    restore: () => {
      for (const h of handles.splice(0)) clearInterval(h)
      globalThis.setInterval = realSetInterval
    },
  }
}
