// Recording Proxies for the property-read differentials: what a processor
// reads of the objects it is handed, so ours can be held to the release's.

/**
 * Returns `wrap(value, path, deep = true)`, which puts a Proxy over an object
 * that calls `log(read)` for each string-keyed `get` (`path.key`) and `has`
 * (`path has key`). Each object gets one Proxy, so identity holds across
 * calls. With `deep`, what a read returns is wrapped too, down to the first
 * object that is neither a plain object nor an array (a schema, a function,
 * a class instance, handed out as it is). With `markInherited`, a read of a
 * key the object does not own ends in `?`.
 */
export function recorder(log, { markInherited = false } = {}) {
  const proxies = new WeakMap()
  const wrap = (value, path, deep = true) => {
    if (value === null || typeof value !== 'object') return value
    if (deep) {
      const proto = Object.getPrototypeOf(value)
      if (proto !== Object.prototype && proto !== Array.prototype) return value
    }
    if (proxies.has(value)) return proxies.get(value)
    const proxy = new Proxy(value, {
      get(target, key, receiver) {
        const v = Reflect.get(target, key, receiver)
        if (typeof key !== 'string') return v
        log(`${path}.${key}${markInherited && !Object.hasOwn(target, key) ? '?' : ''}`)
        return deep ? wrap(v, `${path}.${key}`, true) : v
      },
      has(target, key) {
        if (typeof key === 'string') log(`${path} has ${key}`)
        return Reflect.has(target, key)
      },
    })
    proxies.set(value, proxy)
    return proxy
  }
  return wrap
}
