'use strict'
// The growable buffer both processors write the tapes that cross into Rust
// with. Imports nothing: a leaf.

/** A growable Int32Array: the tapes that cross into Rust are written with it. */
class TapeWriter {
  constructor(capacity = 64) {
    this.data = new Int32Array(Math.max(16, capacity))
    this.length = 0
  }

  push(value) {
    if (this.length === this.data.length) this.reserve(1)
    this.data[this.length++] = value
  }

  /** Makes room for `count` more values after `length`. */
  reserve(count) {
    const needed = this.length + count
    if (needed <= this.data.length) return
    const grown = new Int32Array(Math.max(needed, this.data.length * 2))
    grown.set(this.data.subarray(0, this.length))
    this.data = grown
  }

  set(index, value) {
    this.data[index] = value
  }

  /** Starts over, keeping the grown buffer for the next tape. */
  reset() {
    this.length = 0
    return this
  }

  /** The written part, without a copy. */
  finish() {
    return this.data.subarray(0, this.length)
  }
}

module.exports = { TapeWriter }
